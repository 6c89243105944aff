/**
 * Facet counts: for each value of one filter, how many positions of a base set have it, read
 * word by word from the filter index's sets (filterIndex.ts) and the base's, never from records.
 */

import { bitCount, type Intersection, type PositionSet } from './positionSet.ts';

/**
 * The number of positions in the intersection of `base` and each value's set.
 * @param base the sets the count is restricted to; null counts each value's whole set
 * @param values per value, its set (all of one size)
 * @returns the counts, in the order of `values`
 */
export function countFacetValues<V>(base: Intersection | null, values: ReadonlyMap<V, PositionSet>): Map<V, number> {
  const counts = new Map<V, number>();
  if (values.size === 0) return counts;
  let words: Uint32Array | null = null;
  if (base !== null && base.length > 0) {
    // The base once as one set, so that each value reads two words rather than every base set's.
    words = new Uint32Array(base[0]!);
    for (let s = 1; s < base.length; s++) {
      const set = base[s]!;
      for (let w = 0; w < words.length; w++) words[w]! &= set[w]!;
    }
  }
  for (const [value, set] of values) {
    let count = 0;
    if (words === null) for (let w = 0; w < set.length; w++) count += bitCount(set[w]!);
    else for (let w = 0; w < set.length; w++) count += bitCount(set[w]! & words[w]!);
    counts.set(value, count);
  }
  return counts;
}
