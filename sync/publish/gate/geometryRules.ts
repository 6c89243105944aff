/**
 * The publish gate's rules for the tours' lines (docs/sync.md, "The tours' lines"): each line is
 * hostile input, judged on its own; a tour whose line fails is published without it. Too many
 * failing lines refuse the whole source, as a broken geodata answer would make them all fail.
 */

import simplify from 'simplify-js';
import { GEOMETRY_LIMITS, geometryFault, lineParts, positionCount, type Position, type TourGeometry } from '../../format.ts';

/**
 * Switzerland with a margin, degrees (WGS 84): the country spans about 5.96–10.49° E and
 * 45.82–47.81° N, and a cross-border route (round a lake, over a pass) leaves it for some km.
 */
export const GEOMETRY_BOUNDS = { west: 5.7, south: 45.6, east: 10.75, north: 48.05 } as const;
/** Longest step between two positions of a line, km: a longer one is a gap or a stray point. */
export const MAX_STEP_KM = 3;
/** Most positions a published line keeps; a denser one is simplified below it. */
export const MAX_LINE_POSITIONS = 2_000;
/** Tolerances a dense line is simplified at, in m, the finest first that brings it below {@link MAX_LINE_POSITIONS}. */
export const SIMPLIFY_TOLERANCES_M = [2, 5, 10] as const;
/** Most positions a line may arrive with to be simplified at all: past it, simplifying costs more than any route needs. */
export const MAX_SIMPLIFIED_POSITIONS = 100_000;
/** Shortest and longest a line may be, as a share of its tour's `distance`. */
export const LENGTH_SHARE = { min: 0.5, max: 2 } as const;
/** Largest share of the tours asked for or kept whose line may fail before the source is refused. */
export const MAX_FAILED_LINE_SHARE = 0.1;

/** Mean radius of the Earth, km (as geokdbush measures). */
const EARTH_RADIUS_KM = 6371;

/** One line judged: published as `line` (perhaps simplified), or left out by `rule` for `reason`. */
export type LineVerdict = { line: TourGeometry; simplified: boolean } | { rule: string; reason: string };

/**
 * Judges one tour's line, in order: shape (geometryFault), every position inside
 * {@link GEOMETRY_BOUNDS}, no step longer than {@link MAX_STEP_KM}, at most
 * {@link MAX_LINE_POSITIONS} positions once simplified, and a length within {@link LENGTH_SHARE}
 * of `distanceKm` when the tour states one. A line denser than that is simplified before its
 * shape is judged, so that only a line that stays too dense fails; its bounds, steps and length
 * are those of the line as it came.
 *
 * @param distanceKm the tour's `distance`; null when unknown (the length is then not judged)
 */
export function judgeLine(line: TourGeometry, distanceKm: number | null): LineVerdict {
  const finite = firstNonFinite(line);
  if (finite !== null) return { rule: 'geometry-finite', reason: finite };
  let simplified = false;
  let judged = line;
  if (positionCount(line) > MAX_LINE_POSITIONS) {
    const fewer = simplifyLine(line);
    if (fewer === null) return { rule: 'geometry-points', reason: `${positionCount(line)} positions, and more than ${MAX_LINE_POSITIONS} simplified at ${SIMPLIFY_TOLERANCES_M.at(-1)} m (or more than ${MAX_SIMPLIFIED_POSITIONS} to simplify)` };
    judged = fewer;
    simplified = true;
  }
  const fault = geometryFault(judged);
  if (fault !== null) return { rule: 'geometry-shape', reason: fault };
  // Where it goes is judged on the line as it came: simplified, a straight stretch is one step.
  const parts = lineParts(line);
  for (const part of parts) {
    for (const [lng, lat] of part) {
      if (lng < GEOMETRY_BOUNDS.west || lng > GEOMETRY_BOUNDS.east || lat < GEOMETRY_BOUNDS.south || lat > GEOMETRY_BOUNDS.north) {
        return { rule: 'geometry-bounds', reason: `position ${lng}, ${lat} lies outside Switzerland (${GEOMETRY_BOUNDS.west}–${GEOMETRY_BOUNDS.east} E, ${GEOMETRY_BOUNDS.south}–${GEOMETRY_BOUNDS.north} N)` };
      }
    }
  }
  let lengthKm = 0;
  for (const part of parts) {
    for (let i = 1; i < part.length; i++) {
      const step = stepKm(part[i - 1]!, part[i]!);
      if (step > MAX_STEP_KM) return { rule: 'geometry-jump', reason: `a step of ${step.toFixed(1)} km between positions ${i - 1} and ${i}, at most ${MAX_STEP_KM} km allowed` };
      lengthKm += step;
    }
  }
  if (distanceKm !== null && distanceKm > 0) {
    const share = lengthKm / distanceKm;
    if (share < LENGTH_SHARE.min || share > LENGTH_SHARE.max) {
      return { rule: 'geometry-length', reason: `${lengthKm.toFixed(1)} km long for a tour of ${distanceKm} km, expected ${LENGTH_SHARE.min}–${LENGTH_SHARE.max} times its distance` };
    }
  }
  return { line: judged, simplified };
}

/** Great-circle distance between two positions, km (haversine). */
export function stepKm(a: Position, b: Position): number {
  const rad = Math.PI / 180;
  const dLat = (b[1] - a[1]) * rad;
  const dLng = (b[0] - a[0]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A message naming the first number that is not finite (JSON reads `1e999` as Infinity), or null. */
function firstNonFinite(line: TourGeometry): string | null {
  for (const [p, part] of lineParts(line).entries()) {
    if (!Array.isArray(part)) continue;
    for (const [i, position] of part.entries()) {
      if (!Array.isArray(position)) continue;
      const bad = position.findIndex((n) => typeof n === 'number' && !Number.isFinite(n));
      if (bad >= 0) return `line ${p}, position ${i}: ${position[bad]} is not a finite number`;
    }
  }
  return null;
}

/**
 * The line simplified (simplify-js: positions closer than the tolerance to the one kept before
 * dropped, then Ramer–Douglas–Peucker) at the finest of {@link SIMPLIFY_TOLERANCES_M} that leaves
 * at most {@link MAX_LINE_POSITIONS} positions; each position kept is one of the line's, altitude
 * and all. Null when none does, when the line has more than {@link MAX_SIMPLIFIED_POSITIONS}
 * positions or is not lines of positions, and when it is shaped so that simplifying it recurses
 * past the stack (a zigzag built for it).
 */
function simplifyLine(line: TourGeometry): TourGeometry | null {
  const parts = lineParts(line);
  if (parts.length > GEOMETRY_LIMITS.maxParts || !parts.every((part) => Array.isArray(part) && part.every((p) => Array.isArray(p) && p.length >= 2))) return null;
  if (positionCount(line) > MAX_SIMPLIFIED_POSITIONS) return null;
  // Metres on a plane tangent at the line's mean latitude: exact enough across one route.
  const lat0 = parts.flat().reduce((sum, p) => sum + p[1], 0) / parts.flat().length;
  const mPerDegLat = (Math.PI / 180) * EARTH_RADIUS_KM * 1000;
  const mPerDegLng = mPerDegLat * Math.cos((lat0 * Math.PI) / 180);
  const planar = parts.map((part) => part.map((p, index) => ({ x: p[0] * mPerDegLng, y: p[1] * mPerDegLat, index })));
  for (const tolerance of SIMPLIFY_TOLERANCES_M) {
    let kept: { x: number; y: number; index: number }[][];
    try {
      kept = planar.map((part) => simplify(part, tolerance) as { x: number; y: number; index: number }[]);
    } catch (error) {
      if (error instanceof RangeError) return null;
      throw error;
    }
    if (kept.reduce((sum, part) => sum + part.length, 0) > MAX_LINE_POSITIONS) continue;
    const coordinates = kept.map((part, p) => part.map(({ index }) => parts[p]![index]!));
    return line.type === 'LineString' ? { type: 'LineString', coordinates: coordinates[0]! } : { type: 'MultiLineString', coordinates };
  }
  return null;
}

/** What the gate is given of the tours' lines: as the fetch had them (sync/source.ts GeometryBatch). */
export interface LinesInput {
  lines: Readonly<Record<string, TourGeometry>>;
  fetched: number;
  kept: number;
  /** Tours whose line could not be had, each with its rule (`geometry-fetch`, `geometry-read`). */
  failed: readonly { id: string | null; rule?: string }[];
}

/** What became of the tours' lines, for the gate's report. */
export interface LinesReport {
  /** Lines asked for and read. */
  fetched: number;
  /** Lines kept from the version served, without a request. */
  kept: number;
  /** Tours whose line failed (could not be had, or a rule left it out), of the published tours. */
  failed: number;
  /** Failed lines per rule. */
  rejected: Record<string, number>;
  /** Lines published simplified. */
  simplified: number;
  /** Lines published. */
  published: number;
}

/**
 * Judges the lines of the tours about to be published (`distances`, each tour's `distance` by
 * id; a line of another tour is left out, its tour being rejected).
 *
 * @returns the lines to publish, the report, and the share of failed lines, with whether it
 *   passes {@link MAX_FAILED_LINE_SHARE}
 */
export function judgeLines(input: LinesInput, distances: ReadonlyMap<string, number | null>): { lines: Record<string, TourGeometry>; report: LinesReport; failedShare: number; refuse: boolean } {
  const lines: Record<string, TourGeometry> = {};
  const rejected: Record<string, number> = {};
  let simplified = 0;
  // Every tour whose line was tried: read (and judged here) or not had.
  let tried = 0;
  const fail = (rule: string) => void (rejected[rule] = (rejected[rule] ?? 0) + 1);
  for (const failure of input.failed) {
    if (failure.id === null || !distances.has(failure.id)) continue;
    fail(failure.rule ?? 'geometry-fetch');
    tried++;
  }
  for (const [id, line] of Object.entries(input.lines)) {
    if (!distances.has(id)) continue;
    tried++;
    const verdict = judgeLine(line, distances.get(id) ?? null);
    if ('rule' in verdict) fail(verdict.rule);
    else {
      lines[id] = verdict.line;
      if (verdict.simplified) simplified++;
    }
  }
  const failed = Object.values(rejected).reduce((sum, n) => sum + n, 0);
  const failedShare = tried === 0 ? 0 : failed / tried;
  return {
    lines,
    report: { fetched: input.fetched, kept: input.kept, failed, rejected, simplified, published: Object.keys(lines).length },
    failedShare,
    refuse: failedShare > MAX_FAILED_LINE_SHARE,
  };
}
