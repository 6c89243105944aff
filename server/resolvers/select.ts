/**
 * Selects the records of one area that match a list query, in result order:
 * by distance with near-me, else best text match first with q, else the area's default order.
 */

import type { AreaStore } from '../store.ts';
import type { NearMe } from './args.ts';

export interface Selection<R> {
  /** Every match, in result order. */
  readonly items: readonly R[];
  /** Great-circle distance in km per item, only with near-me. */
  readonly distancesKm: readonly number[] | null;
}

export function selectRecords<R>(
  area: AreaStore<R>,
  options: { q: string | null; near: NearMe | null; filter: ((record: R) => boolean) | null },
): Selection<R> {
  const { records } = area;
  const { q, near, filter } = options;

  let positions: ArrayLike<number> | null = q === null ? null : area.text.search(q);
  if (near) {
    let accept: ((position: number) => boolean) | undefined;
    if (positions) {
      const matched = new Uint8Array(records.length);
      for (let i = 0; i < positions.length; i++) matched[positions[i]!] = 1;
      accept = filter ? (p) => matched[p] === 1 && filter(records[p]!) : (p) => matched[p] === 1;
    } else if (filter) {
      accept = (p) => filter(records[p]!);
    }
    const hits = area.geo.around(near.lng, near.lat, near.radiusKm, accept);
    return { items: hits.map((hit) => records[hit.position]!), distancesKm: hits.map((hit) => hit.distanceKm) };
  }
  if (positions) {
    const items: R[] = [];
    for (let i = 0; i < positions.length; i++) {
      const record = records[positions[i]!]!;
      if (!filter || filter(record)) items.push(record);
    }
    return { items, distancesKm: null };
  }
  return { items: filter ? records.filter(filter) : records, distancesKm: null };
}
