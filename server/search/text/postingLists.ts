/**
 * Postings lists of a text index (textIndex.ts) in one typed array rather than an array each.
 *
 * A list of positions as a JS array costs a header of several words and 8 bytes a position
 * (more where it grew by push), and most lists are short: in the fixture, two lists in three
 * hold a single position. Here list k is positions[starts[k]] up to positions[starts[k + 1]],
 * at 4 bytes a position and 4 a list, which keeps the indexes' heap smaller at no cost to the
 * build (BENCHMARKS.md gives the heap after loading).
 */

import { positionSetOf, wordCount, type PositionSet } from '../positionSet.ts';

/** Numbered postings lists: list k is positions[starts[k]] up to positions[starts[k + 1]]. */
export interface PostingLists {
  /** Every list's positions, ascending within a list, list after list. */
  readonly positions: Int32Array;
  /** Where each list starts in `positions`, and after the last one where it ends. */
  readonly starts: Int32Array;
  /** The lists that {@link holdsAsBitset}, also as bitsets, by list number. */
  readonly bitsets: ReadonlyMap<number, PositionSet>;
}

/** Some of the lists of `lists`: their numbers. */
export interface ListSelection {
  readonly lists: PostingLists;
  readonly numbers: ArrayLike<number>;
}

/**
 * Whether a list of `length` positions among `size` documents is worth holding as a bitset
 * too: when the positions are as many as the bitset's words, or more, reading it costs less
 * than reading them, and its words take at most 4 bytes per position.
 */
export function holdsAsBitset(length: number, size: number): boolean {
  return length > 0 && length >= wordCount(size);
}

/** Collects lists one at a time, numbered from 0 in the order added. */
export class PostingListsBuilder {
  readonly #size: number;
  #positions = new Int32Array(1024);
  #length = 0;
  readonly #starts: number[] = [0];
  readonly #bitsets = new Map<number, PositionSet>();

  /** @param size the number of documents, which positions are below */
  constructor(size: number) {
    this.#size = size;
  }

  /** Adds a list (ascending positions) and returns its number. */
  add(positions: ArrayLike<number>): number {
    const list = this.#starts.length - 1;
    if (this.#length + positions.length > this.#positions.length) {
      const grown = new Int32Array(Math.max(2 * this.#positions.length, this.#length + positions.length));
      grown.set(this.#positions.subarray(0, this.#length));
      this.#positions = grown;
    }
    for (let i = 0; i < positions.length; i++) this.#positions[this.#length++] = positions[i]!;
    this.#starts.push(this.#length);
    if (holdsAsBitset(positions.length, this.#size)) this.#bitsets.set(list, positionSetOf(this.#size, positions));
    return list;
  }

  /** The number the next list added gets. */
  get count(): number {
    return this.#starts.length - 1;
  }

  /** The lists added so far, in arrays of their own size. */
  build(): PostingLists {
    return {
      positions: this.#positions.slice(0, this.#length),
      starts: Int32Array.from(this.#starts),
      bitsets: this.#bitsets,
    };
  }
}
