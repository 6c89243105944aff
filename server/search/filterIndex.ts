/**
 * Exact-value filters over a fixed array of records, built once per locale and area: per filter
 * argument and per value, the set of positions whose record has that value. A list with several
 * filters reads the intersection of their sets: a few hundred word operations even on the 10x
 * data, where testing the records one by one reads every record object of the area.
 */

import { runSteps, type Steps } from '../util/timeSlice.ts';

/**
 * A set of positions 0..size-1 as a bitset: position p is in the set when bit (p & 31) of
 * word (p >>> 5) is 1. Bits at or past `size` are always 0.
 */
export type PositionSet = Uint32Array;

/**
 * The positions in every one of the sets (all of one size, at least one set). Read word by
 * word rather than computed into a new set: a typed array of more than 64 bytes is allocated
 * outside the JS heap, which costs more than the intersection itself.
 */
export type Intersection = readonly PositionSet[];

/** The values of one filter that a record has: one, several (an array), or none (null). */
export type FilterValues = string | boolean | readonly string[] | null | undefined;

/** A condition's value; null or undefined means the argument was not given. */
export type FilterCondition = string | boolean | null | undefined;

/** The sets of the filters given to {@link createFilterIndex}. */
export interface FilterIndex<F extends string> {
  /**
   * The positions whose record has, for every condition given, the condition's value among its
   * values (compared as `===` and `Array.prototype.includes` would). A value no record has
   * matches nothing.
   * @returns null when no condition is given (no filtering); otherwise the sets of the
   *   conditions, held by the index: the caller must not modify them
   */
  match(conditions: { readonly [N in F]?: FilterCondition }): Intersection | null;
}

/**
 * Builds the index.
 * @param records the records, whose positions the sets hold
 * @param filters per filter argument, the values of a record; null and undefined values are
 *   not indexed, since a condition of null means "not filtered", never "is null"
 */
export function createFilterIndex<R, F extends string>(records: readonly R[], filters: { readonly [N in F]: (record: R) => FilterValues }): FilterIndex<F> {
  return runSteps(filterIndexSteps(records, filters));
}

/** {@link createFilterIndex} as steps (server/util/timeSlice.ts): the same index. */
export function* filterIndexSteps<R, F extends string>(records: readonly R[], filters: { readonly [N in F]: (record: R) => FilterValues }): Steps<FilterIndex<F>> {
  const words = wordCount(records.length);
  const names = Object.keys(filters) as F[];
  const byFilter = new Map<F, Map<string | boolean, PositionSet>>(names.map((name) => [name, new Map()]));
  const add = (byValue: Map<string | boolean, PositionSet>, value: string | boolean, position: number) => {
    let set = byValue.get(value);
    if (!set) byValue.set(value, (set = new Uint32Array(words)));
    set[position >>> 5]! |= 1 << (position & 31);
  };
  // Record by record, every filter at once: each record object is read from memory only once.
  for (let position = 0; position < records.length; position++) {
    if (position % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const record = records[position]!;
    for (const name of names) {
      const values = filters[name](record);
      if (values === null || values === undefined) continue;
      const byValue = byFilter.get(name)!;
      if (typeof values === 'object') for (const value of values) add(byValue, value, position);
      else add(byValue, values, position);
    }
  }
  return new BitsetFilterIndex(byFilter, new Uint32Array(words));
}

/** Records indexed per step. */
const RECORDS_PER_STEP = 1024;

class BitsetFilterIndex<F extends string> implements FilterIndex<F> {
  readonly #byFilter: ReadonlyMap<F, ReadonlyMap<string | boolean, PositionSet>>;
  readonly #empty: PositionSet;

  constructor(byFilter: ReadonlyMap<F, ReadonlyMap<string | boolean, PositionSet>>, empty: PositionSet) {
    this.#byFilter = byFilter;
    this.#empty = empty;
  }

  match(conditions: { readonly [N in F]?: FilterCondition }): Intersection | null {
    const sets: PositionSet[] = [];
    for (const [name, byValue] of this.#byFilter) {
      const value = conditions[name];
      if (value !== null && value !== undefined) sets.push(byValue.get(value) ?? this.#empty);
    }
    return sets.length === 0 ? null : sets;
  }
}

/** The number of 32-bit words of a set of positions 0..size-1. */
export function wordCount(size: number): number {
  return (size + 31) >>> 5;
}

/** The set of `positions` (each below `size`). */
export function positionSetOf(size: number, positions: ArrayLike<number>): PositionSet {
  const set = new Uint32Array(wordCount(size));
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i]!;
    set[position >>> 5]! |= 1 << (position & 31);
  }
  return set;
}

/** Word `w` of the intersection of `sets`. */
function wordOf(sets: Intersection, w: number): number {
  let bits = sets[0]![w]!;
  for (let s = 1; s < sets.length; s++) bits &= sets[s]![w]!;
  return bits;
}

export function hasPosition(sets: Intersection, position: number): boolean {
  const w = position >>> 5;
  const bit = position & 31;
  for (let s = 0; s < sets.length; s++) {
    if (((sets[s]![w]! >>> bit) & 1) === 0) return false;
  }
  return true;
}

/** The number of positions in the intersection. */
export function countPositions(sets: Intersection): number {
  let count = 0;
  for (let w = 0; w < sets[0]!.length; w++) count += bitCount(wordOf(sets, w));
  return count;
}

/** The number of positions from `first` to `last` (both included, 0 <= first <= last < size) in the intersection. */
export function countPositionsBetween(sets: Intersection, first: number, last: number): number {
  const firstWord = first >>> 5;
  const lastWord = last >>> 5;
  // Masks of the bits at or after `first` in its word and at or before `last` in its word.
  const fromFirst = -1 << (first & 31);
  const toLast = -1 >>> (31 - (last & 31));
  if (firstWord === lastWord) return bitCount(wordOf(sets, firstWord) & fromFirst & toLast);
  let count = bitCount(wordOf(sets, firstWord) & fromFirst) + bitCount(wordOf(sets, lastWord) & toLast);
  for (let w = firstWord + 1; w < lastWord; w++) count += bitCount(wordOf(sets, w));
  return count;
}

/** The number of bits set in a 32-bit word: summed in pairs, nibbles, then bytes (SWAR popcount). */
export function bitCount(bits: number): number {
  bits -= (bits >>> 1) & 0x55555555;
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The smallest `max` positions of the intersection (all when it has fewer), ascending. */
export function firstPositions(sets: Intersection, max: number): number[] {
  const positions: number[] = [];
  for (let w = 0; w < sets[0]!.length && positions.length < max; w++) {
    // bits & -bits isolates the lowest bit still set; bits & (bits - 1) clears it.
    for (let bits = wordOf(sets, w); bits !== 0 && positions.length < max; bits &= bits - 1) {
      positions.push((w << 5) | (31 - Math.clz32(bits & -bits)));
    }
  }
  return positions;
}
