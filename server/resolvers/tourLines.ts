/**
 * The fields of `Tour` worked out from its line (`geometry`, `bounds`, `elevationProfile`), and
 * `tours(bboxMatch: LINE)`: the tours whose line crosses a map view's box. Lines are kept once
 * per snapshot by the store, the same in every locale (server/snapshot/store.ts `tourGeometry`).
 */

import type { TourGeometry } from '../../sync/format.ts';
import { lineBounds, lineCrossesBox, elevationProfile, MAX_PROFILE_SAMPLES, MIN_PROFILE_SAMPLES, type ElevationSample } from '../search/lineGeometry.ts';
import { positionSetOf, type PositionSet } from '../search/positionSet.ts';
import type { GeoIndex, LngLatBox } from '../search/indexes.ts';
import type { Store } from '../snapshot/store.ts';
import { badInput } from './args.ts';
import type { Context } from './context.ts';

/** The values of `BboxMatch` (schema.graphql). */
export const BBOX_MATCHES = ['START', 'LINE'] as const;

/** The default of `Tour.elevationProfile(samples:)` (schema.graphql). */
const DEFAULT_SAMPLES = 100;

/** A line's bounds, worked out once per line: a line is frozen with its snapshot. */
const boundsOfLine = new WeakMap<TourGeometry, [number, number, number, number] | null>();

function boundsOf(geometry: TourGeometry): [number, number, number, number] | null {
  let bounds = boundsOfLine.get(geometry);
  if (bounds === undefined) boundsOfLine.set(geometry, (bounds = lineBounds(geometry)));
  return bounds;
}

/**
 * Reads `samples`. Refused rather than clamped, as a `limit` is.
 * @throws GraphQLError BAD_USER_INPUT naming the range allowed
 */
export function checkSamples(value: number | null | undefined): number {
  const samples = value ?? DEFAULT_SAMPLES;
  if (samples < MIN_PROFILE_SAMPLES || samples > MAX_PROFILE_SAMPLES) {
    throw badInput(`samples: ${samples} is out of range; allowed: ${MIN_PROFILE_SAMPLES} to ${MAX_PROFILE_SAMPLES}`);
  }
  return samples;
}

/** What of a tours area (server/snapshot/store.ts AreaStore) a LINE match reads. */
interface ToursArea {
  readonly records: readonly { readonly id: string }[];
  readonly geo: GeoIndex;
}

/** Per tours area (one per locale and snapshot), each position's line bounds, 4 numbers each, NaN for a tour without a line. */
const lineBoundsOfArea = new WeakMap<object, Float64Array>();

/** The bounds of every tour of an area, in its positions' order; worked out on the first LINE match of the area. */
function areaLineBounds(area: ToursArea, store: Store): Float64Array {
  let bounds = lineBoundsOfArea.get(area);
  if (bounds !== undefined) return bounds;
  bounds = new Float64Array(area.records.length * 4).fill(Number.NaN);
  for (const [position, record] of area.records.entries()) {
    const geometry = store.tourGeometry(record.id);
    const box = geometry === null ? null : boundsOf(geometry);
    if (box !== null) bounds.set(box, position * 4);
  }
  lineBoundsOfArea.set(area, bounds);
  return bounds;
}

/**
 * The positions of the tours matched by a box under `bboxMatch: LINE`: those with a line crossing
 * it (lineCrossesBox, tried only where the line's bounds overlap the box), and those without a
 * line whose start lies in it.
 */
export function lineMatchSet(area: ToursArea, store: Store, box: LngLatBox): PositionSet {
  const bounds = areaLineBounds(area, store);
  const starts = area.geo.within(box);
  const matched: number[] = [];
  for (let position = 0; position < area.records.length; position++) {
    const at = position * 4;
    const west = bounds[at]!;
    if (Number.isNaN(west)) {
      if ((starts[position >>> 5]! >>> (position & 31)) & 1) matched.push(position);
      continue;
    }
    if (west > box.maxLng || bounds[at + 2]! < box.minLng || bounds[at + 1]! > box.maxLat || bounds[at + 3]! < box.minLat) continue;
    if (lineCrossesBox(store.tourGeometry(area.records[position]!.id)!, box)) matched.push(position);
  }
  return positionSetOf(area.records.length, matched);
}

/** The resolvers of `Tour`'s line fields. */
export const tourLineResolvers = {
  geometry(tour: { id: string }, _: unknown, { store }: Context): TourGeometry | null {
    return store.tourGeometry(tour.id);
  },
  bounds(tour: { id: string }, _: unknown, { store }: Context): number[] | null {
    const geometry = store.tourGeometry(tour.id);
    return geometry === null ? null : boundsOf(geometry);
  },
  elevationProfile(tour: { id: string }, args: { samples?: number | null }, { store }: Context): ElevationSample[] | null {
    const samples = checkSamples(args.samples);
    const geometry = store.tourGeometry(tour.id);
    return geometry === null ? null : elevationProfile(geometry, samples);
  },
};
