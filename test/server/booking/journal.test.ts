import { appendFile, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openJournal } from '../../../server/booking/journal.ts';
import { startTestApi } from '../../helpers/api.ts';
import { createTinySnapshot } from '../../helpers/tinySnapshot.ts';
import { JOURNAL_FILE } from '../../../server/booking/sandbox.ts';
import { CHECK_OUT, type Harness, hold, request, START, startBooking, tempStateDir } from './helpers.ts';

let state: Awaited<ReturnType<typeof tempStateDir>>;

beforeEach(async () => {
  state = await tempStateDir();
});

afterEach(async () => {
  await state.remove();
});

describe('openJournal', () => {
  it('creates the directory and file, and reads back what was appended, in order', async () => {
    const file = path.join(state.dir, 'nested', 'journal.jsonl');
    const first = await openJournal(file);
    expect(first.entries).toEqual([]);
    await Promise.all([first.journal.append({ n: 1, text: 'line\nbreak' }), first.journal.append({ n: 2 }), first.journal.append({ n: 3 })]);
    await first.journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":1,"text":"line\\nbreak"}\n{"n":2}\n{"n":3}\n');
    const second = await openJournal(file);
    expect(second.entries).toEqual([{ n: 1, text: 'line\nbreak' }, { n: 2 }, { n: 3 }]);
    await second.journal.close();
  });

  it('cuts off a torn last line and appends after the last complete one', async () => {
    const file = path.join(state.dir, 'journal.jsonl');
    await writeFile(file, '{"n":1}\n{"n":2');
    const opened = await openJournal(file);
    expect(opened.entries).toEqual([{ n: 1 }]);
    expect(opened.truncatedBytes).toBe(6);
    await opened.journal.append({ n: 3 });
    await opened.journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('keeps a whole last entry that only lacks its newline, and appends after it on a line of its own', async () => {
    const file = path.join(state.dir, 'journal.jsonl');
    await writeFile(file, '{"n":1}\n{"n":2}');
    const opened = await openJournal(file);
    expect(opened.entries).toEqual([{ n: 1 }, { n: 2 }]);
    expect(opened.truncatedBytes).toBe(0);
    await opened.journal.append({ n: 3 });
    await opened.journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('refuses a corrupt complete line, naming the file and line', async () => {
    const file = path.join(state.dir, 'journal.jsonl');
    await writeFile(file, '{"n":1}\nnot json\n{"n":3}\n');
    await expect(openJournal(file)).rejects.toThrow(`${file}:2: not a JSON line`);
  });
});

describe('restarting the sandbox', () => {
  let h: Harness;

  async function restart(now: number): Promise<void> {
    await h.stop();
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir }, now);
  }

  beforeEach(async () => {
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir });
  });

  afterEach(async () => {
    await h.stop();
  });

  it('loses no booking, payment, cancellation or held place', async () => {
    const reserved = await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-0900', 2) });
    await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-1300', 1, { cartId: reserved.body.cart.cartId }) });
    const booking = (await request(h.url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT })).body;
    await request(h.url, 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { body: { paymentMethod: 'invoice' } });
    await request(h.url, 'PATCH', `/v1/booking_items/${booking.items[1].bookingItemId}/cancel`, { body: { reason: 'ill' } });
    const held = await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-0900', 1) });
    const before = {
      booking: (await request(h.url, 'GET', `/v1/bookings/${booking.bookingId}`)).body,
      slots: (await request(h.url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-22')).body,
    };
    expect(before.slots[0].availabilities.map((a: { numAvailable: number }) => a.numAvailable)).toEqual([1, 4]);

    await restart(START);
    expect((await request(h.url, 'GET', `/v1/bookings/${booking.bookingId}`)).body).toEqual(before.booking);
    expect((await request(h.url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-22')).body).toEqual(before.slots);
    // The hold made before the restart can still be checked out.
    expect((await request(h.url, 'PATCH', `/v1/carts/${held.body.cart.cartId}/check_out`, { body: CHECK_OUT })).status).toBe(200);
    expect(h.logs).toContain(`booking sandbox: 6 journal entries replayed from ${path.join(state.dir, JOURNAL_FILE)} (1 bookings, 0 expired holds released)`);
  });

  it('releases on start the holds that expired while it was down', async () => {
    const held = await request(h.url, 'POST', '/v1/reservations', { body: hold('4711-20261122-0900', 8) });
    expect(held.status).toBe(201);

    await restart(START + 15 * 60_000);
    expect(h.logs[0]).toMatch(/ \(0 bookings, 1 expired holds released\)$/);
    const { body } = await request(h.url, 'GET', '/v1/activities/4711/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-22');
    expect(body[0].availabilities[0].numAvailable).toBe(8);
    expect((await request(h.url, 'PATCH', `/v1/carts/${held.body.cart.cartId}/check_out`, { body: CHECK_OUT })).status).toBe(410);
  });

  it('answers a retry after the restart with the response stored under its Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'retry-after-restart' };
    const body = hold('9-20261122-1300', 1);
    const first = await request(h.url, 'POST', '/v1/reservations', { body, headers });

    await restart(START + 60_000);
    const retry = await request(h.url, 'POST', '/v1/reservations', { body, headers });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const slots = (await request(h.url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-22')).body;
    expect(slots[0].availabilities[1].numAvailable).toBe(3);
  });

  it('starts from a journal whose last write was cut short, and says so', async () => {
    await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-1300', 1) });
    await h.stop();
    await appendFile(path.join(state.dir, JOURNAL_FILE), '{"v":1,"type":"reserv');
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir });
    expect(h.logs[0]).toMatch(/cut a torn last line \(21 bytes\) off .*; its request was never answered$/);
    const slots = (await request(h.url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-22')).body;
    expect(slots[0].availabilities[1].numAvailable).toBe(3);
  });

  it('keeps an answered booking whose journal line lacks only its newline', async () => {
    const reserved = await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-0900', 2) });
    const booking = await request(h.url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT });
    expect(booking.status).toBe(200);
    await h.stop();
    const file = path.join(state.dir, JOURNAL_FILE);
    await writeFile(file, (await readFile(file, 'utf8')).replace(/\n$/, ''));

    h = await startBooking({ mode: 'sandbox', stateDir: state.dir });
    const after = await request(h.url, 'GET', `/v1/bookings/${booking.body.bookingId}`);
    expect([after.status, after.body.partnerReference]).toEqual([200, CHECK_OUT.partnerReference]);
    expect(h.logs.join('\n')).not.toContain('torn');
  });

  it('refuses, naming the line, a well-formed entry about a cart no earlier line created', async () => {
    await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-0900', 1) });
    await h.stop();
    const file = path.join(state.dir, JOURNAL_FILE);
    const [line] = (await readFile(file, 'utf8')).split('\n');
    const entry = JSON.parse(line!);
    entry.newCart = false;
    entry.reservation.cartId = 'cart_unknown';
    await appendFile(file, `${JSON.stringify(entry)}\n`);

    h = await startBooking({ mode: 'sandbox', stateDir: state.dir });
    expect(h.logs.join('\n')).toContain(`${file}:2: reservation_created names cart "cart_unknown", which no earlier line created; the journal is corrupt`);
    const refused = await request(h.url, 'GET', '/v1/activities');
    expect([refused.status, refused.body.error.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
  });

  it('answers 503 BOOKING_UNAVAILABLE to everything after a failed journal write, until restarted', async () => {
    // Every FileHandle shares one prototype; make its fsync fail as a dying disk would.
    const probe = await open(path.join(state.dir, 'probe'), 'w');
    const sync = vi.spyOn(Object.getPrototypeOf(probe), 'sync').mockRejectedValue(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await probe.close();
    try {
      const failed = await request(h.url, 'POST', '/v1/reservations', { body: hold('9-20261122-1300', 1) });
      expect(failed.status).toBe(500);
      const after = await request(h.url, 'GET', '/v1/activities');
      expect([after.status, after.body.error.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
      expect(h.logs.join('\n')).toContain('journal write to');
    } finally {
      sync.mockRestore();
    }
    await restart(START);
    expect((await request(h.url, 'GET', '/v1/activities')).status).toBe(200);
  });
});

describe('a server whose booking journal cannot be read', () => {
  it('starts, answers GraphQL queries, and refuses the booking paths with 503 BOOKING_UNAVAILABLE', async () => {
    await writeFile(path.join(state.dir, JOURNAL_FILE), '{"v":1}\nnot json\n');
    const snapshot = await createTinySnapshot();
    const api = await startTestApi({ STATE_DIR: state.dir, DATA_DIR: snapshot.dir });
    try {
      const answer = await api.query('{ __typename }');
      expect(answer).toEqual({ data: { __typename: 'Query' } });
      const refused = await request(api.server.url, 'GET', '/v1/bookings/bkg_1');
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 'BOOKING_UNAVAILABLE', details: { reason: 'journal_unreadable' } });
    } finally {
      await api.close();
      await snapshot.remove();
    }
  });
});
