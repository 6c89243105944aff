/**
 * Selects the records of one area that match a list query, in result order:
 * by distance with near-me, else best text match first with q, else the area's default order.
 */

import type { AreaStore } from '../store.ts';
import type { NearMe } from './args.ts';

export interface Selection<R> {
  /** Matches in result order: all of them, or with near-me at least the first `end`. */
  readonly items: readonly R[];
  /** Number of all matches. */
  readonly total: number;
  /** Great-circle distance in km per item, only with near-me. */
  readonly distancesKm: readonly number[] | null;
}

/**
 * @param options.end the caller needs items up to this index (offset + limit); near-me
 *   orders only that many, since sorting every point in a wide radius is the expensive part.
 */
export function selectRecords<R>(
  area: AreaStore<R>,
  options: { q: string | null; near: NearMe | null; filter: ((record: R) => boolean) | null; end: number },
): Selection<R> {
  const { records } = area;
  const { q, near, filter, end } = options;

  const positions = q === null ? null : area.text.search(q);
  if (near) {
    let accept: ((position: number) => boolean) | undefined;
    if (positions) {
      const matched = new Uint8Array(records.length);
      for (let i = 0; i < positions.length; i++) matched[positions[i]!] = 1;
      accept = filter ? (p) => matched[p] === 1 && filter(records[p]!) : (p) => matched[p] === 1;
    } else if (filter) {
      accept = (p) => filter(records[p]!);
    }
    const total = area.geo.count(near.lng, near.lat, near.radiusKm, accept);
    const hits = end === 0 ? [] : area.geo.around(near.lng, near.lat, near.radiusKm, accept, end);
    return { items: hits.map((hit) => records[hit.position]!), total, distancesKm: hits.map((hit) => hit.distanceKm) };
  }
  if (positions) {
    const items: R[] = [];
    for (let i = 0; i < positions.length; i++) {
      const record = records[positions[i]!]!;
      if (!filter || filter(record)) items.push(record);
    }
    return { items, total: items.length, distancesKm: null };
  }
  const items = filter ? records.filter(filter) : records;
  return { items, total: items.length, distancesKm: null };
}
