/**
 * The lists' `sort` argument: an enum value per key and direction (`FRESH_SNOW_DESC`), each a
 * comparison of records. Records without a value come last in either direction, and ties fall back
 * to the id ascending, so that the order is total and paging through it never repeats or skips a
 * record. Each order is worked out once per store, area and value, on its first use.
 */

import { sortedPositions } from '../search/orderIndex.ts';

/** The key of one sort: a record's value, or null when it has none. */
export type SortValue<R> = (record: R) => number | string | null | undefined;

/** A sort as a list defines it: its key and direction; `DISTANCE_ASC` is near-me's own order. */
export type SortDefinition<R> = { readonly key: SortValue<R>; readonly descending: boolean } | typeof DISTANCE;

/** The sort of near-me: by distance, nearest first (the order near-me already gives). */
export const DISTANCE = 'distance';

/** An order of an area's positions, and each position's rank in it. */
export interface SortOrder {
  readonly positions: Uint32Array;
  readonly ranks: Uint32Array;
}

const orders = new WeakMap<object, Map<string, SortOrder>>();

/**
 * The order of `records` by a sort, from the cache of their array.
 * @param name the sort's enum value, which the order is remembered by
 * @param collator compares text keys (names) as the locale orders them
 */
export function sortOrderOf<R extends { id: string | number }>(
  records: readonly R[],
  name: string,
  definition: { readonly key: SortValue<R>; readonly descending: boolean },
  collator: Intl.Collator,
): SortOrder {
  let byName = orders.get(records);
  if (byName === undefined) orders.set(records, (byName = new Map()));
  const known = byName.get(name);
  if (known) return known;
  const { key, descending } = definition;
  const sign = descending ? -1 : 1;
  const positions = sortedPositions(records, (a, b) => {
    const x = key(a);
    const y = key(b);
    const xMissing = x === null || x === undefined;
    const yMissing = y === null || y === undefined;
    if (xMissing || yMissing) return xMissing === yMissing ? compareIds(a.id, b.id) : xMissing ? 1 : -1;
    const byKey = typeof x === 'string' ? collator.compare(x, y as string) : (x as number) - (y as number);
    return sign * byKey || compareIds(a.id, b.id);
  });
  const ranks = new Uint32Array(positions.length);
  for (let i = 0; i < positions.length; i++) ranks[positions[i]!] = i;
  const order = { positions, ranks };
  byName.set(name, order);
  return order;
}

function compareIds(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The order of names and titles in a locale, as the store orders them (server/snapshot/store.ts). */
const collators = new Map<string, Intl.Collator>();
export function collatorOf(locale: string): Intl.Collator {
  let collator = collators.get(locale);
  if (!collator) collators.set(locale, (collator = new Intl.Collator(locale, { sensitivity: 'base', numeric: true })));
  return collator;
}
