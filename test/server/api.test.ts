/**
 * Every query operation of the schema through real HTTP against the committed fixture snapshot.
 * Expected answers are computed here from the snapshot files themselves, independently of the
 * server's indexes.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRecord, AttractionRecord, Locale, TourRecord } from '../../sync/format.ts';
import { readArea, startTestApi, type TestApi } from '../helpers/api.ts';
import { haversineKm } from '../helpers/haversine.ts';
import { FIXTURE_SYNC_TIME } from '../../sync/fixtures/fixtureTime.ts';

let api: TestApi;
beforeAll(async () => {
  // Answered on the day the snapshot was made, the records are served as they are stored.
  api = await startTestApi({}, { clock: () => FIXTURE_SYNC_TIME.getTime() });
});
afterAll(() => api.close());

const byRanking = (a: ActivityRecord, b: ActivityRecord) =>
  b.summary.rankingScoreValue - a.summary.rankingScoreValue || b.summary.popularity - a.summary.popularity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function data(query: string, variables?: Record<string, unknown>) {
  const result = await api.query(query, variables);
  expect(result.errors).toBeUndefined();
  return result.data!;
}

async function badInput(query: string): Promise<string> {
  const result = await api.query(query);
  expect(result.errors, query).toHaveLength(1);
  expect(result.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
  return result.errors![0]!.message;
}

/** Records within radiusKm of a point, nearest first, by brute force. */
function nearest<R>(records: readonly R[], point: (r: R) => [number, number] | null, lng: number, lat: number, radiusKm: number) {
  return records
    .map((record) => {
      const p = point(record);
      return p ? { record, km: haversineKm(lng, lat, p[0], p[1]) } : null;
    })
    .filter((hit): hit is { record: R; km: number } => hit !== null && hit.km <= radiusKm)
    .sort((a, b) => a.km - b.km);
}

describe('activities', () => {
  const all = readArea('de-CH', 'activities');

  it('lists activities in ranking order: score, then popularity, then id', async () => {
    const { activities } = await data('{ activities { total hasMore data { id } } }');
    expect(activities.total).toBe(all.length);
    expect(activities.hasMore).toBe(true);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual([...all].sort(byRanking).slice(0, 20).map((a) => a.id));
  });

  it('returns every field of an activity as the snapshot holds it, without the internal attribute values', async () => {
    const record = all[0]!;
    const { activity } = await data(
      `query($id: String!) { activity(id: $id) { id bookingId locale title teaserImage { url alternativeText } supplier { id name slug }
        location { id title slug activityCount } type { id title slug } info { title teaser slug }
        summary { startingPrice { amount currency formatted } rankingScoreValue popularity isActive }
        isBookable nextAvailableDate updatedAt lat lng distance } }`,
      { id: record.id },
    );
    const { attributeValues: _, availableDates: __, ...expected } = record;
    expect(activity).toEqual({ ...expected, distance: null });
  });

  it.each([
    ['typeId', (a: ActivityRecord) => a.type?.id],
    ['locationId', (a: ActivityRecord) => a.location?.id],
    ['supplierId', (a: ActivityRecord) => a.supplier?.id],
  ] as const)('filters by %s', async (argument, valueOf) => {
    const value = valueOf(all.find((a) => valueOf(a))!)!;
    const expected = all.filter((a) => valueOf(a) === value).sort(byRanking);
    const { activities } = await data(`query($v: String) { activities(${argument}: $v, limit: 100) { total data { id } } }`, { v: value });
    expect(activities.total).toBe(expected.length);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.slice(0, 100).map((a) => a.id));
  });

  it('filters by attribute value', async () => {
    // The values are the partner's texts in the locale; take one the snapshot has.
    const value = all.find((a) => a.attributeValues.length > 1)!.attributeValues[1]!;
    const expected = all.filter((a) => a.attributeValues.includes(value)).sort(byRanking);
    expect(expected.length).toBeGreaterThan(0);
    const { activities } = await data('query($v: String) { activities(attributeValue: $v, limit: 100) { total data { id } } }', { v: value });
    expect(activities.total).toBe(expected.length);
    expect(activities.data.map((a: { id: string }) => a.id)).toEqual(expected.slice(0, 100).map((a) => a.id));
  });

  it('orders by distance with near-me and reports it in km, as a brute-force haversine sort does', async () => {
    const [lng, lat] = [8.5403, 47.3779];
    const expected = nearest(all, (a) => (a.lat && a.lng ? [Number(a.lng), Number(a.lat)] : null), lng, lat, 40);
    const { activities } = await data('{ activities(nearLat: 47.3779, nearLng: 8.5403, radiusKm: 40, limit: 100) { total data { id distance } } }');
    expect(activities.total).toBe(expected.length);
    expect(activities.total).toBeGreaterThan(5);
    activities.data.forEach((item: { id: string; distance: number }, i: number) => {
      expect(item.distance).toBeCloseTo(expected[i]!.km, 2);
    });
    expect(new Set(activities.data.map((a: { id: string }) => a.id))).toEqual(new Set(expected.slice(0, 100).map((h) => h.record.id)));
  });

  it('pages near-me results in distance order, with the total of all within the radius', async () => {
    const expected = nearest(all, (a) => (a.lat && a.lng ? [Number(a.lng), Number(a.lat)] : null), 7.8632, 46.6863, 60);
    const { activities } = await data('{ activities(nearLat: 46.6863, nearLng: 7.8632, radiusKm: 60, offset: 10, limit: 7) { total hasMore data { id distance } } }');
    expect(activities.total).toBe(expected.length);
    expect(activities.hasMore).toBe(expected.length > 17);
    expect(activities.data.map((a: { distance: number }) => a.distance)).toEqual(expected.slice(10, 17).map((h) => Math.round(h.km * 1000) / 1000));
  });

  it('uses a 50 km radius by default', async () => {
    const expected = nearest(all, (a) => (a.lat && a.lng ? [Number(a.lng), Number(a.lat)] : null), 7.4474, 46.948, 50);
    const { activities } = await data('{ activities(nearLat: 46.948, nearLng: 7.4474, limit: 0) { total } }');
    expect(activities.total).toBe(expected.length);
  });

  it('finds titles with a typo, without accents and by prefix, best match first', async () => {
    const { activities } = await data('{ activities(q: "parapnte biplace", locale: "fr-CH", limit: 100) { total data { title } } }');
    expect(activities.total).toBeGreaterThan(0);
    for (const { title } of activities.data) expect(title).toMatch(/parapente biplace/i);
  });
});

describe('locations and types', () => {
  it('lists locations by title with the number of activities at each', async () => {
    const activities = readArea('it-CH', 'activities');
    const { locations } = await data('{ locations(locale: "it-CH") { id title slug activityCount } }');
    expect(locations).toHaveLength(60);
    const titles = locations.map((l: { title: string }) => l.title);
    expect(titles).toEqual([...titles].sort(new Intl.Collator('it-CH', { sensitivity: 'base', numeric: true }).compare));
    for (const location of locations) {
      expect(location.activityCount).toBe(activities.filter((a) => a.location?.id === location.id).length);
    }
    expect(titles).toContain('Zurigo');
  });

  it('cuts the locations list at limit', async () => {
    const { locations } = await data('{ locations(limit: 7) { id } }');
    expect(locations).toHaveLength(7);
  });

  it('lists the activity types of a locale by title', async () => {
    const { types } = await data('{ types(locale: "en-CH") { id title slug } }');
    expect(types).toHaveLength(readArea('en-CH', 'types').length);
    const titles = types.map((t: { title: string }) => t.title);
    expect(titles).toEqual([...titles].sort(new Intl.Collator('en-CH', { sensitivity: 'base', numeric: true }).compare));
  });
});

describe('snowdata stations and routes', () => {
  const stations = readArea('de-CH', 'stations');

  it('lists stations by name with pagination and meta from the manifest', async () => {
    const { snowdataStations: result } = await data(
      '{ snowdataStations(limit: 30, offset: 60) { total hasMore data { name } pagination { total limit offset hasMore page totalPages } meta { locale lastSync expiresAt source responseTimeMs } } }',
    );
    const names = stations.map((s) => s.name).sort(new Intl.Collator('de-CH', { sensitivity: 'base', numeric: true }).compare);
    expect(result.data.map((s: { name: string }) => s.name)).toEqual(names.slice(60, 90));
    expect(result.pagination).toEqual({ total: stations.length, limit: 30, offset: 60, hasMore: true, page: 3, totalPages: Math.ceil(stations.length / 30) });
    // The committed snapshot is generated: its meta says so, and it does not expire.
    expect(result.meta).toMatchObject({ locale: 'de-CH', lastSync: '2026-11-20T04:00:00.000Z', expiresAt: null, source: 'Switzerland Tourism STnet winter sports report (fixture data, not from the upstream)' });
    expect(result.meta.responseTimeMs).toBeGreaterThanOrEqual(0);
  });

  it('returns a whole station, raw upstream record included, with coordinates from its first located track or run', async () => {
    const record = stations.find((s) => s.crosscountry && s.tobogganing && s.latitude !== null)!;
    const fields = Object.keys(record).filter((k) => k !== 'raw');
    const { schema } = { schema: await (await fetch(`${api.server.url}/api/schema`)).text() };
    expect(schema).toContain('type SnowdataStation');
    const sample = (await (await fetch(`${api.server.url}/api/schema?format=queries`)).json()) as { name: string; query: string }[];
    const stationQuery = sample.find((q) => q.name === 'Station')!.query.replace('lastUpdate', 'lastUpdate raw');
    const { snowdataStation } = await data(stationQuery, { id: record.id });
    expect(Object.keys(snowdataStation).sort()).toEqual([...fields, 'raw'].sort());
    expect(snowdataStation).toEqual(record);
    const raw = record.raw as Record<string, Record<string, unknown> | undefined>;
    const items = [raw.crosscountry?.tracksArray, raw.tobogganing?.runsArray].flat() as { info: { latitude: { content: number }; longitude: { content: number } } }[];
    const located = items.find((i) => i.info.latitude.content !== 0 && i.info.longitude.content !== 0)!;
    expect([snowdataStation.latitude, snowdataStation.longitude]).toEqual([located.info.latitude.content, located.info.longitude.content]);
    expect(snowdataStation.sledge.runsTotal).toBe(record.tobogganing!.tracksTotal);
  });

  it('has no coordinates for a station without cross-country tracks or toboggan runs', async () => {
    const record = stations.find((s) => s.crosscountry === null && s.tobogganing === null)!;
    expect(record).toBeDefined();
    const { snowdataStation } = await data('query($id: Int!) { snowdataStation(id: $id) { latitude longitude } }', { id: record.id });
    expect(snowdataStation).toEqual({ latitude: null, longitude: null });
  });

  it('searches station names in each language, accents and typos allowed', async () => {
    for (const [locale, q, expected] of [
      ['de-CH', 'saas fe', 'Saas-Fee'],
      ['fr-CH', 'Murren', 'Mürren'],
      ['de-CH', 'Grindelwlad', 'Grindelwald'],
    ] as const) {
      const { snowdataStations } = await data('query($q: String, $l: String) { snowdataStations(q: $q, locale: $l) { data { name } } }', { q, l: locale });
      expect(snowdataStations.data[0]?.name, `${locale} ${q}`).toBe(expected);
    }
  });

  it('filters winter routes by type and status', async () => {
    const routes = readArea('de-CH', 'routes');
    const expected = routes.filter((r) => r.type === 'sledging' && r.status === 'CLOSED');
    const { snowdataRoutes } = await data(
      '{ snowdataRoutes(type: "sledging", status: "CLOSED", limit: 500) { total hasMore data { id type status } pagination { page totalPages } meta { locale source } } }',
    );
    expect(snowdataRoutes.total).toBe(expected.length);
    expect(new Set(snowdataRoutes.data.map((r: { id: string }) => r.id))).toEqual(new Set(expected.map((r) => r.id)));
    expect(snowdataRoutes.meta).toEqual({ locale: 'de-CH', source: 'Switzerland Tourism STnet winter sports report (fixture data, not from the upstream)' });
  });
});

describe('tours', () => {
  const tours = readArea('de-CH', 'tours');
  const point = (t: TourRecord): [number, number] | null => (t.longitude !== null && t.latitude !== null ? [t.longitude, t.latitude] : null);

  it('filters by route type, season and difficulty together', async () => {
    const expected = tours.filter((t) => t.routeType === 'hike' && t.season === 'summer' && t.difficulty === 'difficult');
    const { tours: result } = await data('{ tours(routeType: "hike", season: "summer", difficulty: "difficult", limit: 500) { total data { id routeType season difficulty } } }');
    expect(result.total).toBe(expected.length);
    expect(new Set(result.data.map((t: { id: string }) => t.id))).toEqual(new Set(expected.map((t) => t.id)));
  });

  it('orders near-me results by distance_km as a brute-force sort does, after the filters', async () => {
    const expected = nearest(tours.filter((t) => t.season === 'winter'), point, 9.8355, 46.4908, 25);
    const { tours: result } = await data('{ tours(season: "winter", nearLat: 46.4908, nearLng: 9.8355, radiusKm: 25, limit: 500) { total data { id distance_km } } }');
    expect(result.total).toBe(expected.length);
    result.data.forEach((t: { distance_km: number }, i: number) => expect(t.distance_km).toBeCloseTo(expected[i]!.km, 2));
  });

  it('leaves distance_km null without near-me', async () => {
    const { tours: result } = await data('{ tours(limit: 1) { data { distance_km } } }');
    expect(result.data[0].distance_km).toBeNull();
  });

  it('searches name and abstract, ranking name matches first', async () => {
    const { tours: result } = await data('{ tours(q: "oeschinensee", limit: 500) { total data { name abstract } } }');
    const inName = (t: { name: string }) => /oeschinensee/i.test(t.name);
    expect(result.total).toBeGreaterThan(0);
    const firstAbstractOnly = result.data.findIndex((t: { name: string }) => !inName(t));
    if (firstAbstractOnly !== -1) expect(result.data.slice(firstAbstractOnly).some(inName)).toBe(false);
  });

  it('filters by text, then orders by distance, when q and near-me are combined', async () => {
    const { tours: result } = await data('{ tours(q: "zermatt", nearLat: 46.0207, nearLng: 7.7491, radiusKm: 30, limit: 500) { total data { name abstract distance_km } } }');
    expect(result.total).toBeGreaterThan(1);
    const distances = result.data.map((t: { distance_km: number }) => t.distance_km);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    for (const t of result.data) expect(`${t.name} ${t.abstract}`).toMatch(/zermatt/i);
  });

  it('serves each locale in its language', async () => {
    const id = tours.find((t) => t.name.includes('Greyerz'))!.id;
    const names: Record<string, string> = {};
    for (const locale of ['de-CH', 'fr-CH', 'it-CH', 'en-CH'] as Locale[]) {
      const { tour } = await data('query($id: String!, $l: String) { tour(id: $id, locale: $l) { name } }', { id, l: locale });
      names[locale] = tour.name;
    }
    expect(names['de-CH']).toContain('Greyerz');
    expect(names['fr-CH']).toContain('Gruyères');
    expect(new Set(Object.values(names)).size).toBe(4);
  });

  it('finds Gruyères from "gruyere" and Zürich from "zuerich" and "zurich"', async () => {
    const { fr } = await data('{ fr: tours(q: "gruyere", locale: "fr-CH", limit: 3) { total data { name } } }');
    expect(fr.total).toBeGreaterThan(0);
    expect(fr.data[0].name).toContain('Gruyères');
    for (const q of ['zuerich', 'zurich', 'ZÜRICH']) {
      const { tours: result } = await data('query($q: String) { tours(q: $q, limit: 1) { data { name } } }', { q });
      expect(result.data[0]?.name, q).toContain('Zürich');
    }
    const { it: italian } = await data('{ it: tours(q: "zurigo", locale: "it-CH", limit: 1) { data { name } } }');
    expect(italian.data[0].name).toContain('Zurigo');
  });
});

describe('attractions', () => {
  const attractions = readArea('en-CH', 'attractions');

  it.each([
    ['season: "winter"', (a: AttractionRecord) => a.seasons.includes('winter')],
    ['sportType: "hike"', (a: AttractionRecord) => a.sportTypes.includes('hike')],
    ['experienceType: "culture"', (a: AttractionRecord) => a.experienceTypes.includes('culture')],
    ['neededTime: "2to4hourshalfday"', (a: AttractionRecord) => a.neededTime === '2to4hourshalfday'],
    ['childrenAge: "6to9years"', (a: AttractionRecord) => a.childrenAges.includes('6to9years')],
    ['isOutdoor: true', (a: AttractionRecord) => a.isOutdoor],
    ['isIndoor: true', (a: AttractionRecord) => a.isIndoor],
    ['isWheelchairAccessible: true', (a: AttractionRecord) => a.isWheelchairAccessible],
    ['isAccessibleForFree: false', (a: AttractionRecord) => !a.isAccessibleForFree],
  ])('filters by %s', async (argument, test) => {
    const expected = attractions.filter(test);
    expect(expected.length).toBeGreaterThan(0);
    const { attractions: result } = await data(`{ attractions(${argument}, locale: "en-CH", limit: 500) { total data { id } } }`);
    expect(result.total).toBe(expected.length);
    const returned = result.data.map((a: { id: string }) => a.id);
    expect(returned).toHaveLength(Math.min(500, expected.length));
    const expectedIds = new Set(expected.map((a) => a.id));
    for (const id of returned) expect(expectedIds.has(id), id).toBe(true);
  });

  it.each(['2days', '3days', '4days', '7days'])('accepts neededTime "%s", which the real facets hold, and finds what the snapshot has of it', async (neededTime) => {
    const { attractions: result } = await data(`{ attractions(neededTime: "${neededTime}", locale: "en-CH", limit: 500) { total } }`);
    expect(result.total).toBe(attractions.filter((a) => a.neededTime === neededTime).length);
  });

  it('returns a real MySwitzerland attraction by id', async () => {
    const { attraction } = await data('{ attraction(id: "dc2b782d-b1f1-40ee-aef6-2d9f9b012d05", locale: "en-CH") { name locality seasons sportTypes isOutdoor distance_km } }');
    expect(attraction).toEqual({ name: 'Via Ferrata in Zermatt', locality: 'Zermatt', seasons: ['summer'], sportTypes: ['climb'], isOutdoor: true, distance_km: null });
  });

  it('orders near-me results by distance_km as a brute-force sort does', async () => {
    const expected = nearest(attractions, (a) => (a.longitude !== null && a.latitude !== null ? [a.longitude, a.latitude] : null), 8.3093, 47.0502, 5);
    const { attractions: result } = await data('{ attractions(nearLat: 47.0502, nearLng: 8.3093, radiusKm: 5, locale: "en-CH", limit: 500) { total data { id distance_km } } }');
    expect(result.total).toBe(expected.length);
    result.data.forEach((a: { distance_km: number }, i: number) => expect(a.distance_km).toBeCloseTo(expected[i]!.km, 2));
  });
});

describe('pagination', () => {
  it('returns no items but the total when offset is past the end', async () => {
    const { tours } = await data('{ tours(offset: 100000) { total hasMore data { id } pagination { page totalPages hasMore } } }');
    expect(tours).toEqual({ total: 2000, hasMore: false, data: [], pagination: { page: 2001, totalPages: 40, hasMore: false } });
  });

  it('answers limit 0 with counts only', async () => {
    const { attractions } = await data('{ attractions(limit: 0) { total hasMore data { id } pagination { page totalPages limit } } }');
    expect(attractions.data).toEqual([]);
    expect(attractions.hasMore).toBe(attractions.total > 0);
    expect(attractions.pagination).toEqual({ page: 1, totalPages: 0, limit: 0 });
  });

  it('says there is no more on the last page', async () => {
    const { tours } = await data('{ tours(limit: 500, offset: 1500) { hasMore data { id } pagination { page totalPages } } }');
    expect(tours.data).toHaveLength(500);
    expect(tours.hasMore).toBe(false);
    expect(tours.pagination).toEqual({ page: 4, totalPages: 4 });
  });
});

describe('single lookups', () => {
  it('returns null for an unknown id', async () => {
    const result = await data(`{ activity(id: "nope") { id } snowdataStation(id: -1) { id } tour(id: "nope") { id } attraction(id: "nope") { id } }`);
    expect(result).toEqual({ activity: null, snowdataStation: null, tour: null, attraction: null });
  });
});

describe('bad arguments', () => {
  it.each([
    ['{ activities(limit: 101) { total } }', 'limit: 101 is out of range; allowed: 0 to 100'],
    ['{ activities(limit: -1) { total } }', 'limit: -1 is out of range; allowed: 0 to 100'],
    ['{ snowdataStations(limit: 501) { total } }', 'limit: 501 is out of range; allowed: 0 to 500'],
    ['{ tours(limit: 501) { total } }', 'limit: 501 is out of range; allowed: 0 to 500'],
    ['{ attractions(limit: 501) { total } }', 'limit: 501 is out of range; allowed: 0 to 500'],
    ['{ locations(limit: 1001) { id } }', 'limit: 1001 is out of range; allowed: 0 to 1000'],
    ['{ snowdataRoutes(limit: 501) { total } }', 'limit: 501 is out of range; allowed: 0 to 500'],
    ['{ tours(offset: -1) { total } }', 'offset: -1 is out of range; allowed: 0 or more'],
    ['{ types(locale: "de-DE") { id } }', 'locale: "de-DE" is not supported; allowed: de-CH, en-CH, fr-CH, it-CH'],
    ['{ tours(routeType: "ski") { total } }', 'routeType: "ski" is not allowed; allowed: hike, mountainbike, bicycle, snowshoe, winterhiking, crosscountryskiing, sledging, skating, canoe'],
    ['{ tours(season: "spring") { total } }', 'season: "spring" is not allowed; allowed: summer, winter'],
    ['{ tours(difficulty: "hard") { total } }', 'difficulty: "hard" is not allowed; allowed: easy, medium, difficult'],
    ['{ attractions(season: "monsoon") { total } }', 'season: "monsoon" is not allowed; allowed: summer, winter, spring, autumn'],
    ['{ attractions(neededTime: "1h") { total } }', 'neededTime: "1h" is not allowed; allowed: lessthan1hour, between12hours, 2to4hourshalfday, 4to8hoursfullday, severaldays, 2days, 3days, 4days, 7days'],
    ['{ attractions(childrenAge: "3") { total } }', 'childrenAge: "3" is not allowed; allowed: 0to5years, 6to9years, 10to13years, 14plus'],
    ['{ snowdataRoutes(status: "open") { total } }', 'status: "open" is not allowed; allowed: OPEN, CLOSED, NOINFO'],
    ['{ snowdataRoutes(type: "ski") { total } }', 'type: "ski" is not allowed; allowed: snowshoe, crosscountry, winterhiking, sledging'],
    ['{ activities(nearLat: 91, nearLng: 8) { total } }', 'nearLat: 91 is out of range; allowed: -90 to 90'],
    ['{ tours(nearLat: 46, nearLng: -181) { total } }', 'nearLng: -181 is out of range; allowed: -180 to 180'],
    ['{ attractions(nearLat: 46, nearLng: 8, radiusKm: 0) { total } }', 'radiusKm: 0 is out of range; allowed: a number of kilometres greater than 0'],
    ['{ activities(nearLat: 46) { total } }', 'nearLat and nearLng must be given together; got only nearLat'],
  ])('refuses %s', async (query, message) => {
    expect(await badInput(query)).toContain(message);
  });
});

describe('sample queries', () => {
  it('offers at least one sample per Query field, and each runs without errors', async () => {
    const samples = (await (await fetch(`${api.server.url}/api/schema?format=queries`)).json()) as { query: string; variables: Record<string, unknown> }[];
    const fields = ['activities', 'activity', 'locations', 'types', 'snowdataStations', 'snowdataStation', 'snowdataRoutes', 'tours', 'tour', 'attractions', 'attraction', 'changes'];
    for (const field of fields) expect(samples.some((s) => new RegExp(`\\b${field}\\(`).test(s.query)), field).toBe(true);
    for (const sample of samples) {
      const result = await api.query(sample.query, sample.variables);
      expect(result.errors, sample.query).toBeUndefined();
      expect(Object.values(result.data!).every((value) => value !== null), sample.query).toBe(true);
    }
  });
});
