/**
 * Selects the records of one area that match a list query, in result order:
 * by distance with near-me, else best text match first with q, else the area's default order.
 * A map view's box narrows any of them, as a filter does.
 */

import type { LngLatBox } from '../search/indexes.ts';
import { countPositions, firstPositions, type Intersection } from '../search/positionSet.ts';
import type { AreaStore } from '../snapshot/store.ts';
import type { WithDistance } from '../snapshot/withDistance.ts';
import type { NearMe } from './args.ts';

export interface Selection<R> {
  /** Matches in result order: at least the first `end` (all of them when there are fewer). */
  readonly items: readonly R[];
  /** Number of all matches. */
  readonly total: number;
  /** With near-me: the great-circle distance in km per item, and how an item gets it. */
  readonly near: { readonly distancesKm: readonly number[]; readonly withDistance: WithDistance<R> } | null;
}

/**
 * @param options.filter the positions that pass the filter arguments (from the area's
 *   `filters.match`), or null for all
 * @param options.box only records whose point lies in it (server/resolvers/bbox.ts), or null
 *   for all; a record without coordinates lies in no box
 * @param options.end the caller needs items up to this index (offset + limit); near-me
 *   orders only that many, since sorting every point in a wide radius is the expensive part.
 * @param options.records the records served, per position; default the area's (activities are
 *   served as on the day of the request, server/snapshot/activityIndex.ts)
 */
export function selectRecords<R>(
  area: AreaStore<R, string>,
  options: { q: string | null; near: NearMe | null; filter: Intersection | null; box: LngLatBox | null; end: number; records?: readonly R[] },
): Selection<R> {
  const records = options.records ?? area.records;
  const { q, near, box, end } = options;

  if (near) {
    const { withDistance } = area;
    if (withDistance === null) throw new Error('near-me asked of an area without a distance field (server/snapshot/store.ts AREAS)');
    const matched = q === null ? null : area.text.matchSet(q);
    const accepted = matched === null ? options.filter : [matched, ...(options.filter ?? [])];
    // The box cuts near-me's own walk of the tree rather than joining the filter sets, which
    // near-me reads in the tree's order and translates once per set.
    const { total, hits } = area.geo.nearest(near.lng, near.lat, near.radiusKm, accepted, end, box);
    return { items: hits.map((hit) => records[hit.position]!), total, near: { distancesKm: hits.map((hit) => hit.distanceKm), withDistance } };
  }
  const inBox = box === null ? null : area.geo.within(box);
  const filter = inBox === null ? options.filter : [inBox, ...(options.filter ?? [])];
  const found = q === null ? null : area.text.search(q, { filter, end });
  if (found) {
    // A loop rather than Array.from with a mapping function, whose iteration protocol cost a
    // one-letter typeahead's page more than its search did.
    const { positions } = found;
    const items = new Array<R>(positions.length);
    for (let i = 0; i < positions.length; i++) items[i] = records[positions[i]!]!;
    return { items, total: found.total, near: null };
  }
  if (filter) {
    return { items: firstPositions(filter, end).map((p) => records[p]!), total: countPositions(filter), near: null };
  }
  return { items: records, total: records.length, near: null };
}
