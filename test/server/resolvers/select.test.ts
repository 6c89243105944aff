import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRecord, AttractionRecord, RouteRecord, TourRecord } from '../../../sync/format.ts';
import type { FilterCondition } from '../../../server/search/filterIndex.ts';
import { positionSetOf } from '../../../server/search/positionSet.ts';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { LOCALES } from '../../../server/snapshot/locales.ts';
import type { NearMe } from '../../../server/resolvers/args.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { selectRecords } from '../../../server/resolvers/select.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { createStore, type AreaStore, type Store } from '../../../server/snapshot/store.ts';
import { createSmallSnapshot } from '../../helpers/smallSnapshot.ts';

let store: Store;

beforeAll(async () => {
  // Real records, enough of them for every filter value to select some and leave others out.
  const small = await createSmallSnapshot(120);
  try {
    store = createStore(await loadSnapshot(small.dir, createSchema(readSdl(), resolvers)));
  } finally {
    await small.remove();
  }
});

/** A filter argument: the test a record passes for a value, record by record, and values to try. */
interface Argument<R> {
  name: string;
  passes: (record: R, value: string | boolean) => boolean;
  /** Values to try besides those the records have. */
  extra: (string | boolean)[];
  /** The values the records have, to try each of them. */
  valuesOf?: (record: R) => readonly (string | boolean | null | undefined)[];
}

const ATTRACTION_ARGUMENTS: Argument<AttractionRecord>[] = [
  { name: 'season', passes: (r, v) => r.seasons.includes(v as string), valuesOf: (r) => r.seasons, extra: [] },
  { name: 'sportType', passes: (r, v) => r.sportTypes.includes(v as string), valuesOf: (r) => r.sportTypes, extra: ['unknown'] },
  { name: 'experienceType', passes: (r, v) => r.experienceTypes.includes(v as string), valuesOf: (r) => r.experienceTypes, extra: ['unknown'] },
  { name: 'neededTime', passes: (r, v) => r.neededTime === v, valuesOf: (r) => [r.neededTime], extra: [] },
  { name: 'childrenAge', passes: (r, v) => r.childrenAges.includes(v as string), valuesOf: (r) => r.childrenAges, extra: [] },
  { name: 'isOutdoor', passes: (r, v) => r.isOutdoor === v, extra: [true, false] },
  { name: 'isIndoor', passes: (r, v) => r.isIndoor === v, extra: [true, false] },
  { name: 'isWheelchairAccessible', passes: (r, v) => r.isWheelchairAccessible === v, extra: [true, false] },
  { name: 'isAccessibleForFree', passes: (r, v) => r.isAccessibleForFree === v, extra: [true, false] },
];

const ACTIVITY_ARGUMENTS: Argument<ActivityRecord>[] = [
  { name: 'typeId', passes: (r, v) => r.type?.id === v, valuesOf: (r) => [r.type?.id], extra: ['unknown'] },
  { name: 'locationId', passes: (r, v) => r.location?.id === v, valuesOf: (r) => [r.location?.id], extra: ['unknown'] },
  { name: 'supplierId', passes: (r, v) => r.supplier?.id === v, valuesOf: (r) => [r.supplier?.id], extra: ['unknown'] },
  { name: 'attributeValue', passes: (r, v) => r.attributeValues.includes(v as string), valuesOf: (r) => r.attributeValues, extra: ['unknown'] },
];

const TOUR_ARGUMENTS: Argument<TourRecord>[] = [
  { name: 'routeType', passes: (r, v) => r.routeType === v, valuesOf: (r) => [r.routeType], extra: ['canoe'] },
  { name: 'season', passes: (r, v) => r.season === v, valuesOf: (r) => [r.season], extra: [] },
  { name: 'difficulty', passes: (r, v) => r.difficulty === v, valuesOf: (r) => [r.difficulty], extra: [] },
];

const ROUTE_ARGUMENTS: Argument<RouteRecord>[] = [
  { name: 'type', passes: (r, v) => r.type === v, valuesOf: (r) => [r.type], extra: [] },
  { name: 'status', passes: (r, v) => r.status === v, valuesOf: (r) => [r.status], extra: ['NOINFO'] },
];

/** Every value of an argument: those the records have, then the extra ones. */
function valuesToTry<R>(records: readonly R[], argument: Argument<R>): (string | boolean)[] {
  const values = new Set<string | boolean>();
  for (const record of records) {
    for (const value of argument.valuesOf?.(record) ?? []) if (value !== null && value !== undefined) values.add(value);
  }
  for (const value of argument.extra) values.add(value);
  return [...values];
}

/**
 * Argument combinations: each value of each argument alone, then `count` combinations of two
 * to all arguments, drawn with a fixed seed so that a failure can be replayed.
 */
function combinations<R>(records: readonly R[], args: Argument<R>[], count: number): Record<string, string | boolean>[] {
  const values = args.map((argument) => valuesToTry(records, argument));
  const found: Record<string, string | boolean>[] = [];
  args.forEach((argument, a) => {
    for (const value of values[a]!) found.push({ [argument.name]: value });
  });
  let seed = 1;
  const random = (n: number) => {
    seed = (seed * 48271) % 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    const conditions: Record<string, string | boolean> = {};
    const wanted = 2 + random(args.length - 1);
    for (let a = 0; a < args.length && Object.keys(conditions).length < wanted; a++) {
      if (random(2) === 0 && a < args.length - (wanted - Object.keys(conditions).length)) continue;
      conditions[args[a]!.name] = values[a]![random(values[a]!.length)]!;
    }
    found.push(conditions);
  }
  return found;
}

/** What selectRecords answered before the filter index: each record tested in turn. */
function bruteForce<R>(
  area: AreaStore<R, string>,
  args: Argument<R>[],
  conditions: Record<string, string | boolean>,
  options: { q: string | null; near: NearMe | null; end: number },
) {
  const { records } = area;
  const tests = args.filter((argument) => argument.name in conditions).map((argument) => (r: R) => argument.passes(r, conditions[argument.name]!));
  const passes = (record: R) => tests.every((test) => test(record));
  const positions = options.q === null ? null : area.text.search(options.q)?.positions;
  const matched = positions ? Array.from(positions) : records.map((_, position) => position);
  const accepted = new Set(matched.filter((position) => passes(records[position]!)));
  if (options.near) {
    const { lng, lat, radiusKm } = options.near;
    const { total, hits } = area.geo.nearest(lng, lat, radiusKm, [positionSetOf(records.length, [...accepted])], options.end);
    return { items: hits.map((hit) => records[hit.position]), total, distancesKm: hits.map((hit) => hit.distanceKm) };
  }
  const items = matched.filter((position) => accepted.has(position)).map((position) => records[position]);
  return { items, total: items.length, distancesKm: null };
}

/** Checks the first `end` items (all that a page up to `end` reads), their order and the total. */
function expectSameSelection<R>(area: AreaStore<R, string>, args: Argument<R>[], conditions: Record<string, string | boolean>, options: { q: string | null; near: NearMe | null; end: number }) {
  const filter = area.filters.match(conditions as Record<string, FilterCondition>);
  const selection = selectRecords(area, { ...options, filter, box: null });
  const expected = bruteForce(area, args, conditions, options);
  const label = JSON.stringify({ conditions, ...options });
  expect(selection.total, label).toBe(expected.total);
  expect(selection.items.slice(0, options.end), label).toEqual(expected.items.slice(0, options.end));
  expect(selection.items.length, label).toBeGreaterThanOrEqual(Math.min(options.end, expected.total));
  expect(selection.near?.distancesKm.slice(0, options.end) ?? null, label).toEqual(expected.distancesKm?.slice(0, options.end) ?? null);
}

const INTERLAKEN: NearMe = { lng: 7.8632, lat: 46.6863, radiusKm: 40 };

describe('selectRecords with filter arguments', () => {
  const cases = [
    { area: 'attractions', args: ATTRACTION_ARGUMENTS, q: 'see' },
    { area: 'activities', args: ACTIVITY_ARGUMENTS, q: 'tour' },
    { area: 'tours', args: TOUR_ARGUMENTS, q: 'alp' },
    { area: 'routes', args: ROUTE_ARGUMENTS, q: null },
  ] as const;

  for (const { area: name, args, q } of cases) {
    it(`answers ${name} as testing each record would: items in order, total, in every locale`, () => {
      let nonEmpty = 0;
      for (const locale of LOCALES) {
        const area = store.locales[locale][name] as AreaStore<never, string>;
        for (const conditions of combinations(area.records, args as Argument<never>[], 150)) {
          for (const end of [0, 5, 60]) {
            expectSameSelection(area, args as Argument<never>[], conditions, { q: null, near: null, end });
          }
          if (bruteForce(area, args as Argument<never>[], conditions, { q: null, near: null, end: 0 }).total > 0) nonEmpty++;
        }
      }
      // Most combinations must find something, or the comparison would prove little.
      expect(nonEmpty).toBeGreaterThan(100);
    });

    if (q !== null) {
      it(`answers ${name} with a text query and with near-me as testing each record would`, () => {
        for (const locale of LOCALES) {
          const area = store.locales[locale][name] as AreaStore<never, string>;
          for (const conditions of combinations(area.records, args as Argument<never>[], 30)) {
            for (const end of [0, 7]) {
              expectSameSelection(area, args as Argument<never>[], conditions, { q, near: null, end });
              expectSameSelection(area, args as Argument<never>[], conditions, { q: null, near: INTERLAKEN, end });
              expectSameSelection(area, args as Argument<never>[], conditions, { q, near: INTERLAKEN, end });
            }
          }
        }
      });
    }
  }

  it('answers a list without filter arguments with every record in the default order', () => {
    const area = store.locales['de-CH'].tours;
    expect(area.filters.match({ routeType: null, season: undefined })).toBeNull();
    const selection = selectRecords(area, { q: null, near: null, filter: null, box: null, end: 5 });
    expect(selection.total).toBe(area.records.length);
    expect(selection.items.slice(0, 5)).toEqual(area.records.slice(0, 5));
  });
});
