/**
 * Range filters over one number per record (a price, a distance): the positions sorted by value
 * once, so that the records within a range are found by two binary searches and handed on as a
 * set of positions (positionSet.ts), which intersects with the exact-value filters' sets
 * (filterIndex.ts) and which a facet count can intersect as well.
 */

import { type PositionSet, wordCount } from './positionSet.ts';

export interface RangeIndex {
  /**
   * The positions whose value lies in `[min, max]` (both included; null leaves that side open).
   * A record without a value lies in no range.
   * @returns a new set; the caller may keep or change it
   */
  between(min: number | null, max: number | null): PositionSet;
}

/**
 * @param values per position, the record's value; null (or NaN) when it has none
 */
export function createRangeIndex(values: readonly (number | null)[]): RangeIndex {
  const positions: number[] = [];
  for (let p = 0; p < values.length; p++) {
    const value = values[p];
    if (value !== null && value !== undefined && !Number.isNaN(value)) positions.push(p);
  }
  positions.sort((a, b) => values[a]! - values[b]! || a - b);
  const sorted = Float64Array.from(positions, (p) => values[p]!);
  const at = Uint32Array.from(positions);
  const words = wordCount(values.length);
  return {
    between(min, max) {
      const set = new Uint32Array(words);
      const first = min === null ? 0 : lowerBound(sorted, min);
      const end = max === null ? sorted.length : upperBound(sorted, max);
      for (let i = first; i < end; i++) {
        const p = at[i]!;
        set[p >>> 5]! |= 1 << (p & 31);
      }
      return set;
    },
  };
}

/** The first index whose value is >= `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose value is > `value`. */
function upperBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
