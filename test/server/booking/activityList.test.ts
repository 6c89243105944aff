import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Locale } from '../../../server/locales.ts';
import type { ActivityRecord } from '../../../sync/snapshot.ts';
import { ACTIVITIES, firstOpenDay, type Harness, request, START, startBooking, tempStateDir } from './helpers.ts';

const HOLD_MS = 15 * 60_000;

let h: Harness;
let state: Awaited<ReturnType<typeof tempStateDir>>;
/** The snapshot the sandbox sees; replace it to serve another. */
let snapshot: Record<Locale, readonly ActivityRecord[]>;
/** How often the sandbox has read a record's price: once per record each time it builds the list. */
let priceReads: number;

/** The records of `ACTIVITIES`, each counting the reads of its `summary` in `priceReads`. */
function counted(records: readonly ActivityRecord[], title = (record: ActivityRecord) => record.title): ActivityRecord[] {
  return records.map((record) => {
    const copy = { ...record, title: title(record) };
    Object.defineProperty(copy, 'summary', {
      get: () => {
        priceReads++;
        return record.summary;
      },
      enumerable: true,
    });
    return copy;
  });
}

beforeEach(async () => {
  priceReads = 0;
  snapshot = { 'de-CH': counted(ACTIVITIES['de-CH']), 'en-CH': counted(ACTIVITIES['en-CH']), 'fr-CH': [], 'it-CH': [] };
  state = await tempStateDir();
  h = await startBooking({ mode: 'sandbox', stateDir: state.dir, activities: (locale) => snapshot[locale] });
});

afterEach(async () => {
  await h.stop();
  await state.remove();
});

async function nextAvailableDate(id: number): Promise<string | null> {
  const { body } = await request(h.url, 'GET', '/v1/activities');
  return body.data.find((activity: { id: number }) => activity.id === id).nextAvailableDate;
}

describe('the activity list', () => {
  it('is built once per snapshot and locale, and again for a new snapshot', async () => {
    const first = await request(h.url, 'GET', '/v1/activities');
    const reads = priceReads;
    expect(reads).toBeGreaterThan(0);
    expect(await request(h.url, 'GET', '/v1/activities')).toMatchObject({ status: 200, body: first.body });
    expect(priceReads).toBe(reads);

    await request(h.url, 'GET', '/v1/activities?locale=en_CH');
    const afterEnglish = priceReads;
    expect(afterEnglish).toBeGreaterThan(reads);
    await request(h.url, 'GET', '/v1/activities?locale=en_CH');
    expect(priceReads).toBe(afterEnglish);

    snapshot = { ...snapshot, 'de-CH': counted(ACTIVITIES['de-CH'], (record) => `${record.title} (neu)`) };
    const renewed = await request(h.url, 'GET', '/v1/activities');
    expect(priceReads).toBeGreaterThan(afterEnglish);
    expect(renewed.body.data[0].title).toBe(`${first.body.data[0].title} (neu)`);
  });

  it('follows the places: taken by holds, freed when they expire', async () => {
    const { date, slotIds } = await firstOpenDay(h.url, 9);
    expect(await nextAvailableDate(9)).toBe(date);
    for (const slotId of slotIds) expect((await request(h.url, 'POST', '/v1/reservations', { body: { slotId, quantity: 4 } })).status).toBe(201);
    expect(await nextAvailableDate(9)).not.toBe(date);
    h.now = START + HOLD_MS;
    expect(await nextAvailableDate(9)).toBe(date);
  });

  it('follows the clock: once the last slot of a day has started, that day is no longer next', async () => {
    const { date, slotIds } = await firstOpenDay(h.url, 9);
    expect(await nextAvailableDate(9)).toBe(date);
    const { body } = await request(h.url, 'GET', `/v1/activities/9/availabilities?from=${date}&to=${date}`);
    const lastStart = body.data.find((slot: { slotId: string }) => slot.slotId === slotIds.at(-1)).startsAt;
    h.now = Date.parse(lastStart);
    expect(await nextAvailableDate(9)).not.toBe(date);
  });
});
