/**
 * Orders and ranges over a fixed array of records, for the lists' `sort` and range filters: the
 * positions of the records in one sort order, and per numeric field the positions sorted by
 * value, so that a range is two binary searches and a set (positionSet.ts) to intersect with the
 * filter sets, never a test of every record.
 */

import { lowerBound, upperBound } from './binarySearch.ts';
import { hasPosition, positionSetOf, type Intersection, type PositionSet } from './positionSet.ts';

/**
 * The positions 0..records.length-1 ordered by `compare`, equal records by ascending position.
 * @returns a new array; the caller may keep it
 */
export function sortedPositions<R>(records: readonly R[], compare: (a: R, b: R) => number): Uint32Array {
  const positions = Array.from(records.keys());
  positions.sort((a, b) => compare(records[a]!, records[b]!) || a - b);
  return Uint32Array.from(positions);
}

/**
 * The first `max` positions of `order` that lie in every set of `filter` (all of `order`'s first
 * `max` when `filter` is null), in `order`'s order.
 */
export function firstInOrder(order: Uint32Array, filter: Intersection | null, max: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < order.length && out.length < max; i++) {
    const position = order[i]!;
    if (filter === null || hasPosition(filter, position)) out.push(position);
  }
  return out;
}

/** The records with a value of one numeric field, sorted by it; see {@link createRangeIndex}. */
export interface RangeIndex {
  /**
   * The positions whose value lies in [min, max], both included; a bound of null is open. A record
   * without a value lies in no range.
   * @returns a new set; the caller may keep it
   */
  within(min: number | null, max: number | null): PositionSet;
}

/**
 * Builds the range index of one field.
 * @param value a record's value, or null when it has none (NaN counts as none)
 */
export function createRangeIndex<R>(records: readonly R[], value: (record: R) => number | null | undefined): RangeIndex {
  const known: { position: number; value: number }[] = [];
  for (let position = 0; position < records.length; position++) {
    const v = value(records[position]!);
    if (typeof v === 'number' && !Number.isNaN(v)) known.push({ position, value: v });
  }
  known.sort((a, b) => a.value - b.value || a.position - b.position);
  const positions = Uint32Array.from(known, (entry) => entry.position);
  const values = Float64Array.from(known, (entry) => entry.value);
  const size = records.length;
  return {
    within(min, max) {
      const from = min === null ? 0 : lowerBound(values, min);
      const to = max === null ? values.length : upperBound(values, max);
      return positionSetOf(size, from < to ? positions.subarray(from, to) : positions.subarray(0, 0));
    },
  };
}
