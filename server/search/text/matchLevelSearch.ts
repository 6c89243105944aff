/**
 * The bitset side of textIndex.ts: a search for words found in many documents, where walking
 * their postings one by one is most of the cost (two words each in most of 20,000 tours:
 * 35,000 postings). Sets of positions as bitsets (search/positionSet.ts) are read 32 at a time.
 *
 * A query word's matches fall into levels, one per match rank it can have (field, kind of
 * match, place in the field), best first. Level i holds the documents whose best match of the
 * word has that rank: the postings of that rank less those of the levels before. A document's
 * rank then follows from one level per word, and the documents with a given combination of
 * levels are the intersection of those levels. So the first page is read off the combinations
 * in rank order, best first, and stops as soon as it is full: a common word's few best levels
 * fill it. The total is the size of the intersection of every word's union of levels.
 */

import { bitCount, wordCount, type Intersection, type PositionSet } from '../positionSet.ts';
import { holdsAsBitset, type ListSelection } from './postingLists.ts';

/** One level of a query word: its packed match rank (matchRanks.ts) and the postings lists that reach it (at least one). */
export interface MatchLevel extends ListSelection {
  rank: number;
}

/** A combination of one level per word (indexes into each word's levels) and its rank. */
interface Combination {
  rank: number;
  levels: number[];
  /** The last word whose level index its parent increased: successors increase this or later ones. */
  last: number;
}

/**
 * Finds the matches of query words by match level (field, kind of match: exact, prefix or typo,
 * and place in the field) over bitsets, best level combinations first.
 */
export class MatchLevelSearch {
  /** 32-bit words per bitset. */
  readonly #setLength: number;
  readonly #size: number;
  /** A document's rank from the ranks of its matches so far and of one more word's match. */
  readonly #combine: (rank: number, next: number) => number;
  // Scratch bitsets, one after the other in one array: a typed array of more than 64 bytes
  // costs an allocation outside the JS heap, and a search takes a few dozen of them. It grows
  // to the largest search so far: a bitset per level and one more per word, each of one bit
  // per document, so it stays bounded: a query counts at most MAX_QUERY_WORDS words.
  #scratch = new Uint32Array(0);

  /**
   * @param size the number of documents
   * @param combine see #combine; must grow strictly with either argument
   */
  constructor(size: number, combine: (rank: number, next: number) => number) {
    this.#size = size;
    this.#setLength = wordCount(size);
    this.#combine = combine;
  }

  /**
   * The documents that match every word, in `filter` (null: all): their number, and the first
   * `end` in rank order, equal ranks by position.
   * @param words per query word, its levels best first, their ranks ascending
   * @param budget bitset words it may read combining levels. Most combinations may hold no
   *   match at all (ten words, each in most documents at a different place in each), and there
   *   can be billions of them.
   * @returns the total, the positions and the packed rank of each (matchRanks.ts); null once it
   *   has read `budget` words and the page is not full yet
   */
  search(
    words: ReadonlyArray<readonly MatchLevel[]>,
    filter: Intersection | null,
    end: number,
    budget: number,
  ): { total: number; positions: number[]; ranks: number[] } | null {
    const { levels, matches, total } = this.#levels(words, filter);
    const positions: number[] = [];
    const ranks: number[] = [];
    if (total === 0) return { total, positions, ranks };
    const { length } = words;
    const W = this.#setLength;
    const scratch = this.#scratch;
    // Only a filter needs each word's levels cut to the matches: without one, the documents of
    // a combination, in one level of every word, are matches already.
    if (filter !== null) {
      for (const wordLevels of levels) {
        let kept = 0;
        for (const level of wordLevels) {
          let any = 0;
          for (let i = 0; i < W; i++) any |= scratch[level.at + i]! &= scratch[matches + i]!;
          if (any !== 0) wordLevels[kept++] = level;
        }
        wordLevels.length = kept;
      }
    }

    const first = new Array<number>(length).fill(0);
    const pending = new CombinationHeap();
    pending.push({ rank: this.#rankOf(levels, first), levels: first, last: 0 });
    // The matches are no longer needed: their bitset holds the documents of one rank when
    // several combinations have it, to be taken by position.
    const group = matches;
    let spent = 0;
    while (pending.size > 0 && positions.length < end) {
      const rank = pending.top.rank;
      const combinations: Combination[] = [];
      while (pending.size > 0 && pending.top.rank === rank) {
        const combination = pending.pop();
        combinations.push(combination);
        spent += length * W;
        if (spent > budget) return null;
        // Each combination is pushed once, by the parent that increased its last nonzero
        // index; it ranks after its parent since ranks grow with every level index.
        for (let w = combination.last; w < length; w++) {
          if (combination.levels[w]! + 1 === levels[w]!.length) continue;
          const next = combination.levels.slice();
          next[w]!++;
          pending.push({ rank: this.#rankOf(levels, next), levels: next, last: w });
        }
      }
      let at = combinations[0]!.levels.map((index, w) => levels[w]![index]!.at);
      if (combinations.length > 1) {
        scratch.fill(0, group, group + W);
        for (const combination of combinations) {
          const each = combination.levels.map((index, w) => levels[w]![index]!.at);
          for (let i = 0; i < W; i++) scratch[group + i]! |= intersection(scratch, each, i);
        }
        at = [group];
      }
      for (let i = 0; i < W && positions.length < end; i++) {
        // bits & -bits isolates the lowest bit still set; bits & (bits - 1) clears it.
        for (let bits = intersection(scratch, at, i); bits !== 0 && positions.length < end; bits &= bits - 1) {
          positions.push((i << 5) | (31 - Math.clz32(bits & -bits)));
          ranks.push(rank);
        }
      }
    }
    return { total, positions, ranks };
  }

  /** The rank of a combination of levels: one index into each word's levels. */
  #rankOf(levels: ReadonlyArray<ReadonlyArray<{ rank: number }>>, indexes: readonly number[]): number {
    let rank = levels[0]![indexes[0]!]!.rank;
    for (let w = 1; w < indexes.length; w++) rank = this.#combine(rank, levels[w]![indexes[w]!]!.rank);
    return rank;
  }

  /**
   * The set of the documents that match every word (see {@link search}): in no order, so without
   * levels, the intersection of each word's union of postings.
   * @param words per query word, every postings list of it
   */
  matchSet(words: readonly ListSelection[]): PositionSet {
    const W = this.#setLength;
    const matches = new Uint32Array(W);
    if (this.#scratch.length < W) this.#scratch = new Uint32Array(W);
    const scratch = this.#scratch;
    for (let w = 0; w < words.length; w++) {
      if (words[w]!.numbers.length === 0) return matches.fill(0);
      this.#union(words[w]!, 0);
      for (let i = 0; i < W; i++) matches[i] = w === 0 ? scratch[i]! : matches[i]! & scratch[i]!;
    }
    return matches;
  }

  /**
   * Computes every word's levels into the scratch (at their offsets), and the set of matches:
   * the documents in a level of every word and in `filter`, and their number.
   */
  #levels(words: ReadonlyArray<readonly MatchLevel[]>, filter: Intersection | null): { levels: Array<Array<{ rank: number; at: number }>>; matches: number; total: number } {
    const W = this.#setLength;
    let slots = 0;
    for (const wordLevels of words) slots += wordLevels.length + 1;
    if (this.#scratch.length < slots * W) this.#scratch = new Uint32Array(slots * W);
    const scratch = this.#scratch;
    const levels: Array<Array<{ rank: number; at: number }>> = [];
    // The first word's union of levels is where the matches are narrowed down.
    const matches = 0;
    let next = 0;
    for (let w = 0; w < words.length; w++) {
      // The word's union of levels so far: each next level is what it adds to them.
      const union = next;
      const kept: Array<{ rank: number; at: number }> = [];
      next += W;
      for (const level of words[w]!) {
        const at = next;
        this.#union(level, at);
        let any = 0;
        if (kept.length === 0) {
          scratch.copyWithin(union, at, at + W);
          any = level.numbers.length;
        } else {
          for (let i = 0; i < W; i++) {
            const added = scratch[at + i]! & ~scratch[union + i]!;
            scratch[at + i] = added;
            scratch[union + i]! |= added;
            any |= added;
          }
        }
        if (any !== 0) {
          kept.push({ rank: level.rank, at });
          next += W;
        }
      }
      levels.push(kept);
      // A word found nowhere leaves its union empty, and with it the matches.
      if (kept.length === 0) scratch.fill(0, union, union + W);
      if (w > 0) for (let i = 0; i < W; i++) scratch[matches + i]! &= scratch[union + i]!;
    }
    let total = 0;
    for (let i = 0; i < W; i++) {
      let bits = scratch[matches + i]!;
      if (filter !== null) {
        for (let s = 0; s < filter.length; s++) bits &= filter[s]![i]!;
        scratch[matches + i] = bits;
      }
      total += bitCount(bits);
    }
    return { levels, matches, total };
  }

  /** Writes the union of the selected lists (at least one, each nonempty) as a bitset at `at` in the scratch. */
  #union({ lists, numbers }: ListSelection, at: number): void {
    const scratch = this.#scratch;
    const W = this.#setLength;
    const { positions, starts, bitsets } = lists;
    for (let n = 0; n < numbers.length; n++) {
      const list = numbers[n]!;
      const start = starts[list]!;
      const end = starts[list + 1]!;
      const bitset = holdsAsBitset(end - start, this.#size) ? bitsets.get(list) : undefined;
      if (bitset && n === 0) scratch.set(bitset, at);
      else if (bitset) for (let i = 0; i < W; i++) scratch[at + i]! |= bitset[i]!;
      else {
        if (n === 0) scratch.fill(0, at, at + W);
        for (let i = start; i < end; i++) scratch[at + (positions[i]! >>> 5)]! |= 1 << (positions[i]! & 31);
      }
    }
  }
}

/** Word `i` of the intersection of the bitsets at offsets `at` in `scratch`. */
function intersection(scratch: Uint32Array, at: readonly number[], i: number): number {
  let bits = scratch[at[0]! + i]!;
  for (let w = 1; w < at.length && bits !== 0; w++) bits &= scratch[at[w]! + i]!;
  return bits;
}

/** A binary min-heap of combinations by rank. */
class CombinationHeap {
  readonly #items: Combination[] = [];

  get size(): number {
    return this.#items.length;
  }

  get top(): Combination {
    return this.#items[0]!;
  }

  push(item: Combination): void {
    const items = this.#items;
    let at = items.length;
    items.push(item);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (items[parent]!.rank <= item.rank) break;
      items[at] = items[parent]!;
      at = parent;
    }
    items[at] = item;
  }

  pop(): Combination {
    const items = this.#items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      let at = 0;
      for (let child = 1; child < items.length; child = 2 * at + 1) {
        if (child + 1 < items.length && items[child + 1]!.rank < items[child]!.rank) child++;
        if (items[child]!.rank >= last.rank) break;
        items[at] = items[child]!;
        at = child;
      }
      items[at] = last;
    }
    return top;
  }
}
