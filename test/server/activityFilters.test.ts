/**
 * The price and date filters and the sorts of `activities`, and the next available date worked
 * out for the day a request is answered on, through real HTTP against the committed fixture
 * snapshot. Expected answers are worked out here from the snapshot's files by brute force.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../sync/format.ts';
import { readArea, startTestApi, type TestApi } from '../helpers/api.ts';
import { haversineKm } from '../helpers/haversine.ts';

/** 2027-01-15 at noon in Zurich (winter time, UTC+1): well after the snapshot's day. */
const NOON = Date.parse('2027-01-15T11:00:00Z');
const TODAY = '2027-01-15';

let now = NOON;
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({}, { clock: () => now });
});
afterAll(() => api.close());

const all = readArea('de-CH', 'activities');

async function data(query: string, variables?: Record<string, unknown>) {
  const result = await api.query(query, variables);
  expect(result.errors, query).toBeUndefined();
  return result.data!;
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byRanking = (a: ActivityRecord, b: ActivityRecord) =>
  b.summary.rankingScoreValue - a.summary.rankingScoreValue || b.summary.popularity - a.summary.popularity || compareIds(a.id, b.id);

const expanded = new Map<ActivityRecord, string[]>();

/** Every day of `availableDates`, expanded. */
function daysOf(record: ActivityRecord): string[] {
  const known = expanded.get(record);
  if (known) return known;
  const days: string[] = [];
  expanded.set(record, days);
  for (const entry of record.availableDates) {
    const [first, last = first] = entry.split('/') as [string, string?];
    for (let day = first; day <= last!; day = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) days.push(day);
  }
  return days;
}

const nextOn = (record: ActivityRecord, today: string) => daysOf(record).find((day) => day >= today) ?? null;
const bookableOn = (record: ActivityRecord, today: string) => record.summary.isActive && nextOn(record, today) !== null;
const francs = (record: ActivityRecord) => (record.summary.startingPrice?.currency === 'CHF' ? Number(record.summary.startingPrice.amount) : null);

/** Brute force of the filters: price in [min, max], bookable on a day of [from, to] not before today. */
function matches(record: ActivityRecord, f: { minPrice?: number; maxPrice?: number; availableFrom?: string; availableTo?: string }, today = TODAY): boolean {
  if (f.minPrice !== undefined || f.maxPrice !== undefined) {
    const price = francs(record);
    if (price === null || price < (f.minPrice ?? -Infinity) || price > (f.maxPrice ?? Infinity)) return false;
  }
  if (f.availableFrom !== undefined || f.availableTo !== undefined) {
    const from = f.availableFrom === undefined || f.availableFrom < today ? today : f.availableFrom;
    const to = f.availableTo ?? '9999-12-31';
    if (!record.summary.isActive || !daysOf(record).some((day) => day >= from && day <= to)) return false;
  }
  return true;
}

const nullsLast = <T>(x: T | null, y: T | null, compare: (a: T, b: T) => number) => (x === null || y === null ? (x === y ? 0 : x === null ? 1 : -1) : compare(x, y));
const SORTS: Record<string, (a: ActivityRecord, b: ActivityRecord) => number> = {
  RANKING_DESC: byRanking,
  PRICE_ASC: (a, b) => nullsLast(francs(a), francs(b), (x, y) => x - y) || compareIds(a.id, b.id),
  PRICE_DESC: (a, b) => nullsLast(francs(a), francs(b), (x, y) => y - x) || compareIds(a.id, b.id),
  POPULARITY_DESC: (a, b) => b.summary.popularity - a.summary.popularity || compareIds(a.id, b.id),
  NEXT_AVAILABLE_DATE_ASC: (a, b) => nullsLast(nextOn(a, TODAY), nextOn(b, TODAY), compareIds) || compareIds(a.id, b.id),
};

const LIST = `query($minPrice: Float, $maxPrice: Float, $from: String, $to: String, $sort: ActivitiesSort, $typeId: String, $offset: Int, $limit: Int) {
  activities(minPrice: $minPrice, maxPrice: $maxPrice, availableFrom: $from, availableTo: $to, sort: $sort, typeId: $typeId, offset: $offset, limit: $limit) {
    total hasMore data { id isBookable nextAvailableDate }
  }
}`;

describe('activities: next available date and bookability on the day of the request', () => {
  it('works out every activity\'s nextAvailableDate and isBookable for today in Zurich, never a day already past', async () => {
    const seen: { id: string; isBookable: boolean; nextAvailableDate: string | null }[] = [];
    for (let offset = 0; offset < all.length; offset += 100) seen.push(...(await data(LIST, { offset, limit: 100 })).activities.data);
    const expected = [...all].sort(byRanking).map((a) => ({ id: a.id, isBookable: bookableOn(a, TODAY), nextAvailableDate: nextOn(a, TODAY) }));
    expect(seen).toEqual(expected);
    // The snapshot's own (sync-day) dates lie before today for many of them.
    expect(all.filter((a) => a.nextAvailableDate !== null && a.nextAvailableDate < TODAY).length).toBeGreaterThan(50);
    expect(seen.filter((a) => a.nextAvailableDate !== null && a.nextAvailableDate < TODAY)).toEqual([]);
    expect(seen.filter((a) => a.isBookable).length).toBeGreaterThan(all.length / 3);
  });

  it('answers activity(id) for today too', async () => {
    const record = all.find((a) => a.nextAvailableDate !== null && a.nextAvailableDate < TODAY && nextOn(a, TODAY) !== null)!;
    const { activity } = await data('query($id: String!) { activity(id: $id) { id isBookable nextAvailableDate } }', { id: record.id });
    expect(activity).toEqual({ id: record.id, isBookable: bookableOn(record, TODAY), nextAvailableDate: nextOn(record, TODAY) });
  });

  it('answers the activities of search for today too', async () => {
    const { search } = await data('{ search(q: "davos", areas: ["activities"], limit: 20) { data { id item { ... on Activity { id isBookable nextAvailableDate } } } } }');
    expect(search.data.length).toBeGreaterThan(0);
    for (const hit of search.data) {
      const record = all.find((a) => a.id === hit.id)!;
      expect(hit.item).toEqual({ id: record.id, isBookable: bookableOn(record, TODAY), nextAvailableDate: nextOn(record, TODAY) });
    }
  });

  it('changes the answer at midnight in Zurich, and not before, though the same request was answered from the caches', async () => {
    // An activity bookable on one day and not the next: its answer changes when that day ends.
    const eve = '2027-02-10';
    const record = all.find((a) => a.summary.isActive && daysOf(a).includes(eve) && !daysOf(a).includes('2027-02-11'))!;
    expect(record).toBeDefined();
    const query = 'query($id: String!) { activity(id: $id) { id isBookable nextAvailableDate } list: activities(availableFrom: "2027-02-10", availableTo: "2027-02-10", limit: 100) { total data { id nextAvailableDate } } }';
    const ask = async () => (await data(query, { id: record.id })) as { activity: { nextAvailableDate: string | null }; list: { total: number; data: { id: string; nextAvailableDate: string }[] } };
    try {
      // 23:59:59.999 in Zurich (UTC+1 in February), asked twice, so that the second answer is the cached one.
      now = Date.parse('2027-02-10T22:59:59.999Z');
      const before = await ask();
      expect(await ask()).toEqual(before);
      expect(before.activity.nextAvailableDate).toBe(eve);
      expect(before.list.total).toBe(all.filter((a) => matches(a, { availableFrom: eve, availableTo: eve }, eve)).length);
      expect(before.list.data.map((a) => a.id)).toContain(record.id);
      expect(new Set(before.list.data.map((a) => a.nextAvailableDate))).toEqual(new Set([eve]));

      now = Date.parse('2027-02-10T23:00:00.000Z');
      const after = await ask();
      expect(after.activity.nextAvailableDate).toBe(nextOn(record, '2027-02-11'));
      expect(after.list).toEqual({ total: 0, data: [] });
    } finally {
      now = NOON;
    }
  });
});

describe('activities: price and date filters', () => {
  const type = all.find((a) => a.type)!.type!.id;
  it.each([
    { maxPrice: 100 },
    { minPrice: 80.5 },
    { minPrice: 50, maxPrice: 150 },
    { minPrice: 99, maxPrice: 99 },
    { availableFrom: '2027-01-16', availableTo: '2027-01-17' },
    { availableFrom: '2027-07-01' },
    { availableTo: '2027-01-20' },
    { availableFrom: '2026-12-01', availableTo: '2027-01-15' },
    { availableFrom: '2026-12-01', availableTo: '2027-01-14' },
    { maxPrice: 100, availableFrom: '2027-01-16', availableTo: '2027-01-24' },
    { maxPrice: 100, availableFrom: '2027-01-16', availableTo: '2027-01-24', typeId: type },
  ])('matches a brute-force pass over the records with %j', async (filter) => {
    const { availableFrom: from, availableTo: to, ...rest } = filter as Record<string, unknown>;
    const expected = all.filter((a) => matches(a, filter) && (!('typeId' in filter) || a.type?.id === filter.typeId)).sort(byRanking);
    const { activities } = await data(LIST, { ...rest, from, to, limit: 100 });
    expect(activities.total).toBe(expected.length);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.slice(0, 100).map((a) => a.id));
  });

  it('finds some of each filter and leaves some out, so that the comparisons above say something', () => {
    const count = (f: Parameters<typeof matches>[1]) => all.filter((a) => matches(a, f)).length;
    for (const f of [{ maxPrice: 100 }, { availableFrom: '2027-01-16', availableTo: '2027-01-17' }, { maxPrice: 100, availableFrom: '2027-01-16', availableTo: '2027-01-24' }]) {
      expect(count(f)).toBeGreaterThan(5);
      expect(count(f)).toBeLessThan(all.length - 5);
    }
    expect(count({ availableFrom: '2026-12-01', availableTo: '2027-01-14' })).toBe(0);
  });
});

describe('activities: sort', () => {
  it.each(Object.keys(SORTS))('orders by %s as a brute-force sort does, ties by id', async (sort) => {
    const filter = { maxPrice: 120 };
    const expected = all.filter((a) => matches(a, filter)).sort(SORTS[sort]);
    const { activities } = await data(LIST, { ...filter, sort, limit: 100, offset: 20 });
    expect(activities.total).toBe(expected.length);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.slice(20, 120).map((a) => a.id));
  });

  it('keeps the order without sort exactly as RANKING_DESC gives it', async () => {
    const plain = await data(LIST, { limit: 100 });
    const ranked = await data(LIST, { limit: 100, sort: 'RANKING_DESC' });
    expect(ranked).toEqual(plain);
  });

  it.each(Object.keys(SORTS))('pages through every activity sorted by %s without repeating or skipping one', async (sort) => {
    const ids: string[] = [];
    for (let offset = 0; offset < all.length; offset += 97) ids.push(...(await data(LIST, { sort, offset, limit: 97 })).activities.data.map((a: { id: string }) => a.id));
    expect(ids).toEqual([...all].sort(SORTS[sort]).map((a) => a.id));
  });

  const [lng, lat, radiusKm] = [7.8632, 46.6863, 60];
  const inRadius = all
    .filter((a) => a.lat !== null && a.lng !== null)
    .map((a) => ({ a, km: haversineKm(lng, lat, Number(a.lng), Number(a.lat)) }))
    .filter((hit) => hit.km <= radiusKm);
  const NEAR = `query($sort: ActivitiesSort, $q: String, $offset: Int) {
    activities(nearLat: ${lat}, nearLng: ${lng}, radiusKm: ${radiusKm}, sort: $sort, q: $q, offset: $offset, limit: 30) { total data { id distance } }
  }`;

  it('pages through near-me sorted by DISTANCE_ASC, nearest first, ties by id, every distance set', async () => {
    const expected = inRadius.sort((x, y) => x.km - y.km || compareIds(x.a.id, y.a.id));
    expect(expected.length).toBeGreaterThan(60);
    const seen: { id: string; distance: number }[] = [];
    for (let offset = 0; offset < expected.length; offset += 30) {
      const { activities } = await data(NEAR, { sort: 'DISTANCE_ASC', offset });
      expect(activities.total).toBe(expected.length);
      seen.push(...activities.data);
    }
    expect(seen.map((a) => a.id)).toEqual(expected.map((h) => h.a.id));
    seen.forEach((item, i) => expect(item.distance).toBeCloseTo(expected[i]!.km, 2));
  });

  it('orders near-me by another sort within the radius, keeping each distance', async () => {
    const expected = inRadius.map((h) => h.a).sort(SORTS.PRICE_DESC);
    const { activities } = await data(NEAR, { sort: 'PRICE_DESC', offset: 0 });
    expect(activities.total).toBe(expected.length);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.slice(0, 30).map((a) => a.id));
    for (const item of activities.data) expect(item.distance).toBeGreaterThanOrEqual(0);
  });

  it('narrows by q and orders by the sort, not by the text match', async () => {
    const { activities: found } = await data('{ activities(q: "zermatt", limit: 100) { total data { id } } }');
    expect(found.total).toBeGreaterThan(2);
    const ids = new Set(found.data.map((a: { id: string }) => a.id));
    const expected = all.filter((a) => ids.has(a.id)).sort(SORTS.PRICE_ASC);
    const { activities } = await data('{ activities(q: "zermatt", sort: PRICE_ASC, limit: 100) { total data { id } } }');
    expect(activities.total).toBe(found.total);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.map((a) => a.id));
  });
});

describe('activities: refusals of the new arguments', () => {
  it.each([
    ['{ activities(minPrice: 120, maxPrice: 80) { total } }', 'minPrice: 120 is above maxPrice: 80; allowed: minPrice at most maxPrice'],
    ['{ activities(minPrice: -1) { total } }', 'minPrice: -1 is out of range; allowed: an amount in CHF of 0 or more'],
    ['{ activities(maxPrice: -0.5) { total } }', 'maxPrice: -0.5 is out of range; allowed: an amount in CHF of 0 or more'],
    ['{ activities(availableFrom: "2027-02-30") { total } }', 'availableFrom: "2027-02-30" is not a date; allowed: an ISO 8601 date, YYYY-MM-DD'],
    ['{ activities(availableTo: "next weekend") { total } }', 'availableTo: "next weekend" is not a date; allowed: an ISO 8601 date, YYYY-MM-DD'],
    ['{ activities(availableFrom: "2027-03-02", availableTo: "2027-03-01") { total } }', 'availableFrom: "2027-03-02" is after availableTo: "2027-03-01"; allowed: availableFrom on or before availableTo'],
    ['{ activities(sort: DISTANCE_ASC) { total } }', 'sort: DISTANCE_ASC needs nearLat and nearLng; allowed without them: RANKING_DESC, PRICE_ASC, PRICE_DESC, POPULARITY_DESC, NEXT_AVAILABLE_DATE_ASC'],
  ])('refuses %s', async (query, message) => {
    const result = await api.query(query);
    expect(result).toEqual({ errors: [expect.objectContaining({ message, extensions: { code: 'BAD_USER_INPUT' } })] });
  });

  it('refuses an unknown sort value in validation', async () => {
    const result = await api.query('{ activities(sort: CHEAPEST) { total } }');
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(result.errors?.[0]?.message).toContain('ActivitiesSort');
  });
});
