/**
 * The lists' sorts, new filters, ranges and facets, through real HTTP against the committed
 * fixture snapshot. Every expected answer is worked out here from the snapshot's files, record by
 * record (filters, counts) or by sorting them all (orders), independently of the server's indexes.
 */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttractionRecord, Locale, RouteRecord, StationRecord, TourRecord } from '../../../sync/format.ts';
import { readArea, startTestApi, type TestApi } from '../../helpers/api.ts';
import { haversineKm } from '../../helpers/haversine.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const LOCALE: Locale = 'de-CH';
const tours = readArea(LOCALE, 'tours');
const attractions = readArea(LOCALE, 'attractions');
const stations = readArea(LOCALE, 'stations');
const routes = readArea(LOCALE, 'routes');

async function data(query: string, variables?: Record<string, unknown>) {
  const result = await api.query(query, variables);
  expect(result.errors).toBeUndefined();
  return result.data!;
}

/** The first error of a refused request. */
async function refusal(query: string, variables?: Record<string, unknown>) {
  const result = await api.query(query, variables);
  expect(result.errors).toHaveLength(1);
  return result.errors![0]!;
}

const ids = (records: readonly { id: string | number }[]) => records.map((r) => String(r.id));
const compareIds = (a: { id: string | number }, b: { id: string | number }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const collator = new Intl.Collator(LOCALE, { sensitivity: 'base', numeric: true });

/**
 * The reference order of a sort: by the key (text by the locale's collation), records without a
 * value last in either direction, ties by id.
 */
function sortBy<R extends { id: string | number }>(records: readonly R[], key: (r: R) => number | string | null | undefined, descending: boolean): R[] {
  return [...records].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const xNone = x === null || x === undefined;
    const yNone = y === null || y === undefined;
    if (xNone || yNone) return xNone && yNone ? compareIds(a, b) : xNone ? 1 : -1;
    const byKey = typeof x === 'string' ? collator.compare(x, y as string) : (x as number) - (y as number);
    return (descending ? -byKey : byKey) || compareIds(a, b);
  });
}

/** Every id of a list in its order, read page by page. */
async function pageThrough(field: string, args: string, pageSize: number, selection = 'id'): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = (await data(`{ ${field}(${args} limit: ${pageSize}, offset: ${offset}) { total hasMore data { ${selection} } } }`))[field];
    out.push(...page.data.map((r: { id: string | number }) => String(r.id)));
    if (!page.hasMore) {
      expect(out).toHaveLength(page.total);
      return out;
    }
  }
}

/** What the docs say makes a station open (docs/api.md, Open stations). */
function isOpen(s: StationRecord): boolean | null {
  const counts = [
    s.ski?.openFacilities,
    s.ski?.slopesOpenLength,
    s.tobogganing?.tracksOpen,
    s.tobogganing?.tracksOpenLength,
    s.crosscountry?.classicPrepared,
    s.crosscountry?.skatingPrepared,
    s.hiking?.walkingTrailPrepared,
    s.snowboard?.snowparksOpen,
  ].filter((v): v is number => v !== null && v !== undefined);
  return counts.length === 0 ? null : counts.some((v) => v > 0);
}

const TOUR_SORTS: Record<string, [(t: TourRecord) => number | string | null, boolean]> = {
  NAME_ASC: [(t) => t.name, false],
  NAME_DESC: [(t) => t.name, true],
  DISTANCE_ASC: [(t) => t.distance, false],
  DISTANCE_DESC: [(t) => t.distance, true],
  DURATION_ASC: [(t) => t.duration, false],
  DURATION_DESC: [(t) => t.duration, true],
  ASCENT_ASC: [(t) => t.ascent, false],
  ASCENT_DESC: [(t) => t.ascent, true],
};

const share = (s: StationRecord) => (s.ski?.openFacilities == null || !s.info?.totalFacilities ? null : s.ski.openFacilities / s.info.totalFacilities);
const STATION_SORTS: Record<string, [(s: StationRecord) => number | string | null | undefined, boolean]> = {
  NAME_ASC: [(s) => s.name, false],
  NAME_DESC: [(s) => s.name, true],
  FRESH_SNOW_DESC: [(s) => s.snow?.freshSnow, true],
  FRESH_SNOW_ASC: [(s) => s.snow?.freshSnow, false],
  PISTE_DEPTH_DESC: [(s) => s.snow?.depthPiste, true],
  PISTE_DEPTH_ASC: [(s) => s.snow?.depthPiste, false],
  LIFTS_OPEN_SHARE_DESC: [share, true],
  LIFTS_OPEN_SHARE_ASC: [share, false],
  LAST_UPDATE_DESC: [(s) => (s.lastUpdate === null ? null : Date.parse(s.lastUpdate)), true],
  LAST_UPDATE_ASC: [(s) => (s.lastUpdate === null ? null : Date.parse(s.lastUpdate)), false],
};

describe('sort', () => {
  it.each(Object.entries(TOUR_SORTS))('pages through tours by %s in the reference order, never repeating or skipping one', async (sort, [key, descending]) => {
    const hikes = tours.filter((t) => t.routeType === 'hike');
    expect(await pageThrough('tours', `routeType: "hike", sort: ${sort},`, 97)).toEqual(ids(sortBy(hikes, key, descending)));
  });

  it.each(Object.entries(STATION_SORTS))('pages through stations by %s in the reference order, never repeating or skipping one', async (sort, [key, descending]) => {
    expect(await pageThrough('snowdataStations', `sort: ${sort},`, 37)).toEqual(ids(sortBy(stations, key, descending)));
  });

  it.each([
    ['NAME_ASC', false],
    ['NAME_DESC', true],
  ] as const)('pages through attractions by %s in the reference order', async (sort, descending) => {
    expect(await pageThrough('attractions', `sort: ${sort},`, 400)).toEqual(ids(sortBy(attractions, (a) => a.name, descending)));
  });

  it('orders the matches of q by the sort, not by how well they match', async () => {
    const all = await pageThrough('tours', 'q: "berg",', 500);
    const sorted = await pageThrough('tours', 'q: "berg", sort: ASCENT_DESC,', 500);
    const byId = new Map(tours.map((t) => [t.id, t]));
    expect(sorted).toEqual(ids(sortBy(all.map((id) => byId.get(id)!), (t) => t.ascent, true)));
  });

  it('pages through the stations near Zermatt by fresh snow, each with its distance', async () => {
    const [lng, lat] = [7.7491, 46.0207];
    const near = stations.filter((s) => s.latitude !== null && haversineKm(lng, lat, s.longitude!, s.latitude) <= 60);
    const expected = sortBy(near, (s) => s.snow?.freshSnow, true);
    const got = await pageThrough('snowdataStations', `nearLat: ${lat}, nearLng: ${lng}, radiusKm: 60, sort: FRESH_SNOW_DESC,`, 7, 'id distance_km');
    expect(got).toEqual(ids(expected));
    const first = (await data(`{ snowdataStations(nearLat: ${lat}, nearLng: ${lng}, radiusKm: 60, sort: FRESH_SNOW_DESC, limit: 1) { data { id distance_km } } }`)).snowdataStations.data[0];
    expect(first.distance_km).toBeCloseTo(haversineKm(lng, lat, expected[0]!.longitude!, expected[0]!.latitude!), 2);
  });

  it('orders stations nearest first with near-me, as DISTANCE_KM_ASC does', async () => {
    const [lng, lat] = [8.0414, 46.6242];
    const expected = stations
      .filter((s) => s.latitude !== null && haversineKm(lng, lat, s.longitude!, s.latitude) <= 50)
      .sort((a, b) => haversineKm(lng, lat, a.longitude!, a.latitude!) - haversineKm(lng, lat, b.longitude!, b.latitude!));
    const plain = await pageThrough('snowdataStations', `nearLat: ${lat}, nearLng: ${lng},`, 50);
    expect(plain).toEqual(ids(expected));
    expect(await pageThrough('snowdataStations', `nearLat: ${lat}, nearLng: ${lng}, sort: DISTANCE_KM_ASC,`, 50)).toEqual(plain);
  });

  it('keeps the default order when no sort is given', async () => {
    expect(await pageThrough('tours', 'routeType: "bicycle",', 500)).toEqual(ids(sortBy(tours.filter((t) => t.routeType === 'bicycle'), (t) => t.name, false)));
  });
});

describe('filters', () => {
  it('filters tours by ranges, isRoundtrip, isBarrierFree and landscape as the records say', async () => {
    const expected = tours.filter(
      (t) => t.distance !== null && t.distance >= 5 && t.distance <= 12.5 && t.duration !== null && t.duration <= 240 && t.ascent !== null && t.ascent >= 100 && t.isRoundtrip && t.landscapes.includes('alongwater'),
    );
    expect(expected.length).toBeGreaterThan(0);
    const got = await pageThrough('tours', 'minDistance: 5, maxDistance: 12.5, maxDuration: 240, minAscent: 100, isRoundtrip: true, landscape: "alongwater",', 500);
    expect(got).toEqual(ids(sortBy(expected, (t) => t.name, false)));
    const barrierFree = tours.filter((t) => t.isBarrierFree === false && t.season === 'winter');
    expect((await data('{ tours(isBarrierFree: false, season: "winter", limit: 0) { total } }')).tours.total).toBe(barrierFree.length);
  });

  it('keeps a range bound equal to a value, and leaves records without the value out', async () => {
    const some = tours.find((t) => t.duration !== null)!;
    const expected = tours.filter((t) => t.duration === some.duration);
    expect((await data(`{ tours(minDuration: ${some.duration}, maxDuration: ${some.duration}, limit: 0) { total } }`)).tours.total).toBe(expected.length);
    const withAscent = tours.filter((t) => t.ascent !== null && t.ascent >= 0);
    expect((await data('{ tours(minAscent: 0, limit: 0) { total } }')).tours.total).toBe(withAscent.length);
  });

  it.each([
    ['suitableFor', 'family', (a: AttractionRecord) => a.suitableFor.includes('family')],
    ['natureType', 'waterfall', (a: AttractionRecord) => a.natureTypes.includes('waterfall')],
    ['locality', 'Luzern', (a: AttractionRecord) => a.locality === 'Luzern'],
    ['touristType', attractions.flatMap((a) => a.touristType)[0]!, (a: AttractionRecord) => a.touristType.includes(attractions.flatMap((x) => x.touristType)[0]!)],
  ] as const)('filters attractions by %s', async (argument, value, test) => {
    const expected = attractions.filter(test);
    expect(expected.length).toBeGreaterThan(0);
    expect(await pageThrough('attractions', `${argument}: ${JSON.stringify(value)},`, 500)).toEqual(ids(sortBy(expected, (a) => a.name, false)));
  });

  it('filters stations by isOpen as their data says, leaving out those that say nothing', async () => {
    for (const open of [true, false]) {
      const expected = stations.filter((s) => isOpen(s) === open);
      expect(await pageThrough('snowdataStations', `isOpen: ${open},`, 500)).toEqual(ids(sortBy(expected, (s) => s.name, false)));
    }
    const all = (await data('{ snowdataStations(limit: 500) { data { id isOpen } } }')).snowdataStations.data;
    const byId = new Map(stations.map((s) => [s.id, s]));
    for (const station of all) expect(station.isOpen).toBe(isOpen(byId.get(station.id)!));
  });

  it('finds the winter routes of one station, each named and with its station', async () => {
    const counts = new Map<number, number>();
    for (const r of routes) counts.set(r.stationId, (counts.get(r.stationId) ?? 0) + 1);
    const [stationId] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const station = stations.find((s) => s.id === stationId)!;
    const got = (await data(`{ snowdataRoutes(stationId: ${stationId}, limit: 500) { total data { id name stationId stationName } } }`)).snowdataRoutes;
    expect(got.total).toBe(counts.get(stationId));
    for (const route of got.data) {
      expect(route).toMatchObject({ stationId, stationName: station.name });
      expect(route.name.length).toBeGreaterThan(0);
    }
  });

  it('names each route as search titles it', async () => {
    const listed = (await data('{ snowdataRoutes(type: "sledging", limit: 20) { data { id name } } }')).snowdataRoutes.data as { id: string; name: string }[];
    for (const route of listed.slice(0, 5)) {
      const hits = (await data(`{ search(q: ${JSON.stringify(route.name)}, areas: ["snowdataRoutes"], limit: 50) { data { id title } } }`)).search.data;
      expect(hits.find((hit: { id: string }) => hit.id === route.id)?.title).toBe(route.name);
    }
  });

  it('keeps the station of routes joined with a tour, whose number is the tour\'s', () => {
    const joined = routes.filter((r: RouteRecord) => !r.number.startsWith(`${r.stationId}-`));
    expect(joined.length).toBeGreaterThan(0);
    const stationIds = new Set(stations.map((s) => s.id));
    for (const route of routes) expect(stationIds.has(route.stationId)).toBe(true);
  });

  it('finds routes by name with q, and near-me orders them by distance', async () => {
    const named = (await data('{ snowdataRoutes(q: "schlittelweg", limit: 500) { total data { name type } } }')).snowdataRoutes;
    expect(named.total).toBeGreaterThan(0);
    for (const route of named.data) expect(route.type).toBe('sledging');
    const near = (await data('{ snowdataRoutes(nearLat: 46.6242, nearLng: 8.0414, radiusKm: 30, limit: 500) { data { distance_km } } }')).snowdataRoutes.data;
    expect(near.length).toBeGreaterThan(0);
    const distances = near.map((r: { distance_km: number }) => r.distance_km);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(Math.max(...distances)).toBeLessThanOrEqual(30);
  });
});

describe('facets', () => {
  /** Counts of a facet by brute force: the records passing `others`, per value of `values`. */
  function countBy<R>(records: readonly R[], others: (r: R) => boolean, values: (r: R) => readonly (string | boolean)[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of records) {
      if (!others(r)) continue;
      for (const v of new Set(values(r))) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    }
    return counts;
  }

  const asMap = (values: { value: string; count: number }[]) => new Map(values.filter((v) => v.count > 0).map((v) => [v.value, v.count]));

  it('counts each tour facet over the other filters but not its own', async () => {
    const answer = (await data(`{ tours(routeType: "hike", difficulty: "easy", isRoundtrip: true, maxDuration: 300, limit: 0) {
      total facets(fields: [ROUTE_TYPE, DIFFICULTY, IS_ROUNDTRIP, LANDSCAPE, SEASON], maxValues: 500) { field values { value count } } } }`)).tours;
    const passes = (t: TourRecord, skip: string) =>
      (skip === 'routeType' || t.routeType === 'hike') && (skip === 'difficulty' || t.difficulty === 'easy') && (skip === 'isRoundtrip' || t.isRoundtrip) && t.duration !== null && t.duration <= 300;
    const facets = new Map<string, any>(answer.facets.map((f: { field: string; values: [] }) => [f.field, f.values]));
    expect([...facets.keys()]).toEqual(['routeType', 'difficulty', 'isRoundtrip', 'landscape', 'season']);
    expect(asMap(facets.get('routeType'))).toEqual(countBy(tours, (t) => passes(t, 'routeType'), (t) => (t.routeType ? [t.routeType] : [])));
    expect(asMap(facets.get('difficulty'))).toEqual(countBy(tours, (t) => passes(t, 'difficulty'), (t) => (t.difficulty ? [t.difficulty] : [])));
    expect(asMap(facets.get('isRoundtrip'))).toEqual(countBy(tours, (t) => passes(t, 'isRoundtrip'), (t) => [t.isRoundtrip]));
    expect(asMap(facets.get('landscape'))).toEqual(countBy(tours, (t) => passes(t, ''), (t) => t.landscapes));
    // A closed vocabulary answers each value in its order, 0 included.
    expect(facets.get('routeType').map((v: { value: string }) => v.value)).toEqual(['hike', 'mountainbike', 'bicycle', 'snowshoe', 'winterhiking', 'crosscountryskiing', 'sledging', 'skating', 'canoe']);
    expect(facets.get('difficulty').find((v: { value: string }) => v.value === 'easy').count).toBe(answer.total);
  });

  it('counts attraction facets over q and near-me too, open vocabularies most first', async () => {
    const [lng, lat] = [8.3093, 47.0502];
    const answer = (await data(`{ attractions(isIndoor: true, nearLat: ${lat}, nearLng: ${lng}, radiusKm: 40, limit: 0) {
      total facets(fields: [SUITABLE_FOR, LOCALITY, IS_INDOOR, SPORT_TYPE], maxValues: 500) { field values { value count } } } }`)).attractions;
    const near = (a: AttractionRecord) => a.latitude !== null && a.longitude !== null && haversineKm(lng, lat, a.longitude, a.latitude) <= 40;
    const facets = new Map<string, any>(answer.facets.map((f: { field: string; values: [] }) => [f.field, f.values]));
    expect(asMap(facets.get('suitableFor'))).toEqual(countBy(attractions, (a) => near(a) && a.isIndoor, (a) => a.suitableFor));
    expect(asMap(facets.get('locality'))).toEqual(countBy(attractions, (a) => near(a) && a.isIndoor, (a) => (a.locality ? [a.locality] : [])));
    expect(asMap(facets.get('isIndoor'))).toEqual(countBy(attractions, near, (a) => [a.isIndoor]));
    const counts = facets.get('locality').map((v: { count: number }) => v.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const text = (await data('{ attractions(q: "see", limit: 500) { total data { id } facets(fields: [SEASON]) { values { value count } } } }')).attractions;
    const matched = new Set(text.data.map((a: { id: string }) => a.id));
    expect(asMap(text.facets[0].values)).toEqual(countBy(attractions, (a) => matched.has(a.id), (a) => a.seasons));
  });

  it('cuts an open vocabulary at maxValues', async () => {
    const facets = (await data('{ attractions(limit: 0) { facets(fields: [LOCALITY], maxValues: 3) { values { value count } } } }')).attractions.facets;
    expect(facets[0].values).toHaveLength(3);
  });

  it('counts stations open and closed, routes by status and station, activities by type', async () => {
    const s = (await data('{ snowdataStations(limit: 0) { facets(fields: [IS_OPEN]) { field values { value count } } } }')).snowdataStations.facets;
    expect(s).toEqual([{ field: 'isOpen', values: [{ value: 'true', count: stations.filter((x) => isOpen(x) === true).length }, { value: 'false', count: stations.filter((x) => isOpen(x) === false).length }] }]);
    const r = (await data('{ snowdataRoutes(type: "sledging", status: "OPEN", limit: 0) { facets(fields: [STATUS, TYPE, STATION_ID], maxValues: 500) { field values { value count } } } }')).snowdataRoutes.facets;
    expect(asMap(r[0].values)).toEqual(countBy(routes, (x) => x.type === 'sledging', (x) => (x.status ? [x.status] : [])));
    expect(asMap(r[1].values)).toEqual(countBy(routes, (x) => x.status === 'OPEN', (x) => [x.type]));
    expect(asMap(r[2].values)).toEqual(countBy(routes, (x) => x.status === 'OPEN' && x.type === 'sledging', (x) => [String(x.stationId)]));
    const activities = readArea(LOCALE, 'activities');
    const a = (await data('{ activities(attributeValue: "family", limit: 0) { facets(fields: [TYPE_ID, ATTRIBUTE_VALUE], maxValues: 500) { field values { value count } } } }')).activities.facets;
    expect(asMap(a[0].values)).toEqual(countBy(activities, (x) => (x.attributeValues ?? []).includes('family'), (x) => (x.type ? [x.type.id] : [])));
    expect(asMap(a[1].values)).toEqual(countBy(activities, () => true, (x) => x.attributeValues ?? []));
  });

  it('answers facets the same from a document with variables', async () => {
    const query = 'query($f: [ToursFacetField!]!, $n: Int) { tours(season: "winter", limit: 0) { facets(fields: $f, maxValues: $n) { field values { value count } } } }';
    const withVariables = await data(query, { f: ['DIFFICULTY'], n: 5 });
    const literal = await data('{ tours(season: "winter", limit: 0) { facets(fields: [DIFFICULTY], maxValues: 5) { field values { value count } } } }');
    expect(withVariables).toEqual(literal);
  });
});

describe('refusals', () => {
  it('refuses a minimum above its maximum, naming both', async () => {
    const error = await refusal('{ tours(minDistance: 10, maxDistance: 5) { total } }');
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('minDistance: 10 is greater than maxDistance: 5; allowed: minDistance <= maxDistance');
  });

  it('refuses the distance order without near-me, naming the others', async () => {
    const error = await refusal('{ attractions(sort: DISTANCE_KM_ASC) { total } }');
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('sort: DISTANCE_KM_ASC needs nearLat and nearLng; allowed without them: NAME_ASC, NAME_DESC');
  });

  it('names the allowed values of an unknown sort, in a literal and in a variable', async () => {
    const literal = await refusal('{ snowdataStations(sort: SNOW) { total } }');
    expect(literal.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(literal.message).toContain('Allowed: NAME_ASC, NAME_DESC, FRESH_SNOW_DESC, FRESH_SNOW_ASC,');
    const variable = await refusal('query($s: ToursSort) { tours(sort: $s) { total } }', { s: 'LONGEST' });
    expect(variable.extensions?.code).toBe('BAD_USER_INPUT');
    expect(variable.message).toContain('Allowed: NAME_ASC, NAME_DESC, DISTANCE_ASC,');
  });

  it('refuses maxValues out of range', async () => {
    const result = await api.query('{ tours(limit: 0) { total facets(fields: [LANDSCAPE], maxValues: 0) { field } } }');
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toBe('maxValues: 0 is out of range; allowed: 1 to 500');
  });

  it('accepts radiusKm without nearLat/nearLng, which then has no effect', async () => {
    const plain = await data('{ snowdataStations(limit: 500) { total data { id distance_km } } }');
    expect(await data('{ snowdataStations(radiusKm: 5, limit: 500) { total data { id distance_km } } }')).toEqual(plain);
  });

  it('bounds a document asking every facet of every list, as any heavy query', async () => {
    const lists = ['tours', 'attractions', 'snowdataStations', 'snowdataRoutes', 'activities'];
    const fields: Record<string, string> = {
      tours: 'ROUTE_TYPE SEASON DIFFICULTY IS_ROUNDTRIP IS_BARRIER_FREE LANDSCAPE',
      attractions: 'SEASON NEEDED_TIME CHILDREN_AGE SPORT_TYPE EXPERIENCE_TYPE SUITABLE_FOR LOCALITY NATURE_TYPE TOURIST_TYPE IS_OUTDOOR IS_INDOOR IS_WHEELCHAIR_ACCESSIBLE IS_ACCESSIBLE_FOR_FREE',
      snowdataStations: 'IS_OPEN',
      snowdataRoutes: 'TYPE STATUS STATION_ID',
      activities: 'TYPE_ID LOCATION_ID SUPPLIER_ID ATTRIBUTE_VALUE',
    };
    const parts = lists.flatMap((list) => Array.from({ length: 3 }, (_, i) => `${list}${i}: ${list}(limit: 0) { facets(fields: [${fields[list]}], maxValues: 500) { field values { value count } } }`));
    const error = await refusal(`{ ${parts.join(' ')} }`);
    expect(error.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(error.message).toMatch(/^Query cost is /);
    // Every facet of every list once, with the default maxValues, is an ordinary request.
    const once = lists.map((list) => `${list}(limit: 0) { facets(fields: [${fields[list]}]) { field values { value count } } }`);
    const answer = await data(`{ ${once.join(' ')} }`);
    expect(answer.attractions.facets).toHaveLength(13);
  });
});

describe('docs/api.md, Questions a front end asks', () => {
  const text = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Questions a front end asks'), text.indexOf('\n## ', text.indexOf('## Questions a front end asks') + 1));
  const queries = [...section.matchAll(/```graphql\n\s*(.+)\n\s*```/g)].map((m) => m[1]!);

  it('holds the four questions and at least eight more', () => {
    expect(queries.length).toBeGreaterThanOrEqual(12);
  });

  it.each(queries)('answers %s with data and no error', async (query) => {
    const answer = await data(query);
    const [list] = Object.values(answer) as { total?: number; data?: unknown[]; facets?: unknown[] }[];
    expect((list!.total ?? list!.data?.length ?? 0) > 0).toBe(true);
  });
});
