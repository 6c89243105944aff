import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Locale } from '../../../server/snapshot/locales.ts';
import type { ActivityRecord } from '../../../sync/format.ts';
import { ACTIVITIES, type Harness, request, startBooking, tempStateDir } from './helpers.ts';

let h: Harness;
let state: Awaited<ReturnType<typeof tempStateDir>>;
/** The snapshot the sandbox sees; replace it to serve another. */
let snapshot: Record<Locale, readonly ActivityRecord[]>;
/** How often the sandbox has read a record's price: once per record each time it builds the list. */
let priceReads: number;

/** The records of `ACTIVITIES`, each counting the reads of its `summary` in `priceReads`. */
function counted(records: readonly ActivityRecord[], id = (record: ActivityRecord) => record.id): ActivityRecord[] {
  return records.map((record) => {
    const copy = { ...record, id: id(record) };
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

    snapshot = { ...snapshot, 'de-CH': counted(ACTIVITIES['de-CH'], (record) => `${record.id}-neu`) };
    const renewed = await request(h.url, 'GET', '/v1/activities');
    expect(priceReads).toBeGreaterThan(afterEnglish);
    expect(renewed.body[0].contentApiActivityId).toBe(`${first.body[0].contentApiActivityId}-neu`);
  });
});
