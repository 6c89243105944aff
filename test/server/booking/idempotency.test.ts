import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyStore, IDEMPOTENCY_TTL_MS, storedBytes } from '../../../server/booking/idempotency.ts';
import { DEFAULT_IDEMPOTENCY_MAX_BYTES, DEFAULT_IDEMPOTENCY_MAX_ENTRIES } from '../../../server/config/bookingConfig.ts';
import { jsonReply } from '../../../server/booking/operations.ts';
import { CHECK_OUT, type Harness, hold, placesLeft, request, sandboxForFile, START, startBooking, tempStateDir } from './helpers.ts';

const sandbox = sandboxForFile();

const available = (slotId: string) => placesLeft(sandbox().url, slotId);

describe('Idempotency-Key over HTTP', () => {
  it('answers a retried reservation with the stored response and holds the places once', async () => {
    const options = { body: hold('9-20261123-0900', 2), headers: { 'idempotency-key': 'reserve-1' } };
    const first = await request(sandbox().url, 'POST', '/v1/reservations', options);
    const retry = await request(sandbox().url, 'POST', '/v1/reservations', options);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await available('9-20261123-0900')).toBe(2);
  });

  it('answers a retried check-out, payment and cancellation as the first time', async () => {
    const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261123-1300', 1) });
    const checkOut = { body: CHECK_OUT, headers: { 'idempotency-key': 'check-out-1' } };
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, checkOut);
    expect(await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, checkOut)).toMatchObject({ status: 200, body: booking.body });
    // Without the key, a second check-out is refused.
    expect((await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT })).status).toBe(409);

    const pay = { body: { paymentMethod: 'invoice' }, headers: { 'idempotency-key': 'pay-1' } };
    const payment = await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay);
    expect(await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay)).toMatchObject({ status: 201, body: payment.body });

    const cancel = { headers: { 'idempotency-key': 'cancel-1' } };
    const cancelled = await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.body.items[0].bookingItemId}/cancel`, cancel);
    const again = await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.body.items[0].bookingItemId}/cancel`, cancel);
    expect(again).toMatchObject({ status: 200, body: cancelled.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a different request under a used key with 422, changing nothing', async () => {
    const headers = { 'idempotency-key': 'reserve-2' };
    await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261125-0900', 1), headers });
    const other = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261125-0900', 3), headers });
    expect(other.status).toBe(422);
    expect(other.body.error).toEqual({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'Idempotency-Key "reserve-2" was already used for a different request; use a new key for a new request',
      details: { idempotencyKey: 'reserve-2' },
    });
    expect(await available('9-20261125-0900')).toBe(3);
  });

  it('does not store an error: a retry under the same key runs again', async () => {
    const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261126-0900', 1) });
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT });
    const pay = { body: { paymentMethod: 'sandbox_declined' }, headers: { 'idempotency-key': 'pay-declined' } };
    expect((await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay)).status).toBe(422);
    const retry = await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay);
    expect(retry.status).toBe(422);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 to a retry sent while the first request is still running', async () => {
    const options = { body: hold('9-20261127-0900', 1), headers: { 'idempotency-key': 'parallel' } };
    const answers = await Promise.all([request(sandbox().url, 'POST', '/v1/reservations', options), request(sandbox().url, 'POST', '/v1/reservations', options)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await available('9-20261127-0900')).toBe(3);
  });

  it('refuses a key that is not one value of visible ASCII', async () => {
    for (const key of ['two words', 'x'.repeat(256)]) {
      const answer = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261127-1300', 1), headers: { 'idempotency-key': key } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toEqual({ field: 'Idempotency-Key' });
    }
  });
});

describe('Idempotency-Key of several clients', () => {
  let h: Harness;
  let state: Awaited<ReturnType<typeof tempStateDir>>;

  beforeAll(async () => {
    state = await tempStateDir();
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir, trustedProxies: 1 });
  });

  afterAll(async () => {
    await h.stop();
    await state.remove();
  });

  const reserve = (client: string, key: string, quantity: number, availabilityId = '4711-20261121-0900') =>
    request(h.url, 'POST', '/v1/reservations', { body: hold(availabilityId, quantity), headers: { 'idempotency-key': key, 'x-forwarded-for': client } });

  it("never answers one client's request with the response stored for another's under the same key", async () => {
    const mine = await reserve('203.0.113.1', 'order-1', 1);
    const theirs = await reserve('203.0.113.2', 'order-1', 1);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.reservationId).not.toBe(mine.body.reservationId);
    // The first client's retry still gets its own response.
    const retry = await reserve('203.0.113.1', 'order-1', 1);
    expect([retry.body.reservationId, retry.headers.get('idempotent-replayed')]).toEqual([mine.body.reservationId, 'true']);
  });

  it("lets another client use a key for a different request (no 422 from someone else's key)", async () => {
    expect((await reserve('203.0.113.1', 'order-2', 1, '4711-20261121-1300')).status).toBe(201);
    expect((await reserve('203.0.113.2', 'order-2', 2, '4711-20261121-1300')).status).toBe(201);
  });

  it('keeps keys scoped to their client across a restart', async () => {
    const mine = await reserve('203.0.113.3', 'order-3', 1);
    await h.stop();
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir, trustedProxies: 1 });
    const theirs = await reserve('203.0.113.4', 'order-3', 1);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const retry = await reserve('203.0.113.3', 'order-3', 1);
    expect([retry.body.reservationId, retry.headers.get('idempotent-replayed')]).toEqual([mine.body.reservationId, 'true']);
  });
});

describe('Idempotency-Key over HTTP with a bound of two responses', () => {
  let h: Harness;
  let state: Awaited<ReturnType<typeof tempStateDir>>;

  beforeAll(async () => {
    state = await tempStateDir();
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir, trustedProxies: 1, idempotencyMaxEntries: 2 });
  });

  afterAll(async () => {
    await h.stop();
    await state.remove();
  });

  const reserve = (client: string, key: string) =>
    request(h.url, 'POST', '/v1/reservations', { body: hold('4711-20261122-0900', 1), headers: { 'idempotency-key': key, 'x-forwarded-for': client } });

  it('runs a retry again once its response has left the store, the oldest of the client holding most first', async () => {
    const quiet = await reserve('203.0.113.20', 'quiet-1');
    const first = await reserve('203.0.113.21', 'fresh-1');
    await reserve('203.0.113.21', 'fresh-2');
    await reserve('203.0.113.21', 'fresh-3');
    expect((await reserve('203.0.113.20', 'quiet-1')).headers.get('idempotent-replayed')).toBe('true');
    expect((await reserve('203.0.113.20', 'quiet-1')).body.reservationId).toBe(quiet.body.reservationId);
    const again = await reserve('203.0.113.21', 'fresh-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.reservationId).not.toBe(first.body.reservationId);
  });
});

describe('createIdempotencyStore', () => {
  const reply = jsonReply(201, { id: 'rsv_1' });
  const BOUND = { maxEntries: DEFAULT_IDEMPOTENCY_MAX_ENTRIES, maxBytes: DEFAULT_IDEMPOTENCY_MAX_BYTES };

  it('keeps within its bound of entries, dropping the oldest first', () => {
    const store = createIdempotencyStore({ maxEntries: 10, maxBytes: DEFAULT_IDEMPOTENCY_MAX_BYTES });
    for (let i = 0; i < 25; i++) {
      store.begin('10.0.0.1', `k${i}`, 'f', START);
      store.release('10.0.0.1', `k${i}`, 'f', reply, START);
      expect(store.usage().entries).toBe(Math.min(i + 1, 10));
    }
    // The ten newest answer again; the older ones run again.
    for (let i = 0; i < 25; i++) expect(store.begin('10.0.0.1', `k${i}`, 'f', START) === reply).toBe(i >= 15);
  });

  it('keeps within its bound of bytes, counting each response as storedBytes does', () => {
    const one = storedBytes('10.0.0.1', 'k00', reply);
    const store = createIdempotencyStore({ maxEntries: 1000, maxBytes: 4 * one });
    for (let i = 0; i < 10; i++) {
      store.begin('10.0.0.1', `k0${i}`, 'f', START);
      store.release('10.0.0.1', `k0${i}`, 'f', reply, START);
    }
    expect(store.usage()).toMatchObject({ entries: 4, bytes: 4 * one });
    // A response larger than the whole bound is not stored at all.
    const large = jsonReply(201, { pad: 'x'.repeat(4 * one) });
    store.begin('10.0.0.1', 'large', 'f', START);
    store.release('10.0.0.1', 'large', 'f', large, START);
    expect(store.usage()).toMatchObject({ entries: 4, bytes: 4 * one });
    expect(store.begin('10.0.0.1', 'large', 'f', START)).toBeUndefined();
  });

  it('makes room from the client holding the most responses, so one sending fresh keys without end drops only its own', () => {
    const store = createIdempotencyStore({ maxEntries: 100, maxBytes: DEFAULT_IDEMPOTENCY_MAX_BYTES });
    const put = (client: string, key: string) => {
      store.begin(client, key, 'f', START);
      store.release(client, key, 'f', reply, START);
    };
    for (let i = 0; i < 20; i++) put('10.0.0.2', `quiet-${i}`);
    for (let i = 0; i < 10_000; i++) put('10.0.0.9', `flood-${i}`);
    expect(store.usage()).toMatchObject({ entries: 100, clients: 2 });
    expect(store.usage().entriesOf('10.0.0.2')).toBe(20);
    for (let i = 0; i < 20; i++) expect(store.begin('10.0.0.2', `quiet-${i}`, 'f', START)).toBe(reply);
    // A newcomer's responses too make room from the flood's, down to the most the others hold.
    for (let i = 0; i < 30; i++) put('10.0.0.3', `new-${i}`);
    expect([store.usage().entriesOf('10.0.0.2'), store.usage().entriesOf('10.0.0.3'), store.usage().entriesOf('10.0.0.9')]).toEqual([20, 30, 50]);
    for (let i = 30; i < 200; i++) put('10.0.0.3', `new-${i}`);
    // The two that write without end now share what the quiet one leaves, one apart at most.
    expect(store.usage().entriesOf('10.0.0.2')).toBe(20);
    expect(Math.abs(store.usage().entriesOf('10.0.0.3') - store.usage().entriesOf('10.0.0.9'))).toBeLessThanOrEqual(1);
  });

  it('forgets a stored response after 24 hours', () => {
    const store = createIdempotencyStore(BOUND);
    expect(store.begin('10.0.0.1', 'k', 'f', START)).toBeUndefined();
    store.release('10.0.0.1', 'k', 'f', reply, START);
    expect(store.begin('10.0.0.1', 'k', 'f', START + IDEMPOTENCY_TTL_MS - 1)).toBe(reply);
    expect(store.begin('10.0.0.1', 'k', 'other', START + IDEMPOTENCY_TTL_MS)).toBeUndefined();
  });

  it('stores only 2xx responses and frees the key after any run', () => {
    const store = createIdempotencyStore(BOUND);
    store.begin('10.0.0.1', 'k', 'f', START);
    store.release('10.0.0.1', 'k', 'f', jsonReply(409, {}), START);
    expect(store.begin('10.0.0.1', 'k', 'f', START)).toBeUndefined();
    store.release('10.0.0.1', 'k', 'f', undefined, START);
    expect(store.begin('10.0.0.1', 'k', 'g', START)).toBeUndefined();
  });

  it('ignores a restored response that has already expired', () => {
    const store = createIdempotencyStore(BOUND);
    store.restore('10.0.0.1', 'old', { fingerprint: 'f', storedAt: START - IDEMPOTENCY_TTL_MS, reply }, START);
    store.restore('10.0.0.1', 'new', { fingerprint: 'f', storedAt: START - 1, reply }, START);
    expect(store.begin('10.0.0.1', 'old', 'f', START)).toBeUndefined();
    expect(store.begin('10.0.0.1', 'new', 'f', START)).toBe(reply);
  });
});
