/**
 * Orders the matches a postings walk found (postingsWalk.ts) by their packed ranks
 * (matchRanks.ts), then by position, putting in order only as many as the caller needs.
 */

import { KINDS, keyOf, ranksBefore, RESOLUTION } from './matchRanks.ts';
import type { PostingsWalk } from './postingsWalk.ts';

/** Pages ending up to here are picked from many matches with a heap of their size (Ranking #best). */
export const MAX_HEAP_END = 128;

/** Ranks the candidates of one {@link PostingsWalk}; one ranking at a time. */
export class Ranking {
  readonly #mark: Int32Array;
  readonly #ranks: Int32Array;
  readonly #candidates: Int32Array;
  readonly #fieldCount: number;
  // Scratch of rank, grown to the largest size asked so far: the counts per key, and the
  // keys per candidate. Typed arrays above 64 bytes live outside the JS heap and cost a
  // malloc each, which a search of a few matches would otherwise spend most of its time on.
  #counts = new Int32Array(0);
  #keys = new Int32Array(0);
  /** Scratch of #best: its heap, a packed rank and a position per entry. */
  readonly #heap = new Int32Array(2 * MAX_HEAP_END);

  /**
   * @param walk whose scratch arrays hold the candidates
   * @param fieldCount text fields per document
   */
  constructor(walk: PostingsWalk, fieldCount: number) {
    this.#mark = walk.mark;
    this.#ranks = walk.ranks;
    this.#candidates = walk.candidates;
    this.#fieldCount = fieldCount;
  }

  /**
   * The first `end` (1..count) of the first `count` candidates (all marked with `stamp`) by worst
   * tier, tier sum, score sum, then position. Those keys are small integers. A few candidates are
   * sorted on key and position packed into one 32-bit integer. Otherwise a first page well short
   * of them all is picked in one pass with a heap of its size (#best), the usual case. Past that,
   * the candidates per key are counted; when only some are needed, that tells the key of the
   * last one needed, and only the candidates up to it are sorted (#firstRanked). Otherwise all
   * are ordered by a counting sort over the keys fed in position order, which a scan of every
   * position gives.
   */
  rank(count: number, stamp: number, wordCount: number, end: number): ArrayLike<number> {
    const ranks = this.#ranks;
    const size = this.#mark.length;
    const tierCount = KINDS * this.#fieldCount;
    const tierSpan = (tierCount - 1) * wordCount + 1;
    const scoreSpan = (RESOLUTION - 1) * wordCount + 1;
    const keyCount = tierCount * tierSpan * scoreSpan;
    const keys = this.#scratchKeys(count);
    const inOrder = this.#candidates.subarray(0, count);

    if (count * 16 < size && keyCount * size <= 0x7fffffff) {
      for (let i = 0; i < count; i++) {
        const p = inOrder[i]!;
        keys[i] = keyOf(ranks[p]!, tierSpan, scoreSpan) * size + p;
      }
      keys.sort();
      const ranked = new Array<number>(end);
      for (let i = 0; i < end; i++) ranked[i] = keys[i]! % size;
      return ranked;
    }

    // A page near the count would take most candidates through the heap: counting is cheaper then.
    if (end <= MAX_HEAP_END && end * 4 < count) return this.#best(inOrder, end);

    // Only ordering them all needs the candidates in position order.
    if (end === count) this.#marked(stamp, inOrder);
    const counts = this.#zeroedCounts(keyCount + 1);
    for (let i = 0; i < count; i++) {
      const p = inOrder[i]!;
      const key = keyOf(ranks[p]!, tierSpan, scoreSpan);
      keys[i] = key;
      counts[key + 1]!++;
    }
    if (end < count) return this.#firstRanked(counts, inOrder, keys, stamp, end, tierSpan, scoreSpan);
    for (let k = 1; k < counts.length; k++) counts[k]! += counts[k - 1]!;
    const ranked = new Int32Array(count);
    for (let i = 0; i < count; i++) ranked[counts[keys[i]!]!++] = inOrder[i]!;
    return ranked;
  }

  /**
   * The first `end` candidates in rank order, given the number of candidates per key
   * (counts[key + 1]) and each candidate's key (keys[i] for candidates[i]). Those with a key below
   * the last one's are fewer than `end` and sorted. Of those sharing the last one's key, the
   * ones with the smallest positions are needed: when they are few they are sorted too, else
   * found by scanning positions upwards, which stops once it has them.
   */
  #firstRanked(counts: Int32Array, candidates: Int32Array, keys: Int32Array, stamp: number, end: number, tierSpan: number, scoreSpan: number): ArrayLike<number> {
    const size = this.#mark.length;
    // The last one needed has key `last`; `before` candidates have a smaller key.
    let last = 0;
    let before = 0;
    while (before + counts[last + 1]! < end) before += counts[1 + last++]!;
    const ties = counts[last + 1]!;
    // Scanning finds `end - before` of the ties in about size × (end - before) / ties positions.
    const sortTies = ties <= 4 * (end - before) + 32;
    // Key and position as one exact double, for any number of words.
    const sorted = new Float64Array(before + (sortTies ? ties : 0));
    let n = 0;
    for (let i = 0; i < candidates.length; i++) {
      const key = keys[i]!;
      if (key < last || (sortTies && key === last)) sorted[n++] = key * size + candidates[i]!;
    }
    sorted.sort();
    const ranked = end * 16 < size ? new Array<number>(end) : new Int32Array(end);
    const fromSorted = sortTies ? end : before;
    for (let i = 0; i < fromSorted; i++) ranked[i] = sorted[i]! % size;
    if (sortTies) return ranked;
    const mark = this.#mark;
    const ranks = this.#ranks;
    for (let p = 0, i = before; i < end; p++) {
      if (mark[p] === stamp && keyOf(ranks[p]!, tierSpan, scoreSpan) === last) ranked[i++] = p;
    }
    return ranked;
  }

  /**
   * The first `end` of `candidates` in rank order, picked in one pass: a max-heap holds the best
   * so far by packed rank (which orders as the keys do) then position, and a candidate that does
   * not beat its top, as most do not, costs two comparisons. Cheaper than counting the keys of
   * them all while `end` is small. The heap is then emptied worst first into the answer.
   */
  #best(candidates: Int32Array, end: number): ArrayLike<number> {
    const ranks = this.#ranks;
    const heap = this.#heap;
    let filled = 0;
    // The top of the heap once it is full, kept at hand: what a candidate has to beat.
    let worstRank = 0;
    let worstPosition = 0;
    for (let i = 0; i < candidates.length; i++) {
      const position = candidates[i]!;
      const rank = ranks[position]!;
      if (filled === end) {
        if (!ranksBefore(rank, position, worstRank, worstPosition)) continue;
        siftDown(heap, end, rank, position);
      } else {
        // Sift up from the end.
        let at = filled++;
        while (at > 0) {
          const parent = (at - 1) >> 1;
          if (ranksBefore(rank, position, heap[2 * parent]!, heap[2 * parent + 1]!)) break;
          heap[2 * at] = heap[2 * parent]!;
          heap[2 * at + 1] = heap[2 * parent + 1]!;
          at = parent;
        }
        heap[2 * at] = rank;
        heap[2 * at + 1] = position;
      }
      worstRank = heap[0]!;
      worstPosition = heap[1]!;
    }
    const ranked = new Array<number>(end);
    for (let size = end; size > 0; size--) {
      ranked[size - 1] = heap[1]!;
      siftDown(heap, size - 1, heap[2 * (size - 1)]!, heap[2 * (size - 1) + 1]!);
    }
    return ranked;
  }

  /** Writes the positions marked with `stamp`, ascending, into `positions` (as many as it holds). */
  #marked(stamp: number, positions: Int32Array): void {
    const mark = this.#mark;
    for (let p = 0, i = 0; i < positions.length; p++) {
      if (mark[p] === stamp) positions[i++] = p;
    }
  }

  /** `length` zeroed counts, in the scratch array. */
  #zeroedCounts(length: number): Int32Array {
    if (this.#counts.length < length) this.#counts = new Int32Array(length);
    const counts = this.#counts.subarray(0, length);
    counts.fill(0);
    return counts;
  }

  /** Room for `length` keys, in the scratch array. */
  #scratchKeys(length: number): Int32Array {
    if (this.#keys.length < length) this.#keys = new Int32Array(length);
    return this.#keys.subarray(0, length);
  }
}

/**
 * Puts (rank, position) at the top of the max-heap of `size` entries in `heap` (a packed rank and
 * a position per entry, the worst on top), in place of the top, and sifts it down.
 */
function siftDown(heap: Int32Array, size: number, rank: number, position: number): void {
  let at = 0;
  for (let child = 1; child < size; child = 2 * at + 1) {
    const right = child + 1;
    if (right < size && ranksBefore(heap[2 * child]!, heap[2 * child + 1]!, heap[2 * right]!, heap[2 * right + 1]!)) child = right;
    if (ranksBefore(heap[2 * child]!, heap[2 * child + 1]!, rank, position)) break;
    heap[2 * at] = heap[2 * child]!;
    heap[2 * at + 1] = heap[2 * child + 1]!;
    at = child;
  }
  heap[2 * at] = rank;
  heap[2 * at + 1] = position;
}
