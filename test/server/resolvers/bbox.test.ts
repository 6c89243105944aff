/**
 * `bbox` on the lists with coordinates, through real HTTP against the committed fixture snapshot.
 * Expected answers come from the snapshot files, each record's point tested against the box.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRecord, AreaName, Locale, RouteRecord } from '../../../sync/format.ts';
import { readArea, startTestApi, type TestApi } from '../../helpers/api.ts';
import { haversineKm } from '../../helpers/haversine.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Box = [west: number, south: number, east: number, north: number];

/** The Lauterbrunnen valley: a few records of every list. */
const VALLEY: Box = [7.85, 46.5, 8.0, 46.65];
/** Switzerland and its borders. */
const COUNTRY: Box = [5.9, 45.8, 10.5, 47.9];

/** A list query with coordinates, and how its records are read from the snapshot. */
interface List {
  field: string;
  area: AreaName;
  /** The largest limit the list accepts. */
  maxLimit: number;
  point: (record: any) => [lng: number, lat: number] | null;
  /** A text query with matches inside the valley's box and outside it; absent for a list without `q`. */
  q?: string;
}

const numeric = (lng: number | string | null, lat: number | string | null): [number, number] | null =>
  lng === null || lat === null ? null : [Number(lng), Number(lat)];

const LISTS: List[] = [
  { field: 'activities', area: 'activities', maxLimit: 100, point: (a) => numeric(a.lng, a.lat), q: 'helikopter' },
  { field: 'snowdataStations', area: 'stations', maxLimit: 500, point: (s) => numeric(s.longitude, s.latitude), q: 'w' },
  { field: 'tours', area: 'tours', maxLimit: 500, point: (t) => numeric(t.longitude, t.latitude), q: 'berg' },
  { field: 'attractions', area: 'attractions', maxLimit: 500, point: (a) => numeric(a.longitude, a.latitude), q: 'wasserfall' },
];

function inBox(point: [number, number] | null, [west, south, east, north]: Box): boolean {
  return point !== null && point[0] >= west && point[0] <= east && point[1] >= south && point[1] <= north;
}

/** The ids of a list's records in a box, testing every record of the snapshot. */
function idsInBox(list: List, box: Box, locale: Locale = 'de-CH'): string[] {
  return readArea(locale, list.area)
    .filter((record) => inBox(list.point(record), box))
    .map((record) => String(record.id));
}

async function data(query: string, variables?: Record<string, unknown>) {
  const result = await api.query(query, variables);
  expect(result.errors).toBeUndefined();
  return result.data!;
}

/** Every id of a list query, page after page. */
async function allIds(list: List, args: string, variables: Record<string, unknown>): Promise<{ total: number; ids: string[] }> {
  const ids: string[] = [];
  let total = 0;
  const types: Record<string, string> = { bbox: '[Float!]', q: 'String' };
  const definitions = Object.keys(variables).map((name) => `$${name}: ${types[name]}`);
  const operation = definitions.length === 0 ? 'query' : `query(${definitions.join(', ')})`;
  for (let offset = 0; offset === 0 || offset < total; offset += list.maxLimit) {
    const answer = await data(`${operation} { ${list.field}(${args}, limit: ${list.maxLimit}, offset: ${offset}) { total data { id } } }`, variables);
    total = answer[list.field].total;
    ids.push(...answer[list.field].data.map((item: { id: string | number }) => String(item.id)));
  }
  return { total, ids };
}

const sorted = (ids: string[]) => [...ids].sort();

describe.each(LISTS)('$field(bbox)', (list) => {
  it('answers the records in a valley, as testing every record does', async () => {
    const expected = idsInBox(list, VALLEY);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(readArea('de-CH', list.area).length / 10);
    const { total, ids } = await allIds(list, 'bbox: $bbox', { bbox: VALLEY });
    expect(total).toBe(expected.length);
    expect(sorted(ids)).toEqual(sorted(expected));
  });

  it('answers every record with coordinates for a box around the country', async () => {
    const records = readArea('de-CH', list.area);
    const located = records.filter((record) => list.point(record) !== null).length;
    expect(idsInBox(list, COUNTRY)).toHaveLength(located);
    const answer = await data(`query($bbox: [Float!]) { ${list.field}(bbox: $bbox, limit: 0) { total } }`, { bbox: COUNTRY });
    expect(answer[list.field].total).toBe(located);
  });

  it('keeps the order of the list without a box', async () => {
    const unboxed = await allIds(list, 'locale: "de-CH"', {});
    const expected = new Set(idsInBox(list, VALLEY));
    const { ids } = await allIds(list, 'bbox: $bbox', { bbox: VALLEY });
    expect(ids).toEqual(unboxed.ids.filter((id) => expected.has(id)));
  });

  it('narrows a text search to the box, in the order of the search', async () => {
    const { q } = list;
    const everywhere = await allIds(list, 'q: $q', { q });
    const expected = new Set(idsInBox(list, VALLEY));
    const inside = everywhere.ids.filter((id) => expected.has(id));
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.length).toBeLessThan(everywhere.total);
    const { total, ids } = await allIds(list, 'q: $q, bbox: $bbox', { q, bbox: VALLEY });
    expect(total).toBe(inside.length);
    expect(ids).toEqual(inside);
  });
});

/** Records within radiusKm of a point and in a box, nearest first, by brute force. */
function nearestInBox(list: List, lng: number, lat: number, radiusKm: number, box: Box, keep: (record: any) => boolean = () => true) {
  return readArea('de-CH', list.area)
    .filter(keep)
    .flatMap((record) => {
      const point = list.point(record);
      if (point === null || !inBox(point, box)) return [];
      const km = haversineKm(lng, lat, point[0], point[1]);
      return km <= radiusKm ? [{ id: String(record.id), km }] : [];
    })
    .sort((a, b) => a.km - b.km);
}

describe.each(LISTS.filter((list) => list.field !== 'snowdataStations'))('$field(bbox) with near-me', (list) => {
  const distanceField = list.field === 'activities' ? 'distance' : 'distance_km';

  it('answers the records within the radius and in the box, nearest first, as a brute-force sort does', async () => {
    // Interlaken, 15 km: the radius reaches beyond the valley's box on every side but the south.
    const expected = nearestInBox(list, 7.8632, 46.6863, 15, VALLEY);
    expect(expected.length).toBeGreaterThan(0);
    expect(nearestInBox(list, 7.8632, 46.6863, 15, COUNTRY).length).toBeGreaterThan(expected.length);
    const answer = await data(
      `query($bbox: [Float!]) { ${list.field}(nearLat: 46.6863, nearLng: 7.8632, radiusKm: 15, bbox: $bbox, limit: ${list.maxLimit}) { total data { id ${distanceField} } } }`,
      { bbox: VALLEY },
    );
    const { total, data: items } = answer[list.field];
    expect(total).toBe(expected.length);
    expect(items.map((item: { id: string }) => item.id)).toEqual(expected.map((hit) => hit.id));
    items.forEach((item: Record<string, number>, i: number) => expect(item[distanceField]).toBeCloseTo(expected[i]!.km, 3));
  });
});

describe('bbox with the other filters', () => {
  it('narrows tours to hikes in the box, near a point', async () => {
    const tours = LISTS.find((list) => list.field === 'tours')!;
    const expected = nearestInBox(tours, 7.9, 46.6, 30, VALLEY, (t) => t.routeType === 'hike');
    expect(expected.length).toBeGreaterThan(0);
    const answer = await data(
      `query($bbox: [Float!]) { tours(routeType: "hike", nearLat: 46.6, nearLng: 7.9, radiusKm: 30, bbox: $bbox, limit: 500) { total data { id } } }`,
      { bbox: VALLEY },
    );
    expect(answer.tours.total).toBe(expected.length);
    expect(answer.tours.data.map((t: { id: string }) => t.id)).toEqual(expected.map((hit) => hit.id));
  });

  it('narrows activities of one type to the box, in ranking order', async () => {
    const activities = readArea('de-CH', 'activities');
    const list = LISTS[0]!;
    const typeId = activities.find((a) => inBox(list.point(a), VALLEY) && a.type)!.type!.id;
    const byRanking = (a: ActivityRecord, b: ActivityRecord) =>
      b.summary.rankingScoreValue - a.summary.rankingScoreValue || b.summary.popularity - a.summary.popularity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const expected = activities.filter((a) => a.type?.id === typeId && inBox(list.point(a), VALLEY)).sort(byRanking);
    const answer = await data(`query($bbox: [Float!], $typeId: String) { activities(typeId: $typeId, bbox: $bbox, limit: 100) { total data { id } } }`, {
      bbox: VALLEY,
      typeId,
    });
    expect(answer.activities.total).toBe(expected.length);
    expect(answer.activities.data.map((a: { id: string }) => a.id)).toEqual(expected.map((a) => a.id));
  });

  it('answers no record for a box where there is none', async () => {
    const answer = await data('{ attractions(bbox: [-74.1, 40.6, -73.8, 40.9]) { total hasMore data { id } } }');
    expect(answer.attractions).toEqual({ total: 0, hasMore: false, data: [] });
  });
});

/**
 * Where a winter route lies, from the snapshot's files: the joined tour's start (same id), else
 * its station's point (the station id leads the route's number); null when neither has one.
 */
function routePoint(locale: Locale = 'de-CH'): (route: RouteRecord) => [lng: number, lat: number] | null {
  const tours = new Map(readArea(locale, 'tours').map((tour) => [tour.id, tour]));
  const stations = new Map(readArea(locale, 'stations').map((station) => [station.id, station]));
  return (route) => {
    const tour = tours.get(route.id);
    if (tour) return numeric(tour.longitude, tour.latitude);
    const station = stations.get(Number(route.number.split('-')[0]));
    return station ? numeric(station.longitude, station.latitude) : null;
  };
}

describe('snowdataRoutes(bbox)', () => {
  const routes: List = { field: 'snowdataRoutes', area: 'routes', maxLimit: 500, point: routePoint() };

  it('answers the routes placed in a valley, as placing every route from the tours and stations files does', async () => {
    const expected = idsInBox(routes, VALLEY);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(readArea('de-CH', 'routes').length / 10);
    const { total, ids } = await allIds(routes, 'bbox: $bbox', { bbox: VALLEY });
    expect(total).toBe(expected.length);
    expect(sorted(ids)).toEqual(sorted(expected));
  });

  it('answers every route with a point for a box around the country, and no route without one', async () => {
    const records = readArea('de-CH', 'routes');
    const located = records.filter((record) => routes.point(record) !== null).length;
    expect(located).toBeLessThan(records.length);
    expect(idsInBox(routes, COUNTRY)).toHaveLength(located);
    const answer = await data('query($bbox: [Float!]) { snowdataRoutes(bbox: $bbox, limit: 0) { total } }', { bbox: COUNTRY });
    expect(answer.snowdataRoutes.total).toBe(located);
  });

  it('keeps the order of the list without a box', async () => {
    const unboxed = await allIds(routes, 'locale: "de-CH"', {});
    const expected = new Set(idsInBox(routes, VALLEY));
    const { ids } = await allIds(routes, 'bbox: $bbox', { bbox: VALLEY });
    expect(ids).toEqual(unboxed.ids.filter((id) => expected.has(id)));
  });

  it('combines with type and status', async () => {
    const inValley = readArea('de-CH', 'routes').filter((route) => inBox(routes.point(route), VALLEY));
    const { type, status } = inValley.find((route) => route.status !== null)!;
    const expected = inValley.filter((route) => route.type === type && route.status === status).map((route) => route.id);
    expect(expected.length).toBeLessThan(inValley.length);
    const answer = await data(
      'query($bbox: [Float!], $type: String, $status: String) { snowdataRoutes(type: $type, status: $status, bbox: $bbox, limit: 500) { total data { id type status } } }',
      { bbox: VALLEY, type, status },
    );
    expect(answer.snowdataRoutes.total).toBe(expected.length);
    expect(sorted(answer.snowdataRoutes.data.map((route: { id: string }) => route.id))).toEqual(sorted(expected));
    for (const route of answer.snowdataRoutes.data) expect(route).toMatchObject({ type, status });
  });

  it.each(['de-CH', 'fr-CH'] as const)("gives each route in %s its point: the joined tour's start, else its station's, else null", async (locale) => {
    const point = routePoint(locale);
    const tourIds = new Set(readArea(locale, 'tours').map((tour) => tour.id));
    const records = readArea(locale, 'routes');
    // Routes of every kind of placing.
    expect(records.some((route) => tourIds.has(route.id))).toBe(true);
    expect(records.some((route) => !tourIds.has(route.id) && point(route) !== null)).toBe(true);
    expect(records.some((route) => point(route) === null)).toBe(true);
    const expected = Object.fromEntries(records.map((route) => [route.id, point(route)]));
    const answer = await data(`{ snowdataRoutes(locale: "${locale}", limit: 500) { total } }`);
    const served: Record<string, [number, number] | null> = {};
    for (let offset = 0; offset < answer.snowdataRoutes.total; offset += 500) {
      const page = await data(`{ snowdataRoutes(locale: "${locale}", limit: 500, offset: ${offset}) { data { id latitude longitude } } }`);
      for (const route of page.snowdataRoutes.data) served[route.id] = route.latitude === null ? null : [route.longitude, route.latitude];
    }
    expect(served).toEqual(expected);
  });
});

describe('a malformed bbox', () => {
  const RULE = 'allowed: [west, south, east, north] in degrees, west < east, south < north, longitudes -180 to 180, latitudes -90 to 90';

  it.each([
    ['activities', '[7.8, 46.5, 8.0]', 'bbox: got 3 numbers, expected exactly 4'],
    ['snowdataStations', '[7.8, 46.5, 8.0, 46.6, 9]', 'bbox: got 5 numbers, expected exactly 4'],
    ['tours', '7.8', 'bbox: got 1 number, expected exactly 4'],
    ['attractions', '[]', 'bbox: got 0 numbers, expected exactly 4'],
    ['activities', '[8.0, 46.5, 7.8, 46.6]', 'bbox: west 8 is not less than east 7.8 (a box across the antimeridian is not supported)'],
    ['tours', '[170, -20, -170, -10]', 'bbox: west 170 is not less than east -170 (a box across the antimeridian is not supported)'],
    ['attractions', '[7.8, 46.5, 7.8, 46.6]', 'bbox: west 7.8 is not less than east 7.8 (a box across the antimeridian is not supported)'],
    ['snowdataStations', '[7.8, 46.6, 8.0, 46.5]', 'bbox: south 46.6 is not less than north 46.5'],
    ['tours', '[-181, 46.5, 8.0, 46.6]', 'bbox: west -181 is not a longitude'],
    ['attractions', '[7.8, 46.5, 180.5, 46.6]', 'bbox: east 180.5 is not a longitude'],
    ['activities', '[7.8, -90.5, 8.0, 46.6]', 'bbox: south -90.5 is not a latitude'],
    ['snowdataStations', '[7.8, 46.5, 8.0, 91]', 'bbox: north 91 is not a latitude'],
    ['snowdataRoutes', '[7.8, 46.5, 8.0]', 'bbox: got 3 numbers, expected exactly 4'],
    ['snowdataRoutes', '[7.8, 46.6, 8.0, 46.5]', 'bbox: south 46.6 is not less than north 46.5'],
  ])('%s(bbox: %s) is refused: %s', async (field, bbox, reason) => {
    const result = await api.query(`{ ${field}(bbox: ${bbox}) { total } }`);
    expect(result).toEqual({ errors: [expect.objectContaining({ message: `${reason}; ${RULE}`, extensions: { code: 'BAD_USER_INPUT' } })] });
  });

  it('refuses the whole request before any field runs, given as a variable too', async () => {
    const result = await api.query('query($bbox: [Float!]) { tours(limit: 1) { total } attractions(bbox: $bbox) { total } }', { bbox: [8, 47, 7, 46] });
    expect(result.data).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.message).toBe(`bbox: west 8 is not less than east 7 (a box across the antimeridian is not supported); ${RULE}`);
  });

  it('lets a bbox of null mean no box', async () => {
    const answer = await data('{ tours(bbox: null, limit: 0) { total } }');
    expect(answer.tours.total).toBe(readArea('de-CH', 'tours').length);
  });
});
