/**
 * What the API works out from a tour's line (a GeoJSON LineString or MultiLineString, RFC 7946
 * §3.1.4–5, positions `[lng, lat]` or `[lng, lat, altitude m]`): its bounding box, whether it
 * crosses a map view's box, and its elevation profile resampled evenly over distance.
 */

import { lineParts, positionCount, type Position, type TourGeometry } from '../../sync/format.ts';
import { distanceKm, type LngLatBox } from './geoIndex.ts';

// The contract's, so that the sync's gate and the server count and walk a line alike.
export { lineParts, positionCount };

/** Most samples an elevation profile may be asked for: a chart as wide as a screen has no use for more. */
export const MAX_PROFILE_SAMPLES = 1000;

/** Fewest samples of a profile: its start and its end. */
export const MIN_PROFILE_SAMPLES = 2;

/** A point of an elevation profile. */
export interface ElevationSample {
  /** Distance along the line from its start, in km. */
  distanceKm: number;
  /** Altitude there, in metres above sea level. */
  altitudeM: number;
}

/**
 * The line's bounding box as GeoJSON writes one (RFC 7946 §5), `[west, south, east, north]` in
 * degrees, altitudes left out; null for a line without positions. Swiss lines never cross the
 * antimeridian, so west is the least longitude.
 */
export function lineBounds(geometry: TourGeometry): [number, number, number, number] | null {
  let west = Infinity;
  let south = Infinity;
  let east = -Infinity;
  let north = -Infinity;
  for (const part of lineParts(geometry)) {
    for (const [lng, lat] of part) {
      if (lng < west) west = lng;
      if (lng > east) east = lng;
      if (lat < south) south = lat;
      if (lat > north) north = lat;
    }
  }
  return west === Infinity ? null : [west, south, east, north];
}

/**
 * Whether any part of the line lies in the box, edges included: a position inside it, or a
 * segment crossing it between two positions outside (segments are straight in degrees, as a
 * map in Web Mercator or plate carrée draws them at this scale).
 */
export function lineCrossesBox(geometry: TourGeometry, box: LngLatBox): boolean {
  for (const part of lineParts(geometry)) {
    if (part.length === 1 && inBox(part[0]!, box)) return true;
    for (let at = 1; at < part.length; at++) {
      if (segmentCrossesBox(part[at - 1]!, part[at]!, box)) return true;
    }
  }
  return false;
}

function inBox([lng, lat]: Position, box: LngLatBox): boolean {
  return lng >= box.minLng && lng <= box.maxLng && lat >= box.minLat && lat <= box.maxLat;
}

/**
 * Whether the segment from `a` to `b` has a point in the box: Liang–Barsky clipping, the segment
 * as `a + t (b − a)` for t in [0, 1], narrowed by each edge in turn; it crosses when some t is left.
 */
function segmentCrossesBox(a: Position, b: Position, box: LngLatBox): boolean {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  let from = 0;
  let to = 1;
  // Per edge, p·t ≤ q keeps the side of the box: left, right, bottom, top.
  const edges: [number, number][] = [
    [-dx, a[0] - box.minLng],
    [dx, box.maxLng - a[0]],
    [-dy, a[1] - box.minLat],
    [dy, box.maxLat - a[1]],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) {
      if (t > to) return false;
      if (t > from) from = t;
    } else {
      if (t < from) return false;
      if (t < to) to = t;
    }
  }
  return from <= to;
}

/**
 * The line's elevation profile: `samples` points evenly spaced over its length, from its start
 * (0 km) to its end, each with the altitude interpolated linearly along the line between the
 * positions around it. Distances are great-circle kilometres (the near-me distance); the gap
 * between two parts of a MultiLineString is not counted, as no one walks it. Positions without
 * an altitude are passed over.
 *
 * @param samples from {@link MIN_PROFILE_SAMPLES} to {@link MAX_PROFILE_SAMPLES} (the caller checks)
 * @returns the samples, distances rounded to metres and altitudes to decimetres; null when no
 *   position of the line has an altitude
 */
export function elevationProfile(geometry: TourGeometry, samples: number): ElevationSample[] | null {
  // The positions with an altitude, as (distance along the line, altitude).
  const along: number[] = [];
  const altitudes: number[] = [];
  let travelled = 0;
  for (const part of lineParts(geometry)) {
    for (let at = 0; at < part.length; at++) {
      const position = part[at]!;
      if (at > 0) travelled += distanceKm(part[at - 1]![0], part[at - 1]![1], position[0], position[1]);
      const altitude = position[2];
      if (altitude === undefined || !Number.isFinite(altitude)) continue;
      along.push(travelled);
      altitudes.push(altitude);
    }
  }
  if (along.length === 0) return null;

  const profile: ElevationSample[] = [];
  let next = 0;
  for (let sample = 0; sample < samples; sample++) {
    const distance = (travelled * sample) / (samples - 1);
    // The first position with an altitude at or past the sample: samples come in order, so it only moves on.
    while (next < along.length - 1 && along[next]! < distance) next++;
    let altitude: number;
    if (next === 0 || along[next]! <= distance) {
      altitude = altitudes[next]!;
    } else {
      const before = next - 1;
      const span = along[next]! - along[before]!;
      const share = span === 0 ? 1 : (distance - along[before]!) / span;
      altitude = altitudes[before]! + share * (altitudes[next]! - altitudes[before]!);
    }
    profile.push({ distanceKm: round(distance, 1000), altitudeM: round(altitude, 10) });
  }
  return profile;
}

function round(value: number, per: number): number {
  return Math.round(value * per) / per;
}
