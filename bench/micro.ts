/**
 * In-process figures of one dataset, through the server's own modules: cold start (snapshot
 * load and validation, then indexes), the memory the loaded store holds, search latency (one
 * area's text index, and `search` across areas), near-me latency, map-view (bbox) latency and a
 * filtered, sorted and faceted first page.
 * bench/run.ts runs it once per dataset, each in a fresh process:
 *
 *   node --expose-gc --import tsx bench/micro.ts --data bench/data/x10 [--iterations 1000]
 *
 * and reads the JSON it prints as its last line.
 */

import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadSnapshot } from '../server/snapshot/load.ts';
import { LOCALES } from '../server/snapshot/locales.ts';
import { resolvers } from '../server/resolvers/index.ts';
import { searchResolvers } from '../server/resolvers/search.ts';
import { selectRecords } from '../server/resolvers/select.ts';
import { resolveFacets } from '../server/resolvers/listQuery.ts';
import { tourResolvers } from '../server/resolvers/tours.ts';
import { createSchema, readSdl } from '../server/execution/schema.ts';
import { createStore } from '../server/snapshot/store.ts';
import { activityResolvers } from '../server/resolvers/activities.ts';
import { zurichDay } from '../server/util/zurichDay.ts';
import { positionCount } from '../sync/format.ts';
import { DEFAULT_SOURCE_TERMS } from '../server/config/sourceTerms.ts';
import { percentile, round } from './paired.ts';

/**
 * The searches measured, each with the page it ranks (offset + limit of its list query). On de-CH
 * tours (name and abstract), words found at every scale: "chillon" is in 0.35 % of the tours,
 * "grindelwald" in 5 %, "alpen" in 22 % and "wanderung" in 8 %, "unterwegs" and "aufstieg" each
 * in 87 %, as the tours-q-broad scenario asks. On en-CH attractions, "s" after one keystroke in a
 * search box, a prefix of thousands of words, as the attractions-prefix scenario asks.
 */
const SEARCHES = [
  { kind: 'selective word', query: 'chillon', locale: 'de-CH', area: 'tours', end: 20 },
  { kind: 'typo', query: 'grindelwlad', locale: 'de-CH', area: 'tours', end: 20 },
  { kind: 'prefix', query: 'grind', locale: 'de-CH', area: 'tours', end: 20 },
  { kind: 'two words', query: 'alpen wanderung', locale: 'de-CH', area: 'tours', end: 20 },
  { kind: 'two common words', query: 'unterwegs aufstieg', locale: 'de-CH', area: 'tours', end: 20 },
  { kind: 'one-letter prefix', query: 's', locale: 'en-CH', area: 'attractions', end: 10 },
] as const;

/**
 * The searches across areas measured (`search`, the whole resolver: every area's text index, the
 * ranking, the page of 10 with its snippets), in de-CH: one to three words as a search box sends
 * them per keystroke, found at every scale.
 */
const SEARCHES_ACROSS = [
  { kind: 'one word', query: 'zermatt' },
  { kind: 'three-letter prefix', query: 'gru' },
  { kind: 'typo', query: 'grindelwlad' },
  { kind: 'two words', query: 'grindelwald first' },
  { kind: 'three words', query: 'schlittelweg saas fee' },
] as const;

/**
 * The filtered, sorted first pages of activities measured (the whole `activities` resolver, in
 * de-CH): "under CHF 100 in the coming month, cheapest first", and the same soonest bookable
 * first, asked on the day the snapshot was made, so that the dates are the same every run.
 */
const ACTIVITY_PAGES = [
  { kind: 'maxPrice + availableFrom/To, PRICE_ASC', args: { maxPrice: 100, availableFrom: '+0', availableTo: '+30', sort: 'PRICE_ASC', limit: 20 } },
  { kind: 'maxPrice + availableFrom/To, NEXT_AVAILABLE_DATE_ASC', args: { maxPrice: 100, availableFrom: '+0', availableTo: '+30', sort: 'NEXT_AVAILABLE_DATE_ASC', limit: 20 } },
] as const;

/** Near-me from Interlaken, in lng, lat order; the first page of 20, as the tours scenario asks. */
const NEAR_ME = { lng: 7.8632, lat: 46.6863, radiusKm: 50, pageSize: 20 } as const;

/**
 * The map views measured on de-CH tours, each the first page of 20 and the total, as the bbox
 * scenario asks: the Lauterbrunnen valley and the whole country, with and without a text query
 * ("berg", in about one tour in ten).
 */
const MAP_VIEWS = [
  { view: 'valley', box: { minLng: 7.85, minLat: 46.5, maxLng: 8.0, maxLat: 46.65 }, q: null },
  { view: 'valley', box: { minLng: 7.85, minLat: 46.5, maxLng: 8.0, maxLat: 46.65 }, q: 'berg' },
  { view: 'country', box: { minLng: 5.9, minLat: 45.8, maxLng: 10.5, maxLat: 47.9 }, q: null },
  { view: 'country', box: { minLng: 5.9, minLat: 45.8, maxLng: 10.5, maxLat: 47.9 }, q: 'berg' },
] as const;

/**
 * The filtered, sorted and faceted first page of the tours-faceted scenario (bench/scenarios.ts
 * TOURS_FACETED), through the `tours` resolver and its `facets`: the page, its total and three facets.
 */
const FACETED_PAGE = {
  args: { routeType: 'hike', maxDuration: 240, sort: 'ASCENT_DESC', limit: 20, locale: 'de-CH' },
  facets: { fields: ['DIFFICULTY', 'IS_ROUNDTRIP', 'LANDSCAPE'], maxValues: 10 },
} as const;

export interface LatencyFigures {
  iterations: number;
  /** Records found (for near-me: the total within the radius). */
  matches: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
  /**
   * Process CPU time (user + system) over the timed calls, per call, in µs: steadier than the
   * wall-clock figures on a machine whose cores other work shares.
   */
  cpuMeanUs: number;
}

export interface MicroResult {
  dataDir: string;
  version: string;
  /** Records over every locale and area. */
  records: number;
  /** The area with the most records in one locale (de-CH). */
  largestArea: { name: string; records: number };
  coldStart: {
    /** SDL read and schema built (needed to validate records), in ms. */
    schemaMs: number;
    /** Files read, checksummed, gunzipped, parsed, validated and frozen, in ms. */
    loadMs: number;
    /** Sorting and indexes of every locale and area (createStore), in ms. */
    indexMs: number;
    /** loadMs + indexMs. */
    totalMs: number;
  };
  /** Growth after loading, measured after a full GC with the store alive, in MB (10^6 bytes). */
  memory: {
    heapUsedMB: number;
    /** Typed arrays of the indexes (KDBush, search scratch) live outside the JS heap. */
    arrayBuffersMB: number;
    /** heapUsedMB + arrayBuffersMB: what the target is checked against. */
    totalMB: number;
    /** Resident set size of the whole process after loading. */
    rssMB: number;
  };
  search: (LatencyFigures & { kind: string; query: string })[];
  /** `search` across areas, a page of 10 (SEARCHES_ACROSS). */
  searchAcross: (LatencyFigures & { kind: string; query: string })[];
  /**
   * The first `search` of a store in a locale, in ms: it makes the areas' search data (the
   * winter routes' text index, every record's signal), which the searches after it reuse.
   */
  searchAcrossFirstMs: number;
  nearMe: (LatencyFigures & { via: string })[];
  /** selectRecords with a bbox (MAP_VIEWS): the first page of 20 and the total. */
  bbox: (LatencyFigures & { view: string; q: string | null })[];
  /** The `tours` resolver with filters, a sort and facets (FACETED_PAGE): the first page of 20, the total and the counts. */
  facetedPage: LatencyFigures;
  /** The `activities` resolver: a filtered, sorted first page of 20 and the total (ACTIVITY_PAGES). */
  activityPages: (LatencyFigures & { kind: string })[];
  /**
   * One tour with its line and a profile of {@link PROFILE_SAMPLES} samples: the `tour`, `geometry`
   * and `elevationProfile` resolvers and the answer's JSON, for the de-CH tour with the longest line;
   * `matches` is that line's positions. Absent for a dataset without lines.
   */
  tourLine?: LatencyFigures;
}

/** The samples of the profile {@link MicroResult.tourLine} asks for: the field's default. */
const PROFILE_SAMPLES = 100;

// Results land here so the optimiser cannot drop the calls being timed.
let sink: unknown;

/**
 * Measures one dataset. Call it first thing in a fresh process started with --expose-gc, so
 * the cold start is cold and the memory growth is the store's.
 * @param iterations timed calls per latency figure (after max(200, iterations / 5) unmeasured ones)
 * @throws Error without --expose-gc, or as loadSnapshot when the snapshot is broken
 */
export async function measureMicro(dataDir: string, iterations: number): Promise<MicroResult> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run node with --expose-gc');
  gc();
  const before = process.memoryUsage();

  const t0 = performance.now();
  const schema = createSchema(readSdl(), resolvers);
  const t1 = performance.now();
  const snapshot = await loadSnapshot(dataDir, schema);
  const t2 = performance.now();
  const store = createStore(snapshot);
  const t3 = performance.now();

  gc();
  gc();
  const after = process.memoryUsage();
  const mb = (bytes: number) => round(bytes / 1e6, 1);

  let records = 0;
  for (const locale of LOCALES) for (const area of Object.values(store.locales[locale])) records += area.records.length;
  const [largestName, largest] = Object.entries(store.locales['de-CH']).sort(([, a], [, b]) => b.records.length - a.records.length)[0]!;

  const tours = store.locales['de-CH'].tours;
  const search = SEARCHES.map(({ kind, query, locale, area, end }) => {
    const { text } = store.locales[locale][area];
    const found = text.search(query, { end });
    return { kind, query, ...latency(() => text.search(query, { end }), iterations, found?.total ?? 0) };
  });

  // The day the snapshot was made, so that its dates ahead are the same whenever this runs.
  const today = zurichDay(Date.parse(store.snapshot.manifest.createdAt));
  const context = { store, today, terms: DEFAULT_SOURCE_TERMS };
  const searchAcross = searchResolvers.Query.search;
  const firstStart = performance.now();
  searchAcross(null, { q: SEARCHES_ACROSS[0].query, locale: 'de-CH' }, context);
  const searchAcrossFirstMs = round(performance.now() - firstStart, 1);
  const acrossAreas = SEARCHES_ACROSS.map(({ kind, query }) => {
    const args = { q: query, locale: 'de-CH', limit: 10 };
    const { total } = searchAcross(null, args, context);
    return { kind, query, ...latency(() => searchAcross(null, args, context), iterations, total) };
  });

  const { lng, lat, radiusKm, pageSize } = NEAR_ME;
  const near = { lng, lat, radiusKm };
  const total = tours.geo.nearest(lng, lat, radiusKm, null, 0).total;
  const isHike = tours.filters.match({ routeType: 'hike' });
  const hikes = selectRecords(tours, { q: null, near, filter: isHike, box: null, end: pageSize }).total;
  const nearMe = [
    { via: 'geo index: nearest() of the first page and the total', ...latency(() => tours.geo.nearest(lng, lat, radiusKm, null, pageSize), iterations, total) },
    { via: 'selectRecords: first page and total', ...latency(() => selectRecords(tours, { q: null, near, filter: null, box: null, end: pageSize }), iterations, total) },
    { via: 'selectRecords with a filter (hikes)', ...latency(() => selectRecords(tours, { q: null, near, filter: isHike, box: null, end: pageSize }), iterations, hikes) },
  ];

  const bbox = MAP_VIEWS.map(({ view, box, q }) => {
    const select = () => selectRecords(tours, { q, near: null, filter: null, box, end: pageSize });
    return { view, q, ...latency(select, iterations, select().total) };
  });

  const faceted = () => {
    const answer = tourResolvers.Query.tours(null, { ...FACETED_PAGE.args }, context);
    return [answer, resolveFacets(answer, { ...FACETED_PAGE.facets })];
  };
  const facetedPage = latency(faceted, iterations, tourResolvers.Query.tours(null, { ...FACETED_PAGE.args }, context).total);
  const listActivities = activityResolvers.Query.activities;
  const activityPages = ACTIVITY_PAGES.map(({ kind, args }) => {
    const dated = { ...args, locale: 'de-CH', availableFrom: addDays(today, Number(args.availableFrom)), availableTo: addDays(today, Number(args.availableTo)) } as const;
    const page = () => listActivities(null, dated, context);
    return { kind, ...latency(page, iterations, page().total) };
  });

  const tourLine = longestLine(store, (id) => {
    const args = { id, locale: 'de-CH' };
    const tour = tourResolvers.Query.tour(null, args, context)!;
    const geometry = tourResolvers.Tour.geometry(tour, {}, context);
    const elevationProfile = tourResolvers.Tour.elevationProfile(tour, { samples: PROFILE_SAMPLES }, context);
    return JSON.stringify({ data: { tour: { id: tour.id, name: tour.name, geometry, elevationProfile } } });
  }, iterations);

  return {
    dataDir,
    version: store.snapshot.version,
    records,
    largestArea: { name: largestName, records: largest.records.length },
    coldStart: { schemaMs: round(t1 - t0, 1), loadMs: round(t2 - t1, 1), indexMs: round(t3 - t2, 1), totalMs: round(t3 - t1, 1) },
    memory: {
      heapUsedMB: mb(after.heapUsed - before.heapUsed),
      arrayBuffersMB: mb(after.arrayBuffers - before.arrayBuffers),
      totalMB: mb(after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers),
      rssMB: mb(after.rss),
    },
    search,
    searchAcross: acrossAreas,
    searchAcrossFirstMs,
    nearMe,
    bbox,
    facetedPage,
    activityPages,
    ...(tourLine ? { tourLine } : {}),
  };
}

/** The latency of `answer` for the de-CH tour with the most positions in its line; undefined when no tour has one. */
function longestLine(store: ReturnType<typeof createStore>, answer: (id: string) => string, iterations: number): LatencyFigures | undefined {
  let longest: { id: string; positions: number } | undefined;
  for (const tour of store.locales['de-CH'].tours.records) {
    const geometry = store.tourGeometry(tour.id);
    if (geometry === null) continue;
    const positions = positionCount(geometry);
    if (longest === undefined || positions > longest.positions) longest = { id: tour.id, positions };
  }
  if (longest === undefined) return undefined;
  const { id, positions } = longest;
  return latency(() => answer(id), iterations, positions);
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * One result out of several runs on one dataset, each in a fresh process: every figure is the
 * median of its values in the runs. The machine has slow spells lasting seconds to minutes, as
 * long as one run of the 10x dataset; a figure measured in one of them would stand for the
 * spell rather than the code.
 */
export function medianOfRuns<T = MicroResult>(runs: readonly T[]): T {
  if (runs.length === 0) throw new Error('medianOfRuns: no runs');
  return medianOf(runs) as T;
}

// Numbers become their median; arrays and objects are combined entry by entry; anything else
// (names, queries) is the same in every run and taken from the first.
function medianOf(values: readonly unknown[]): unknown {
  const first = values[0];
  if (typeof first === 'number') return percentile((values as number[]).toSorted((a, b) => a - b), 0.5);
  if (Array.isArray(first)) return first.map((_, i) => medianOf(values.map((value) => (value as unknown[])[i])));
  if (typeof first === 'object' && first !== null) {
    return Object.fromEntries(Object.keys(first).map((key) => [key, medianOf(values.map((value) => (value as Record<string, unknown>)[key]))]));
  }
  return first;
}

function latency(call: () => unknown, iterations: number, matches: number): LatencyFigures {
  for (let i = 0; i < Math.max(200, iterations / 5); i++) sink = call();
  const times = new Float64Array(iterations);
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    sink = call();
    times[i] = performance.now() - start;
  }
  const cpu = process.cpuUsage(cpuStart);
  times.sort();
  return {
    iterations,
    matches,
    p50Ms: round(percentile(times, 0.5), 4),
    p95Ms: round(percentile(times, 0.95), 4),
    p99Ms: round(percentile(times, 0.99), 4),
    meanMs: round(times.reduce((a, b) => a + b, 0) / iterations, 4),
    cpuMeanUs: round((cpu.user + cpu.system) / iterations, 2),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { data: { type: 'string', default: 'data' }, iterations: { type: 'string', default: '1000' } } });
  const iterations = Number(values.iterations);
  if (!Number.isInteger(iterations) || iterations < 1) throw new Error(`--iterations must be an integer >= 1, got "${values.iterations}"`);
  const result = await measureMicro(values.data, iterations);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
