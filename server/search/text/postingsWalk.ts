/**
 * Finds the documents matching every query word by walking their postings one by one, with the
 * packed rank of each document's matches (matchRanks.ts). Its scratch arrays hold one entry
 * per document and are reused across searches, which are synchronous.
 */

import { hasPosition, type Intersection } from '../positionSet.ts';
import { addMatch, levelRank, MAX_QUERY_WORDS } from './matchRanks.ts';
import type { PostingLists } from './postingLists.ts';

/**
 * A query word's postings lists by level (matchRanks.ts), best level first: level l's lists are
 * numbers[levelStarts[l]] up to numbers[levelStarts[l + 1]], of `lists`.
 */
export interface LeveledLists {
  readonly lists: PostingLists;
  readonly levelStarts: Int32Array;
  readonly numbers: Int32Array;
}

/** The result of {@link PostingsWalk.intersect}. */
export interface WalkResult {
  /** The matches are candidates[0..count). */
  count: number;
  /** The stamp the matches are marked with in `mark`. */
  stamp: number;
  /** The number of query words walked. */
  wordCount: number;
}

/** Walks postings over a fixed number of documents; one walk at a time. */
export class PostingsWalk {
  // A position matches the words seen so far while mark[position] equals the latest word's
  // stamp, which spares clearing the arrays on every search. candidates lists those positions.
  /** Per position, the stamp of the last word it matched. */
  readonly mark: Int32Array;
  /** Per position, the packed rank of its matches so far (matchRanks.ts). */
  readonly ranks: Int32Array;
  /** The positions matching so far, first `count` of them (see {@link intersect}). */
  readonly candidates: Int32Array;
  #stamp = 0;

  /** @param size the number of documents */
  constructor(size: number) {
    this.mark = new Int32Array(size);
    this.ranks = new Int32Array(size);
    this.candidates = new Int32Array(size);
  }

  /**
   * Finds the documents matching every word: they are the first `count` entries of
   * `candidates`, and marked with `stamp` in `mark`, their match ranks in `ranks`.
   */
  intersect(perWord: readonly LeveledLists[]): WalkResult {
    let count = 0;
    let previous = 0;
    // Each word takes a fresh stamp; start over before they could run out mid-search. Stamps
    // start at 1, so a mark of 0 is never a match.
    if (this.#stamp > 0x7fffffff - MAX_QUERY_WORDS) {
      this.mark.fill(0);
      this.#stamp = 0;
    }

    for (let w = 0; w < perWord.length; w++) {
      const first = w === 0;
      const current = ++this.#stamp;
      const { lists, levelStarts, numbers } = perWord[w]!;
      const { positions, starts } = lists;
      // The candidates that match this word too are listed anew, as its postings reach them.
      let kept = 0;
      // Levels in rank order, so the first posting of a position is its best match for this word.
      for (let level = 0; level + 1 < levelStarts.length; level++) {
        const end = levelStarts[level + 1]!;
        let n = levelStarts[level]!;
        if (n === end) continue;
        const rank = levelRank(level);
        for (; n < end; n++) {
          const list = numbers[n]!;
          kept = first
            ? this.#collect(positions, starts[list]!, starts[list + 1]!, rank, current, kept)
            : this.#narrow(positions, starts[list]!, starts[list + 1]!, rank, previous, current, kept);
        }
      }
      count = kept;
      previous = current;
      if (count === 0) break;
    }
    return { count, stamp: previous, wordCount: perWord.length };
  }

  /**
   * Lists the positions[start..end) not yet marked with `stamp` as candidates from `count` on,
   * with the packed rank of their match.
   */
  #collect(positions: Int32Array, start: number, end: number, rank: number, stamp: number, count: number): number {
    const mark = this.mark;
    const ranks = this.ranks;
    const candidates = this.candidates;
    for (let i = start; i < end; i++) {
      const position = positions[i]!;
      if (mark[position] === stamp) continue;
      mark[position] = stamp;
      ranks[position] = rank;
      candidates[count++] = position;
    }
    return count;
  }

  /**
   * Moves the positions[start..end) still marked `previous` (candidates of the words before) on
   * to `stamp`, adding the packed rank of their match, and lists them as candidates from `count` on.
   */
  #narrow(positions: Int32Array, start: number, end: number, match: number, previous: number, stamp: number, count: number): number {
    const mark = this.mark;
    const ranks = this.ranks;
    const candidates = this.candidates;
    for (let i = start; i < end; i++) {
      const position = positions[i]!;
      if (mark[position] !== previous) continue;
      mark[position] = stamp;
      ranks[position] = addMatch(ranks[position]!, match);
      candidates[count++] = position;
    }
    return count;
  }

  /** Keeps the first `count` candidates that are in `filter` (unmarking the others); returns how many. */
  keepOnly(filter: Intersection, count: number): number {
    const mark = this.mark;
    const candidates = this.candidates;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const position = candidates[i]!;
      if (hasPosition(filter, position)) candidates[kept++] = position;
      else mark[position] = 0;
    }
    return kept;
  }
}
