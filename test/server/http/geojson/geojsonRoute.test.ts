/**
 * GET /api/geojson/{area} through real HTTP, over the committed fixture snapshot: each area's
 * answer is valid GeoJSON (@placemarkio/check-geojson) holding exactly the GraphQL list's records
 * that have coordinates, the list's filters (bbox included) and refusals apply, and it is cached as GraphQL GETs are.
 */

import { getIssues } from '@placemarkio/check-geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEOJSON_AREAS } from '../../../../server/http/geojson/areas.ts';
import { MAX_FEATURES } from '../../../../server/http/geojson/geojsonParams.ts';
import { MAX_WAITING_BUILDS } from '../../../../server/http/geojson/geojsonRoute.ts';
import { readConfig } from '../../../../server/config/config.ts';
import { startServer } from '../../../../server/main.ts';
import { createLogger } from '../../../../server/ops/log.ts';
import { DATA_DIR, startTestApi, IN_PROCESS, tempStateDir, type TestApi } from '../../../helpers/api.ts';

interface Feature {
  type: 'Feature';
  id: string | number;
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: Record<string, unknown> & { id: string | number; title: unknown; area: string; query: string | null };
}

interface Collection {
  type: 'FeatureCollection';
  features: Feature[];
  area: string;
  locale: string;
  total: number;
  omitted: number;
}

interface ErrorBody {
  errors: { message: string; extensions: { code: string } }[];
}

/** Where each list keeps a record's position, and its title field. */
const FIELDS: Record<string, { title: string; lng: string; lat: string }> = {
  activities: { title: 'title', lng: 'lng', lat: 'lat' },
  snowdataStations: { title: 'name', lng: 'longitude', lat: 'latitude' },
  snowdataRoutes: { title: 'name', lng: 'longitude', lat: 'latitude' },
  tours: { title: 'name', lng: 'longitude', lat: 'latitude' },
  attractions: { title: 'name', lng: 'longitude', lat: 'latitude' },
};

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api.close();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.server.url}${path}`, { headers });
}

async function geojson(path: string): Promise<{ response: Response; text: string; body: Collection }> {
  const response = await get(path);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, text, body: JSON.parse(text) as Collection };
}

async function refusal(path: string): Promise<{ status: number; body: ErrorBody }> {
  const response = await get(path);
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

/** Every record of a GraphQL list with these arguments, paged as a client would, with its position and title. */
async function listAll(area: string, args: string): Promise<{ total: number; records: Record<string, unknown>[] }> {
  const { title, lng, lat } = FIELDS[area]!;
  const records: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await api.query(`{ ${area}(${args} limit: 100, offset: ${offset}) { total hasMore data { id ${title} ${lng} ${lat} } } }`);
    expect(page.errors).toBeUndefined();
    const list = page.data![area] as { total: number; hasMore: boolean; data: Record<string, unknown>[] };
    records.push(...list.data);
    if (!list.hasMore) return { total: list.total, records };
  }
}

/** The features the GraphQL list's records make: those with both coordinates, in the list's order. */
function expectedFeatures(area: string, records: Record<string, unknown>[]): { id: unknown; title: unknown; coordinates: [number, number] }[] {
  const { title, lng, lat } = FIELDS[area]!;
  return records
    .filter((record) => record[lng] !== null && record[lat] !== null)
    .map((record) => ({ id: record.id, title: record[title], coordinates: [Number(record[lng]), Number(record[lat])] as [number, number] }));
}

function featuresOf(body: Collection) {
  return body.features.map((feature) => ({ id: feature.id, title: feature.properties.title, coordinates: feature.geometry.coordinates }));
}

describe('GET /api/geojson/{area}', () => {
  it.each([...GEOJSON_AREAS.keys()])('answers %s as valid GeoJSON: the list\'s records with coordinates, the others counted', async (area) => {
    const { response, text, body } = await geojson(`/api/geojson/${area}?locale=fr-CH`);
    expect(response.headers.get('content-type')).toBe('application/geo+json');
    expect(getIssues(text)).toEqual([]);
    const list = await listAll(area, 'locale: "fr-CH",');
    const expected = expectedFeatures(area, list.records);
    expect(featuresOf(body)).toEqual(expected);
    expect({ type: body.type, area: body.area, locale: body.locale, total: body.total, omitted: body.omitted }).toEqual({
      type: 'FeatureCollection',
      area,
      locale: 'fr-CH',
      total: list.total,
      omitted: list.total - expected.length,
    });
    for (const feature of body.features) {
      expect(feature.properties).toMatchObject({ id: feature.id, area });
      expect(feature.id).toBe(feature.properties.id);
    }
  });

  it('writes the whole country at the largest limit in slices, giving the event loop turns, as JSON.stringify would write it', async () => {
    const target = `/api/geojson/tours?bbox=5.9,45.8,10.5,47.9&limit=${MAX_FEATURES}`;
    // Turns of the event loop the server gives while it answers: counted from when it takes the
    // request, in this process, until the answer's headers are written (an answer written at
    // once gives none).
    let turns = 0;
    const watch = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (!req.url?.startsWith(target.slice(0, target.indexOf('?')))) return;
      const turn = () => {
        if (res.headersSent) return;
        turns++;
        setImmediate(turn);
      };
      setImmediate(turn);
    };
    api.server.server.prependListener('request', watch);
    try {
      // Uncompressed: compressing runs on libuv's threads, giving the loop turns of its own.
      const response = await get(target, { 'accept-encoding': 'identity' });
      const text = await response.text();
      const body = JSON.parse(text) as Collection;
      expect(body.features.length).toBeGreaterThan(1000);
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
      expect(turns).toBeGreaterThanOrEqual(3);
    } finally {
      api.server.server.off('request', watch);
    }
  });

  it('builds an answer asked for by several clients at once one time, the others waiting for it and answered from the cache', async () => {
    const lines: { path?: string; cache?: string }[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const server = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir() }), logger);
    try {
      const target = `${server.url}/api/geojson/tours?limit=${MAX_FEATURES}`;
      const answers = await Promise.all(Array.from({ length: 4 }, async () => (await fetch(target)).text()));
      expect(new Set(answers).size).toBe(1);
      const logged = lines.filter((line) => line.path === '/api/geojson/tours');
      expect(logged.map((line) => line.cache ?? 'built').sort()).toEqual(['built', 'hit', 'hit', 'hit']);
    } finally {
      await server.close();
    }
  });

  it(`refuses with 503 OVERLOADED, counted in the metrics, a request past the ${MAX_WAITING_BUILDS} waiting for an answer to be built`, async () => {
    // Each a map of the whole country of its own, so that none is answered from the cache.
    const targets = Array.from({ length: 3 * MAX_WAITING_BUILDS }, (_, i) => `/api/geojson/tours?limit=${MAX_FEATURES}&bbox=5.9,45.8,10.5,47.8${i}`);
    const answers = await Promise.all(targets.map(async (target) => {
      const response = await get(target);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
    }));
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(MAX_WAITING_BUILDS);
    expect(refused[0]).toEqual({
      status: 503,
      retryAfter: '1',
      body: JSON.stringify({ errors: [{ message: `${MAX_WAITING_BUILDS} GeoJSON answers are waiting to be built; retry in 1 s`, extensions: { code: 'OVERLOADED' } }] }),
    });
    const metrics = await (await get('/metrics')).text();
    expect(metrics).toContain(`http_requests_shed_total{route="/api/geojson/tours"} ${refused.length}`);
  });

  it('draws winter routes where the server places them, and counts those it cannot place', async () => {
    expect((await geojson('/api/geojson/tours')).body.features.length).toBeGreaterThan(1000);
    const routes = (await geojson('/api/geojson/snowdataRoutes')).body;
    expect(routes.features.length).toBeGreaterThan(100);
    expect(routes.features.length + routes.omitted).toBe(routes.total);
  });

  it('labels each feature with the fields its area\'s map label needs', async () => {
    const station = (await geojson('/api/geojson/snowdataStations?q=verbier')).body.features[0]!;
    expect(Object.keys(station.properties)).toEqual(['id', 'title', 'area', 'snowDepthCm', 'freshSnowCm', 'openLifts', 'totalLifts', 'altitudeM', 'query']);
    const answer = await api.query(`{ snowdataStation(id: ${station.id}) { name snow { depthPiste freshSnow } ski { openFacilities } info { totalFacilities altitude } } }`);
    const record = answer.data!.snowdataStation;
    expect(station.properties).toMatchObject({
      title: record.name,
      snowDepthCm: record.snow.depthPiste,
      freshSnowCm: record.snow.freshSnow,
      openLifts: record.ski.openFacilities,
      totalLifts: record.info.totalFacilities,
      altitudeM: record.info.altitude,
    });
    const tour = (await geojson('/api/geojson/tours?q=zermatt')).body.features[0]!;
    expect(Object.keys(tour.properties)).toEqual(['id', 'title', 'area', 'routeType', 'difficulty', 'season', 'distanceKm', 'durationMin', 'query']);
    const activity = (await geojson('/api/geojson/activities?q=zermatt')).body.features[0]!;
    expect(Object.keys(activity.properties)).toEqual(['id', 'title', 'area', 'type', 'location', 'price', 'isBookable', 'query']);
    expect(activity.properties.price).toMatch(/^CHF \d+\.\d\d$/);
  });

  it.each([
    ['activities', 'fr-CH'],
    ['snowdataStations', 'it-CH'],
    ['tours', 'en-CH'],
    ['attractions', 'de-CH'],
  ])("links each %s feature to its record query, a GraphQL GET answering that record in the feature's locale", async (area, locale) => {
    const feature = (await geojson(`/api/geojson/${area}?locale=${locale}`)).body.features[7]!;
    const response = await get(feature.properties.query!, { accept: 'application/graphql-response+json' });
    const answer = (await response.json()) as { data: Record<string, { id: unknown } & Record<string, unknown>> };
    const record = Object.values(answer.data)[0]!;
    expect(record.id).toBe(feature.id);
    expect(record[FIELDS[area]!.title]).toBe(feature.properties.title);
  });

  it('applies the list\'s filters given as parameters, typed as the list\'s arguments', async () => {
    const cases: [string, string, string][] = [
      ['tours', 'q=zermatt&difficulty=medium', 'q: "zermatt", difficulty: "medium",'],
      ['tours', 'nearLat=46.02&nearLng=7.75&radiusKm=12.5', 'nearLat: 46.02, nearLng: 7.75, radiusKm: 12.5,'],
      ['attractions', 'isOutdoor=false&season=winter&locale=en-CH', 'isOutdoor: false, season: "winter", locale: "en-CH",'],
      ['activities', 'q=schlitteln&locale=de-CH', 'q: "schlitteln", locale: "de-CH",'],
      ['snowdataStations', 'q=' + encodeURIComponent('Zürich'), 'q: "Zürich",'],
    ];
    for (const [area, query, args] of cases) {
      const { body } = await geojson(`/api/geojson/${area}?${query}`);
      const list = await listAll(area, args);
      expect(list.total, query).toBeLessThan((await listAll(area, '')).total);
      expect(featuresOf(body), query).toEqual(expectedFeatures(area, list.records));
    }
  });

  it('answers with an ETag and the Cache-Control of a GraphQL GET, and 304 to If-None-Match', async () => {
    const first = await get('/api/geojson/tours?q=grindelwald', { 'accept-encoding': 'identity' });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const graphql = await get(`/api/graphql?query=${encodeURIComponent('{ types { id } }')}`, { accept: 'application/graphql-response+json' });
    expect(first.headers.get('cache-control')).toBe(graphql.headers.get('cache-control'));
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);

    const again = await get('/api/geojson/tours?q=grindelwald', { 'accept-encoding': 'identity' });
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe(await first.text());
    const revalidated = await get('/api/geojson/tours?q=grindelwald', { 'accept-encoding': 'identity', 'if-none-match': etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(await revalidated.text()).toBe('');
    const other = await get('/api/geojson/tours?q=zermatt', { 'accept-encoding': 'identity', 'if-none-match': etag! });
    expect(other.status).toBe(200);
  });

  it('grants CORS as the GraphQL route does', async () => {
    const origin = 'http://localhost:5173';
    const response = await get('/api/geojson/attractions?q=bern', { origin });
    const graphql = await get(`/api/graphql?query=${encodeURIComponent('{ types { id } }')}`, { origin, accept: 'application/json' });
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    expect(response.headers.get('access-control-allow-origin')).toBe(graphql.headers.get('access-control-allow-origin'));
    const preflight = await fetch(`${api.server.url}/api/geojson/attractions`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
  });

  describe('refusals', () => {
    it('answers 404 naming the allowed areas for an unknown area', async () => {
      expect(await refusal('/api/geojson/hotels?q=bern')).toEqual({
        status: 404,
        body: {
          errors: [
            {
              message: 'No GeoJSON area "hotels"; allowed areas: activities, snowdataStations, snowdataRoutes, tours, attractions (/api/geojson/{area})',
              extensions: { code: 'NOT_FOUND' },
            },
          ],
        },
      });
    });

    it('answers 400 naming the allowed parameters for an unknown one, paging included', async () => {
      for (const parameter of ['offset=10', 'typo=1']) {
        const { status, body } = await refusal(`/api/geojson/snowdataStations?${parameter}`);
        expect(status).toBe(400);
        expect(body.errors).toEqual([
          { message: `Unknown parameter "${parameter.split('=')[0]}" for snowdataStations; allowed: locale, q, bbox, nearLat, nearLng, radiusKm, isOpen, sort, updatedSince, limit`, extensions: { code: 'BAD_REQUEST' } },
        ]);
      }
    });

    it('answers 400 to a parameter given twice', async () => {
      expect(await refusal('/api/geojson/tours?q=a&q=b')).toEqual({
        status: 400,
        body: { errors: [{ message: 'Parameter q is given more than once; give each at most once', extensions: { code: 'BAD_REQUEST' } }] },
      });
    });

    it('answers 400 to a parameter that is not UTF-8 once percent-decoded, rather than reading it as blank', async () => {
      for (const query of ['q=%E2%82', 'q=%E2%82&limit=1', 'bbox=5.9,45.8,10.5,47.8&q=Z%FCrich']) {
        expect(await refusal(`/api/geojson/tours?${query}`), query).toEqual({
          status: 400,
          body: { errors: [{ message: 'Parameter "q" is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX', extensions: { code: 'BAD_REQUEST' } }] },
        });
      }
      // A single record's `locale` as well, on its Feature and its GPX.
      const [tour] = (await geojson('/api/geojson/tours?limit=5000')).body.features;
      for (const file of ['/api/geojson/tours', '/api/gpx/tours']) {
        expect(await refusal(`${file}/${tour!.id}?locale=de%E2%82`), file).toEqual({
          status: 400,
          body: { errors: [{ message: 'Parameter "locale" is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX', extensions: { code: 'BAD_REQUEST' } }] },
        });
      }
    });

    it.each([
      ['tours', 'locale=xx-CH', 'locale: "xx-CH",'],
      ['tours', 'difficulty=extreme', 'difficulty: "extreme",'],
      ['tours', 'nearLat=46.5', 'nearLat: 46.5,'],
      ['activities', 'nearLat=95&nearLng=7', 'nearLat: 95, nearLng: 7,'],
      ['snowdataRoutes', 'status=MAYBE', 'status: "MAYBE",'],
      ['attractions', 'q=' + 'x'.repeat(201), `q: "${'x'.repeat(201)}",`],
    ])("answers 400 with the GraphQL list's own BAD_USER_INPUT message to %s?%s", async (area, query, args) => {
      const graphql = await api.query(`{ ${area}(${args}) { total } }`);
      expect(graphql.errors).toHaveLength(1);
      expect(graphql.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await refusal(`/api/geojson/${area}?${query}`)).toEqual({
        status: 400,
        body: { errors: [{ message: graphql.errors![0]!.message, extensions: { code: 'BAD_USER_INPUT' } }] },
      });
    });

    it("answers 400 with GraphQL's coercion message to a value that is not of the argument's type", async () => {
      const { status, body } = await refusal('/api/geojson/attractions?isOutdoor=yes');
      expect(status).toBe(400);
      expect(body.errors).toEqual([{ message: 'Variable "$isOutdoor" got invalid value "yes"; Boolean cannot represent a non boolean value: "yes"', extensions: { code: 'BAD_USER_INPUT' } }]);
      const number = await refusal('/api/geojson/tours?nearLat=north&nearLng=7');
      expect(number.body.errors[0]!.message).toBe('Variable "$nearLat" got invalid value "north"; Float cannot represent non numeric value: "north"');
    });

    it('answers 400 to a limit outside 1 to the maximum', async () => {
      for (const limit of ['0', String(MAX_FEATURES + 1), '2.5', 'all']) {
        expect(await refusal(`/api/geojson/tours?limit=${limit}`)).toEqual({
          status: 400,
          body: { errors: [{ message: `limit must be an integer from 1 to ${MAX_FEATURES}, got "${limit}"`, extensions: { code: 'BAD_USER_INPUT' } }] },
        });
      }
    });

    it('refuses more matching records than limit, naming the maximum and how to narrow', async () => {
      const all = (await geojson('/api/geojson/tours?locale=en-CH')).body;
      expect(all.total).toBeLessThanOrEqual(MAX_FEATURES);
      expect(await refusal(`/api/geojson/tours?locale=en-CH&limit=${all.total - 1}`)).toEqual({
        status: 400,
        body: {
          errors: [
            {
              message: `${all.total} tours match in en-CH, more than limit ${all.total - 1}: narrow the request with bbox or q (or the list's filters), or raise limit, up to ${MAX_FEATURES}`,
              extensions: { code: 'BAD_USER_INPUT' },
            },
          ],
        },
      });
      const exact = (await geojson(`/api/geojson/tours?locale=en-CH&limit=${all.total}`)).body;
      expect(exact).toEqual(all);
    });

    it('never caches a refusal', async () => {
      const response = await get('/api/geojson/tours?difficulty=extreme');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('etag')).toBeNull();
    });
  });

  describe('bbox, forwarded to the list', () => {
    it('answers every feature in a box of the whole country, and only those inside a valley\'s box', async () => {
      for (const area of ['activities', 'snowdataStations', 'tours', 'attractions']) {
        const all = (await geojson(`/api/geojson/${area}`)).body;
        const country = (await geojson(`/api/geojson/${area}?bbox=5.9,45.8,10.5,47.9`)).body;
        expect(featuresOf(country), area).toEqual(featuresOf(all));
        const [west, south, east, north] = [7.6, 45.9, 7.9, 46.1];
        const valley = (await geojson(`/api/geojson/${area}?bbox=${west},${south},${east},${north}`)).body;
        const inside = all.features.filter(({ geometry: { coordinates: [lng, lat] } }) => lng >= west && lng <= east && lat >= south && lat <= north);
        expect(valley.features.map((feature) => feature.id).sort(), area).toEqual(inside.map((feature) => feature.id).sort());
        expect(valley.features.length, area).toBeLessThan(all.features.length);
      }
    });

    it('combines a box with q', async () => {
      const { body } = await geojson('/api/geojson/tours?bbox=7.6,45.9,7.9,46.1&q=zermatt');
      const q = (await geojson('/api/geojson/tours?q=zermatt')).body;
      const inside = q.features.filter(({ geometry: { coordinates: [lng, lat] } }) => lng >= 7.6 && lng <= 7.9 && lat >= 45.9 && lat <= 46.1);
      expect(body.features.map((feature) => feature.id).sort()).toEqual(inside.map((feature) => feature.id).sort());
    });

    it("refuses a malformed box with the list's BAD_USER_INPUT message", async () => {
      for (const bbox of ['1,2,3', '10,45,6,47', '7,47,8,46', '7,45,200,47']) {
        const { status, body } = await refusal(`/api/geojson/tours?bbox=${bbox}`);
        const graphql = await api.query(`{ tours(bbox: [${bbox}]) { total } }`);
        expect({ status, body }, bbox).toEqual({ status: 400, body: { errors: [{ message: graphql.errors![0]!.message, extensions: { code: 'BAD_USER_INPUT' } }] } });
      }
    });
  });
});
