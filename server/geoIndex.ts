/**
 * Near-me search over a fixed array of points, built once per locale and area: a KDBush
 * tree queried with geokdbush, distances on a sphere of radius 6371 km
 * (https://github.com/mourner/geokdbush).
 */

import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';

/** One point found near a location. */
export interface GeoHit {
  /** Index of the point in the array given to {@link createGeoIndex}. */
  position: number;
  /** Great-circle distance from the query location, in kilometres. */
  distanceKm: number;
}

/** A search over the points given to {@link createGeoIndex}. */
export interface GeoIndex {
  /**
   * Finds the points within `radiusKm` of a location (great-circle distance <= radiusKm).
   * @param lng longitude of the location, in degrees
   * @param lat latitude of the location, in degrees
   * @param radiusKm search radius in kilometres
   * @param predicate keeps only the positions for which it returns true
   * @param maxResults returns at most this many hits (a whole number), the nearest ones;
   *   default all
   * @returns hits by ascending distance, equal distances by ascending position
   */
  around(lng: number, lat: number, radiusKm: number, predicate?: (position: number) => boolean, maxResults?: number): GeoHit[];
  /**
   * Counts the points within `radiusKm` of a location, as `around(...).length` would without
   * ordering them: the total for a page asked from `around` with `maxResults`.
   * @param lng longitude of the location, in degrees
   * @param lat latitude of the location, in degrees
   * @param radiusKm search radius in kilometres
   * @param predicate counts only the positions for which it returns true
   */
  count(lng: number, lat: number, radiusKm: number, predicate?: (position: number) => boolean): number;
}

const EARTH_RADIUS_KM = 6371;
const DEGREES = 180 / Math.PI;
// geokdbush cuts on haversine values and we on kilometres; the slack makes sure geokdbush
// never drops a point that the kilometre test keeps.
const SLACK = 1e-9;
// Dot products of unit vectors within this of the radius's cosine are too close to call
// in floating point (errors are near 1e-16); those points get the kilometre test.
const DOT_MARGIN = 1e-12;

/**
 * Builds the index.
 * @param points one entry per record, in degrees; null for a record without coordinates,
 *   which is never found.
 * @throws RangeError when a coordinate is not a finite number or lies outside
 *   [-180, 180] (longitude) or [-90, 90] (latitude).
 */
export function createGeoIndex(points: ReadonlyArray<{ lng: number; lat: number } | null>): GeoIndex {
  const located: number[] = [];
  points.forEach((point, position) => {
    if (point === null) return;
    const { lng, lat } = point;
    if (!(Math.abs(lng) <= 180) || !(Math.abs(lat) <= 90)) {
      throw new RangeError(`point ${position} has lng ${lng}, lat ${lat}; expected lng in [-180, 180] and lat in [-90, 90]`);
    }
    located.push(position);
  });
  const tree = new KDBush(located.length);
  // Unit vectors per KDBush id: a dot product tells inside from outside without trigonometry.
  const unit = new Float64Array(3 * located.length);
  for (const position of located) {
    const { lng, lat } = points[position]!;
    unit.set(unitVector(lng, lat), 3 * tree.add(lng, lat));
  }
  tree.finish();
  return new TreeGeoIndex(tree, Int32Array.from(located), points, unit);
}

class TreeGeoIndex implements GeoIndex {
  readonly #tree: KDBush;
  /** KDBush item id → position. */
  readonly #positions: Int32Array;
  readonly #points: ReadonlyArray<{ lng: number; lat: number } | null>;
  /** KDBush item id → x, y, z of its point on the unit sphere. */
  readonly #unit: Float64Array;

  constructor(tree: KDBush, positions: Int32Array, points: ReadonlyArray<{ lng: number; lat: number } | null>, unit: Float64Array) {
    this.#tree = tree;
    this.#positions = positions;
    this.#points = points;
    this.#unit = unit;
  }

  around(lng: number, lat: number, radiusKm: number, predicate?: (position: number) => boolean, maxResults = Infinity): GeoHit[] {
    if (!(maxResults > 0)) return [];
    const positions = this.#positions;
    const accept = predicate ? (id: number) => predicate(positions[id]!) : undefined;
    const reachKm = radiusKm * (1 + SLACK);
    let hits: GeoHit[];
    let asked = maxResults;
    for (;;) {
      const ids = around(this.#tree, lng, lat, asked, reachKm, accept);
      hits = [];
      for (const id of ids) {
        const position = positions[id]!;
        const point = this.#points[position]!;
        const distanceKm = distance(lng, lat, point.lng, point.lat);
        if (distanceKm <= radiusKm) hits.push({ position, distanceKm });
      }
      // With a cut, points left out are at least as far as the last one returned; if that
      // one ties with the last hit kept, a left-out point may tie too and win on position.
      if (ids.length < asked || hits.length < maxResults) break;
      const lastPoint = this.#points[positions[ids[ids.length - 1]!]!]!;
      if (distance(lng, lat, lastPoint.lng, lastPoint.lat) > hits[maxResults - 1]!.distanceKm) break;
      asked *= 2;
    }
    // geokdbush returns ascending distances, so this only orders runs of ties (TimSort: linear).
    hits.sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
    return hits.length > maxResults ? hits.slice(0, maxResults) : hits;
  }

  count(lng: number, lat: number, radiusKm: number, predicate?: (position: number) => boolean): number {
    const unit = this.#unit;
    const [qx, qy, qz] = unitVector(lng, lat);
    const cosRadius = Math.cos(Math.min(radiusKm / EARTH_RADIUS_KM, Math.PI));
    const latSpan = (radiusKm / EARTH_RADIUS_KM) * DEGREES * (1 + SLACK);
    let total = 0;
    for (const [minLng, maxLng] of longitudeRanges(lng, lat, radiusKm)) {
      for (const id of this.#tree.range(minLng, lat - latSpan, maxLng, lat + latSpan)) {
        const dot = qx * unit[3 * id]! + qy * unit[3 * id + 1]! + qz * unit[3 * id + 2]!;
        if (dot < cosRadius - DOT_MARGIN) continue;
        const position = this.#positions[id]!;
        if (dot <= cosRadius + DOT_MARGIN) {
          const point = this.#points[position]!;
          if (distance(lng, lat, point.lng, point.lat) > radiusKm) continue;
        }
        if (!predicate || predicate(position)) total++;
      }
    }
    return total;
  }
}

function unitVector(lng: number, lat: number): [x: number, y: number, z: number] {
  const phi = lat / DEGREES;
  const lambda = lng / DEGREES;
  return [Math.cos(phi) * Math.cos(lambda), Math.cos(phi) * Math.sin(lambda), Math.sin(phi)];
}

/**
 * The longitude intervals of the smallest box around a spherical cap, split in two when it
 * crosses the antimeridian; the whole circle of longitudes when the cap holds a pole.
 */
function longitudeRanges(lng: number, lat: number, radiusKm: number): Array<[number, number]> {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const latRadians = lat / DEGREES;
  if (Math.abs(latRadians) + angle >= Math.PI / 2) return [[-180, 180]];
  const lngSpan = Math.asin(Math.sin(angle) / Math.cos(latRadians)) * DEGREES * (1 + SLACK);
  const west = lng - lngSpan;
  const east = lng + lngSpan;
  if (west < -180) return [[west + 360, 180], [-180, east]];
  if (east > 180) return [[west, 180], [-180, east - 360]];
  return [[west, east]];
}
