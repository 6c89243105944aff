/**
 * Sets of record positions as bitsets, and reading the intersection of several without making
 * it: the filter index's sets, the text index's long postings lists and its matches, and the
 * geo index's filter are all such sets, of the positions of one area's records.
 */

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

/** Whether `position` is in the intersection. */
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
