/**
 * The `bbox` argument of the lists with coordinates: a map view's rectangle as GeoJSON writes a
 * bounding box (https://datatracker.ietf.org/doc/html/rfc7946#section-5), `[west, south, east,
 * north]` in degrees.
 */

import type { LngLatBox } from '../search/indexes.ts';
import { badInput } from './args.ts';

/** The rule a `bbox` must follow, as every refusal states it. */
const BBOX_RULE = 'allowed: [west, south, east, north] in degrees, west < east, south < north, longitudes -180 to 180, latitudes -90 to 90';

/**
 * Reads a `bbox` argument. A box across the antimeridian (west > east, allowed by GeoJSON) is
 * refused: the content is Swiss, so such a box is a client's mistake, not a view of the Pacific.
 * West = east or south = north is refused too: a box of no width finds nothing a map could show.
 * @param value the argument as GraphQL coerced it (`[Float!]`: finite numbers); null or
 *   undefined when not given
 * @returns the box, or null for no box
 * @throws GraphQLError BAD_USER_INPUT naming the broken rule and the whole rule
 */
export function checkBbox(value: readonly number[] | null | undefined): LngLatBox | null {
  if (value === null || value === undefined) return null;
  if (value.length !== 4) throw badInput(`bbox: got ${value.length} number${value.length === 1 ? '' : 's'}, expected exactly 4; ${BBOX_RULE}`);
  const [west, south, east, north] = value as [number, number, number, number];
  for (const [name, degrees] of [['west', west], ['east', east]] as const) {
    if (!(Math.abs(degrees) <= 180)) throw badInput(`bbox: ${name} ${degrees} is not a longitude; ${BBOX_RULE}`);
  }
  for (const [name, degrees] of [['south', south], ['north', north]] as const) {
    if (!(Math.abs(degrees) <= 90)) throw badInput(`bbox: ${name} ${degrees} is not a latitude; ${BBOX_RULE}`);
  }
  if (!(west < east)) throw badInput(`bbox: west ${west} is not less than east ${east} (a box across the antimeridian is not supported); ${BBOX_RULE}`);
  if (!(south < north)) throw badInput(`bbox: south ${south} is not less than north ${north}; ${BBOX_RULE}`);
  return { minLng: west, minLat: south, maxLng: east, maxLat: north };
}
