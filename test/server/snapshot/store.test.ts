import { beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot, type Snapshot } from '../../../server/snapshot/load.ts';
import { LOCALES } from '../../../server/snapshot/locales.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { createStore, createStoreAsync } from '../../../server/snapshot/store.ts';
import { DATA_DIR } from '../../helpers/api.ts';
import { createSmallSnapshot } from '../../helpers/smallSnapshot.ts';

const schema = createSchema(readSdl(), resolvers);
let snapshot: Snapshot;

beforeAll(async () => {
  const small = await createSmallSnapshot();
  try {
    snapshot = await loadSnapshot(small.dir, schema);
  } finally {
    await small.remove();
  }
});

describe('default orders', () => {
  it('orders routes by type, then number in natural order ("2" before "10", "469" before "469b"), then id', async () => {
    // The committed snapshot's routes, whose numbers are as varied as the real ones; its routes alone.
    const store = createStore(await loadSnapshot(DATA_DIR, schema, { areas: ['routes'] }));
    for (const locale of LOCALES) {
      const routes = store.locales[locale].routes.records;
      expect(routes.length).toBeGreaterThan(100);
      for (let i = 1; i < routes.length; i++) {
        const [a, b] = [routes[i - 1]!, routes[i]!];
        if (a.type !== b.type) {
          expect(a.type < b.type, `${locale}: type ${a.type} before ${b.type}`).toBe(true);
          continue;
        }
        const [na, nb] = [parseInt(a.number, 10), parseInt(b.number, 10)];
        expect(na <= nb, `${locale} ${a.type}: number ${a.number} before ${b.number}`).toBe(true);
        if (a.number === b.number) expect(a.id < b.id).toBe(true);
        else if (na === nb) expect(naturalBefore(a.number, b.number), `${a.number} before ${b.number}`).toBe(true);
      }
    }
  });
});

/** Whether `a` sorts before `b` comparing runs of digits as numbers and the rest as text ("132-2" before "132-10", "469" before "469b"). */
function naturalBefore(a: string, b: string): boolean {
  const [ra, rb] = [a.match(/\d+|\D+/g)!, b.match(/\d+|\D+/g)!];
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
    const [x, y] = [ra[i]!, rb[i]!];
    if (x === y) continue;
    return /^\d/.test(x) && /^\d/.test(y) ? Number(x) < Number(y) : x < y;
  }
  return ra.length < rb.length;
}

describe('createStoreAsync', () => {
  it('builds the store createStore builds: the same records in the same order, the same search and near-me answers', async () => {
    const [sync, async] = [createStore(snapshot), await createStoreAsync(snapshot)];
    expect(async.snapshot).toBe(sync.snapshot);
    for (const locale of LOCALES) {
      for (const [area, built] of Object.entries(async.locales[locale])) {
        const expected = sync.locales[locale][area as keyof typeof sync.locales[typeof locale]];
        expect(built.records.map((record) => record.id), `${locale} ${area}`).toEqual(expected.records.map((record) => record.id));
        expect([...built.byId.keys()]).toEqual([...expected.byId.keys()]);
      }
      expect(async.locales[locale].tours.text.search('alp')).toEqual(sync.locales[locale].tours.text.search('alp'));
      expect(async.locales[locale].tours.geo.nearest(7.86, 46.69, 30, null, 5)).toEqual(sync.locales[locale].tours.geo.nearest(7.86, 46.69, 30, null, 5));
    }
    expect(async.source('tours')).toEqual(sync.source('tours'));
  });

  it('keeps the areas of the previous store whose records are the same, and the routes only while their tours and stations are too', async () => {
    const previous = createStore(snapshot);
    /** The snapshot with the records of `area` as a new array in every locale: a file loaded again. */
    const reloaded = (area: 'activities' | 'tours'): Snapshot => ({
      ...snapshot,
      locales: Object.fromEntries(LOCALES.map((locale) => [locale, { ...snapshot.locales[locale], [area]: [...snapshot.locales[locale][area]] }])) as Snapshot['locales'],
    });
    const activitiesAgain = await createStoreAsync(reloaded('activities'), {}, previous);
    const toursAgain = await createStoreAsync(reloaded('tours'), {}, previous);
    for (const locale of LOCALES) {
      expect(activitiesAgain.locales[locale].activities).not.toBe(previous.locales[locale].activities);
      expect(activitiesAgain.locales[locale].routes).toBe(previous.locales[locale].routes);
      expect(toursAgain.locales[locale].stations).toBe(previous.locales[locale].stations);
      expect(toursAgain.locales[locale].tours).not.toBe(previous.locales[locale].tours);
      expect(toursAgain.locales[locale].routes).not.toBe(previous.locales[locale].routes);
      expect(toursAgain.locales[locale].routes.records).toEqual(previous.locales[locale].routes.records);
    }
  });

  it('lets the event loop run after each area of each locale', async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      await createStoreAsync(snapshot);
    } finally {
      clearInterval(ticking);
    }
    // 7 areas in 4 locales; a 0 ms interval fires at most once per turn.
    expect(turns).toBeGreaterThanOrEqual(20);
  });
});
