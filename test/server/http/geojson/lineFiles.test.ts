/**
 * The files of tours' lines through real HTTP, over the committed fixture snapshot:
 * GET /api/geojson/tours/{id} (one Feature, checked by @placemarkio/check-geojson),
 * GET /api/geojson/tours?geometry=line and GET /api/gpx/tours/{id} (read back by
 * @tmcw/togeojson), each with the GeoJSON route's ETag, Cache-Control and CORS.
 *
 * The GPX 1.1 XSD is not checked against: no npm package found ships it, and the tests run
 * offline. The writer follows the schema's element order, which its unit test checks.
 */

import { getIssues } from '@placemarkio/check-geojson';
import { gpx } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_POSITIONS } from '../../../../server/http/geojson/geojsonParams.ts';
import type { Position, TourGeometry } from '../../../../sync/format.ts';
import { readArea, readLines, startTestApi, type TestApi } from '../../../helpers/api.ts';

interface Feature {
  type: 'Feature';
  id: string;
  bbox?: number[];
  geometry: TourGeometry | { type: 'Point'; coordinates: [number, number] } | null;
  properties: Record<string, unknown>;
}

let api: TestApi;
let lines: Record<string, TourGeometry>;
const tours = readArea('en-CH', 'tours');

beforeAll(async () => {
  api = await startTestApi();
  lines = readLines();
});

afterAll(async () => {
  await api.close();
});

function get(target: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.server.url}${target}`, { headers });
}

function parts(geometry: TourGeometry): Position[][] {
  return geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates;
}

function positionsOf(geometry: TourGeometry): number {
  return parts(geometry).reduce((sum, part) => sum + part.length, 0);
}

function tourWithLine(): string {
  const tour = tours.find((record) => lines[record.id] && positionsOf(lines[record.id]!) > 10);
  expect(tour, 'the fixture has a tour with a line').toBeDefined();
  return tour!.id;
}

describe('GET /api/geojson/tours/{id}', () => {
  it('answers one valid Feature with the full line, its bbox and the label fields of the list', async () => {
    const id = tourWithLine();
    const response = await get(`/api/geojson/tours/${id}?locale=en-CH`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/geo+json');
    expect(getIssues(text)).toEqual([]);
    const feature = JSON.parse(text) as Feature & { area: string; locale: string };
    expect(feature.geometry).toEqual(lines[id]);
    const lngs = parts(lines[id]!).flat().map((p) => p[0]);
    const lats = parts(lines[id]!).flat().map((p) => p[1]);
    expect(feature.bbox).toEqual([Math.min(...lngs), Math.min(...lats), Math.max(...lngs), Math.max(...lats)]);
    expect({ area: feature.area, locale: feature.locale, id: feature.id }).toEqual({ area: 'tours', locale: 'en-CH', id });

    // The same label as the tour's point in the list.
    const list = (await (await get(`/api/geojson/tours?locale=en-CH&q=${encodeURIComponent(tours.find((tour) => tour.id === id)!.name)}`)).json()) as { features: Feature[] };
    const point = list.features.find((candidate) => candidate.id === id)!;
    expect(feature.properties).toEqual(point.properties);
  });

  it('answers a tour without a line as its start point', async () => {
    const tour = tours.find((record) => !lines[record.id] && record.longitude !== null);
    if (tour === undefined) return;
    const feature = (await (await get(`/api/geojson/tours/${tour.id}?locale=en-CH`)).json()) as Feature;
    expect(feature.geometry).toEqual({ type: 'Point', coordinates: [tour.longitude, tour.latitude] });
  });

  it('answers any area with a record query, as a Point', async () => {
    const attraction = readArea('de-CH', 'attractions').find((record) => record.longitude !== null)!;
    const response = await get(`/api/geojson/attractions/${encodeURIComponent(attraction.id)}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(getIssues(text)).toEqual([]);
    expect((JSON.parse(text) as Feature).geometry).toEqual({ type: 'Point', coordinates: [Number(attraction.longitude), Number(attraction.latitude)] });
  });

  it('refuses an unknown id, area or parameter, naming what is allowed', async () => {
    const unknown = await get('/api/geojson/tours/no-such-tour');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ errors: [{ message: 'No tour "no-such-tour" in de-CH', extensions: { code: 'NOT_FOUND' } }] });
    const area = await get('/api/geojson/snowdataRoutes/1');
    expect(area.status).toBe(404);
    expect(((await area.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe(
      'Nothing at /api/geojson/snowdataRoutes/1; a record is at /api/geojson/{area}/{id}, areas: activities, snowdataStations, tours, attractions',
    );
    const parameter = await get(`/api/geojson/tours/${tourWithLine()}?q=x`);
    expect(parameter.status).toBe(400);
    expect(await parameter.json()).toEqual({ errors: [{ message: 'Unknown parameter "q" for a single record; allowed: locale', extensions: { code: 'BAD_REQUEST' } }] });
    const locale = await get(`/api/geojson/tours/${tourWithLine()}?locale=xx`);
    expect(locale.status).toBe(400);
    expect(((await locale.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers with an ETag, the Cache-Control of a GraphQL GET, 304 to If-None-Match, and CORS', async () => {
    const target = `/api/geojson/tours/${tourWithLine()}`;
    const first = await get(target, { 'accept-encoding': 'identity' });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const graphql = await get(`/api/graphql?query=${encodeURIComponent('{ types { id } }')}`, { accept: 'application/graphql-response+json' });
    expect(first.headers.get('cache-control')).toBe(graphql.headers.get('cache-control'));
    const revalidated = await get(target, { 'accept-encoding': 'identity', 'if-none-match': etag! });
    expect(revalidated.status).toBe(304);
    const origin = 'http://localhost:5173';
    expect((await get(target, { origin })).headers.get('access-control-allow-origin')).toBe(origin);
  });
});

describe('GET /api/geojson/tours?geometry=line', () => {
  it('answers the tours with a line as it, the others as their point, under the cap of positions', async () => {
    const bbox = '7.6,45.9,8.2,46.7';
    const response = await get(`/api/geojson/tours?geometry=line&bbox=${bbox}&bboxMatch=LINE&locale=en-CH`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(getIssues(text)).toEqual([]);
    const collection = JSON.parse(text) as { features: Feature[]; total: number; omitted: number };
    const points = (await (await get(`/api/geojson/tours?bbox=${bbox}&bboxMatch=LINE&locale=en-CH`)).json()) as { features: Feature[]; total: number };
    expect(collection.total).toBe(points.total);
    // Every tour drawn as a point is drawn, and so is each tour with a line but no start point.
    const byId = new Map(points.features.map((feature) => [feature.id, feature]));
    const drawn = collection.features.map((feature) => feature.id);
    expect(drawn.filter((id) => byId.has(id))).toEqual(points.features.map((feature) => feature.id));
    for (const id of drawn.filter((id) => !byId.has(id))) expect(lines[id], id).toBeDefined();
    expect(collection.omitted).toBe(collection.total - collection.features.length);
    expect(collection.features.some((feature) => feature.geometry?.type !== 'Point')).toBe(true);
    for (const feature of collection.features) {
      const line = lines[feature.id];
      expect(feature.geometry).toEqual(line ?? byId.get(feature.id)!.geometry);
      if (byId.has(feature.id)) expect(feature.properties).toEqual(byId.get(feature.id)!.properties);
    }
    const positions = collection.features.reduce((sum, feature) => sum + (lines[feature.id] ? positionsOf(lines[feature.id]!) : 0), 0);
    expect(positions).toBeLessThanOrEqual(MAX_LINE_POSITIONS);
  });

  it('refuses lines of more positions than the cap, naming it and how to narrow the request', async () => {
    const all = Object.values(lines).reduce((sum, line) => sum + positionsOf(line), 0);
    // The whole country's lines are more than one answer holds.
    expect(all).toBeGreaterThan(MAX_LINE_POSITIONS);
    const response = await get('/api/geojson/tours?geometry=line&locale=en-CH');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0]!.message).toContain(`more than ${MAX_LINE_POSITIONS} positions`);
  });

  it('refuses a geometry other than point or line, and geometry for an area without lines', async () => {
    const bad = await get('/api/geojson/tours?geometry=polygon');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ errors: [{ message: 'geometry must be one of point, line, got "polygon"', extensions: { code: 'BAD_USER_INPUT' } }] });
    const other = await get('/api/geojson/attractions?geometry=line');
    expect(other.status).toBe(400);
  });
});

describe('GET /api/gpx/tours/{id}', () => {
  it('answers a GPX 1.1 track that a GPX reader reads back to the same positions', async () => {
    const id = tourWithLine();
    const response = await get(`/api/gpx/tours/${id}?locale=en-CH`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gpx+xml');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="tour-${id}.gpx"`);
    const document = new DOMParser().parseFromString(text, 'application/xml');
    expect(document.documentElement!.getAttribute('version')).toBe('1.1');
    const collection = gpx(document as unknown as Parameters<typeof gpx>[0]);
    expect(collection.features).toHaveLength(1);
    const tour = tours.find((record) => record.id === id)!;
    expect(collection.features[0]!.properties!.name).toBe(tour.name);
    // togeojson answers one segment as a LineString, several as a MultiLineString, as the line is.
    expect(collection.features[0]!.geometry).toEqual(lines[id]);
  });

  it('answers 404 for a tour without a line or an unknown one, and with the route caching', async () => {
    const unknown = await get('/api/gpx/tours/no-such-tour');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-disposition')).toBeNull();
    const withoutLine = tours.find((record) => !lines[record.id]);
    if (withoutLine) expect((await get(`/api/gpx/tours/${withoutLine.id}`)).status).toBe(404);
    expect((await get('/api/gpx/attractions/x')).status).toBe(404);
    const badLocale = await get(`/api/gpx/tours/${tourWithLine()}?locale=xx`);
    expect(badLocale.status).toBe(400);
    expect(badLocale.headers.get('content-disposition')).toBeNull();

    const target = `/api/gpx/tours/${tourWithLine()}`;
    const first = await get(target, { 'accept-encoding': 'identity' });
    const etag = first.headers.get('etag')!;
    const again = await get(target, { 'accept-encoding': 'identity', 'if-none-match': etag });
    expect(again.status).toBe(304);
    const origin = 'http://localhost:5173';
    const cors = await get(target, { origin });
    expect(cors.headers.get('access-control-allow-origin')).toBe(origin);
    expect(cors.headers.get('content-disposition')).toMatch(/^attachment; filename="tour-/);
  });
});
