/**
 * The tours' lines: `GET /tours/{id}/geodata`, GeoJSON (RFC 7946, longitude first), one request
 * per tour, paced with the lists under the one quota (api.ts requestOptions). No real answer has
 * been seen (docs/myswitzerland-mapping.md), so it is read defensively: a FeatureCollection, a
 * Feature or a bare geometry; its LineString and MultiLineString parts, with or without
 * altitude; every other feature (a start Point) left aside. The publish gate then judges each
 * line (sync/publish/gate/geometryRules.ts).
 *
 * Fetching is incremental: a tour whose record is unchanged since the version served (see
 * {@link routeUnchanged}) keeps that version's line without a request.
 */

import { FetchError, type HttpClient, type RequestOptions } from '../../client.ts';
import type { Position, TourGeometry, TourRecord } from '../../format.ts';
import type { GeometryBatch, Rejection, ServedSource } from '../../source.ts';
import { type MySwitzerlandConfig, requestOptions } from './api.ts';

/** URL of one tour's geodata: `{base}/tours/{id}/geodata`. */
export function geodataUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/tours/${encodeURIComponent(id)}/geodata`;
}

/**
 * Whether a tour's line may be kept from the version served without asking again: its record
 * there has the same `lastUpdated` (the upstream's `dateModified`), start and specs. These pass
 * through the sync as the upstream sends them, so a record the upstream did not touch compares
 * equal, and one whose route was redrawn has a new `dateModified` or new figures.
 */
export function routeUnchanged(now: TourRecord, served: TourRecord): boolean {
  return (
    now.lastUpdated === served.lastUpdated &&
    now.latitude === served.latitude &&
    now.longitude === served.longitude &&
    now.distance === served.distance &&
    now.ascent === served.ascent &&
    now.descent === served.descent
  );
}

/**
 * The lines of `tours` (every locale's, by id): kept from `served` where the record is unchanged
 * and it has one, else asked for, all through the client's pace. A tour the upstream has no
 * geodata for (404) has no line and counts neither as fetched nor as failed.
 *
 * @param onDone called after each request, with the requests done and to do
 */
export async function fetchTourLines(
  http: HttpClient,
  config: MySwitzerlandConfig,
  tours: readonly TourRecord[],
  served: ServedSource | null,
  onRetry: RequestOptions['onRetry'],
  onDone: (done: number, total: number) => void,
): Promise<GeometryBatch> {
  const before = new Map<string, TourRecord>();
  for (const records of Object.values(served?.locales ?? {})) {
    for (const record of records?.tours ?? []) if (!before.has(record.id)) before.set(record.id, record);
  }
  const lines: Record<string, TourGeometry> = {};
  const failed: Rejection[] = [];
  let kept = 0;
  const ask: string[] = [];
  const seen = new Set<string>();
  for (const tour of tours) {
    if (seen.has(tour.id)) continue;
    seen.add(tour.id);
    const old = before.get(tour.id);
    const line = served && Object.hasOwn(served.geometry, tour.id) ? served.geometry[tour.id] : undefined;
    if (old && line && routeUnchanged(tour, old)) {
      lines[tour.id] = line;
      kept++;
    } else {
      ask.push(tour.id);
    }
  }
  let fetched = 0;
  let done = 0;
  await Promise.all(
    ask.map(async (id) => {
      try {
        const body = await http.json(geodataUrl(config.baseUrl, id), { ...requestOptions(config), onRetry });
        const read = readGeodata(body);
        if (typeof read === 'string') failed.push({ id, reason: read, rule: 'geometry-read' });
        else if (read !== null) {
          lines[id] = read;
          fetched++;
        }
      } catch (error) {
        if (!(error instanceof FetchError)) throw error;
        // No geodata for this tour: it has no line, which is no fault of the upstream's.
        if (error.status !== 404) failed.push({ id, reason: error.message, rule: 'geometry-fetch' });
      } finally {
        onDone(++done, ask.length);
      }
    }),
  );
  return { lines, fetched, kept, failed };
}

/**
 * Reads a geodata answer: the LineString and MultiLineString geometries of a FeatureCollection
 * (or of one Feature, or a bare geometry), as one LineString, or as a MultiLineString of their
 * parts when there are several. Positions keep their altitude only when every one has it.
 *
 * @returns the line; null when the answer holds no line at all; a message naming what is wrong
 *   when it is not GeoJSON of lines (a position that is not two or three numbers, say)
 */
export function readGeodata(body: unknown): TourGeometry | null | string {
  const geometries: unknown[] = [];
  if (isObject(body) && body.type === 'FeatureCollection') {
    if (!Array.isArray(body.features)) return 'a FeatureCollection without a list of features';
    for (const feature of body.features) if (isObject(feature)) geometries.push(feature.geometry);
  } else if (isObject(body) && body.type === 'Feature') {
    geometries.push(body.geometry);
  } else if (isObject(body) && typeof body.type === 'string') {
    geometries.push(body);
  } else {
    return `not GeoJSON (expected a FeatureCollection, a Feature or a geometry), got ${JSON.stringify(body)?.slice(0, 80)}`;
  }
  const parts: unknown[][] = [];
  for (const geometry of geometries) {
    if (!isObject(geometry)) continue;
    if (geometry.type === 'LineString') parts.push(geometry.coordinates as unknown[]);
    else if (geometry.type === 'MultiLineString') {
      if (!Array.isArray(geometry.coordinates)) return 'a MultiLineString whose coordinates are not a list of lines';
      parts.push(...(geometry.coordinates as unknown[][]));
    } else if (geometry.type === 'GeometryCollection' && Array.isArray(geometry.geometries)) {
      for (const inner of geometry.geometries) if (isObject(inner) && inner.type === 'LineString') parts.push(inner.coordinates as unknown[]);
    }
  }
  if (parts.length === 0) return null;
  const read: Position[][] = [];
  for (const [p, part] of parts.entries()) {
    if (!Array.isArray(part)) return `line ${p}: coordinates are not a list of positions`;
    const positions: Position[] = [];
    for (const [i, position] of part.entries()) {
      if (!Array.isArray(position) || position.length < 2 || !position.every((n): n is number => typeof n === 'number')) {
        return `line ${p}, position ${i}: expected [longitude, latitude] or [longitude, latitude, altitude] as numbers, got ${JSON.stringify(position)?.slice(0, 60)}`;
      }
      const [lng, lat, altitude] = position as number[];
      positions.push(altitude === undefined ? [lng!, lat!] : [lng!, lat!, altitude]);
    }
    if (positions.length >= 2) read.push(positions);
  }
  if (read.length === 0) return null;
  // Altitude for all or for none: a profile with holes would mislead.
  const withAltitude = read.every((line) => line.every((position) => position.length === 3));
  const lines = withAltitude ? read : read.map((line) => line.map(([lng, lat]) => [lng, lat] as Position));
  return lines.length === 1 ? { type: 'LineString', coordinates: lines[0]! } : { type: 'MultiLineString', coordinates: lines };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
