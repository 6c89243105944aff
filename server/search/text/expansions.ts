/**
 * Where query words match: each expanded into the indexed words it is a prefix of (the exact
 * word being the shortest case) or one typo away from (typos.ts), with their postings by level
 * (matchRanks.ts), merged into one list per level when many, and remembered across searches.
 */

import { wordCount, type PositionSet } from '../positionSet.ts';
import { lowerBound } from '../binarySearch.ts';
import type { MatchLevel } from './matchLevelSearch.ts';
import { EXACT, KINDS, levelRank, mergedLevel, PREFIX, RESOLUTION, TYPO } from './matchRanks.ts';
import type { PostingLists } from './postingLists.ts';
import type { LeveledLists, PostingsWalk } from './postingsWalk.ts';
import type { TermPostings } from './termPostings.ts';
import { MIN_TYPO_WORD_LENGTH } from './typos.ts';

/**
 * Most postings lists and merged positions the expansions of query words kept per index hold,
 * unless it has more than a quarter as many documents (see #maxExpandedEntries), and most
 * words: enough for every one- and two-letter query at a bounded cost in heap.
 */
const MAX_EXPANDED_ENTRIES = 20_000;
const MAX_EXPANDED_WORDS = 256;

/**
 * A query word matching in more postings lists than this has them merged (Expansions
 * #merge): past it, going from list to list costs a search more than the positions it reads.
 */
const MERGE_ABOVE_LISTS = 16;

/**
 * Where one query word matches: its postings lists by level, a level being a tier (KINDS ×
 * field + kind) and a score, numbered tier × RESOLUTION + score, so in rank order; their total
 * length, and what reading them as bitsets would cost (in 32-bit words).
 */
export interface WordPostings extends LeveledLists {
  /** The index's lists, or the word's own when merged. */
  readonly lists: PostingLists;
  /** Level l's lists are numbers[levelStarts[l]] up to numbers[levelStarts[l + 1]], of `lists`. */
  readonly levelStarts: Int32Array;
  readonly numbers: Int32Array;
  size: number;
  bitsetCost: number;
  /**
   * What keeping the word costs (see {@link Expansions}): the postings lists `numbers` names, and the
   * positions of those that are its own rather than the index's (see Expansions #merge).
   */
  held: number;
  /** Whether its postings are merged (see Expansions #merge): one list per level, disjoint. */
  merged: boolean;
  /** Its levels for matchLevelSearch.ts, made on first use (levelsOf). */
  levels: MatchLevel[] | undefined;
}

/** The postings of query words, expanded once per word and kept while they fit. */
export class Expansions {
  readonly #fieldCount: number;
  /** Every indexed word, sorted, so the words with a given prefix are a contiguous run. */
  readonly #terms: readonly string[];
  readonly #termPostings: TermPostings;
  readonly #lists: PostingLists;
  /** The indexes in #terms of the words one edit away from a query word (typos.ts typoFinder). */
  readonly #typos: (word: string) => Iterable<number>;
  /** Whose scratch merging a word's postings uses. */
  readonly #walk: PostingsWalk;

  /**
   * Query words expanded before, with where they match. A short prefix expands into thousands
   * of words whose postings a search would otherwise gather anew each time; the expansion
   * depends on the word alone. Bounded by what they hold (#expandedEntries: a postings list
   * and a merged position each cost a number), forgotten all at once past #maxExpandedEntries.
   */
  readonly #expansions = new Map<string, WordPostings>();
  #expandedEntries = 0;
  /** MAX_EXPANDED_ENTRIES, or four per document where more: room for a few merged one-letter prefixes. */
  readonly #maxExpandedEntries: number;

  /**
   * @param terms every indexed word, sorted
   * @param termPostings their postings, in `lists`
   * @param typos the indexes in `terms` of the words one edit away from a word (typos.ts)
   * @param walk whose scratch merging uses; its size is the number of documents
   */
  constructor(
    fieldCount: number,
    terms: readonly string[],
    termPostings: TermPostings,
    lists: PostingLists,
    typos: (word: string) => Iterable<number>,
    walk: PostingsWalk,
  ) {
    this.#fieldCount = fieldCount;
    this.#terms = terms;
    this.#termPostings = termPostings;
    this.#lists = lists;
    this.#typos = typos;
    this.#walk = walk;
    this.#maxExpandedEntries = Math.max(MAX_EXPANDED_ENTRIES, 4 * walk.mark.length);
  }

  /** Where a folded query word matches: remembered, or expanded now. */
  postingsOf(word: string): WordPostings {
    const known = this.#expansions.get(word);
    if (known !== undefined) return known;
    let postings = this.#expand(word);
    // As expanded, a word holds its postings lists only.
    if (postings.held > MERGE_ABOVE_LISTS) postings = this.#merge(postings);
    const max = this.#maxExpandedEntries;
    if (this.#expandedEntries + postings.held > max || this.#expansions.size >= MAX_EXPANDED_WORDS) {
      this.#expansions.clear();
      this.#expandedEntries = 0;
    }
    if (postings.held <= max) {
      this.#expansions.set(word, postings);
      this.#expandedEntries += postings.held;
    }
    return postings;
  }

  /**
   * `word`'s postings merged: one list per level, which holds each position once, under its
   * best match, as a search ranks it. A prefix matches thousands of words, each in a few
   * documents, so a one-letter prefix reads hundreds of lists, where merged it reads one per
   * level, or, alone and unfiltered, only its first page (textIndex.ts firstMerged). Costs a
   * walk of the postings, once per word kept.
   */
  #merge(word: WordPostings): WordPostings {
    const { count } = this.#walk.intersect([word]);
    const ranks = this.#walk.ranks;
    const levelCount = word.levelStarts.length - 1;
    // In position order, so each list is ascending.
    const matches = this.#walk.candidates.subarray(0, count).sort();
    // Where each level's list will start: its matches counted, then summed up.
    const cursors = new Int32Array(levelCount + 1);
    for (let i = 0; i < count; i++) cursors[mergedLevel(ranks[matches[i]!]!) + 1]!++;
    const levelStarts = new Int32Array(levelCount + 1);
    const starts: number[] = [];
    for (let level = 0; level < levelCount; level++) {
      levelStarts[level] = starts.length;
      if (cursors[level + 1]! > 0) starts.push(cursors[level]!);
      cursors[level + 1]! += cursors[level]!;
    }
    const listCount = starts.length;
    levelStarts[levelCount] = listCount;
    starts.push(count);
    const positions = new Int32Array(count);
    for (let i = 0; i < count; i++) positions[cursors[mergedLevel(ranks[matches[i]!]!)]!++] = matches[i]!;
    // Merged lists have no bitsets: matchLevelSearch.ts reads them position by position.
    const merged: PostingLists = { positions, starts: Int32Array.from(starts), bitsets: NO_BITSETS };
    const numbers = Int32Array.from({ length: listCount }, (_, list) => list);
    const bitsetCost = count + 2 * listCount * wordCount(this.#walk.mark.length);
    return { lists: merged, levelStarts, numbers, size: count, bitsetCost, held: listCount + count, merged: true, levels: undefined };
  }

  /** Where a query word matches: the words it is a prefix of, or one typo away from, and their postings. */
  #expand(word: string): WordPostings {
    const terms = this.#terms;
    // Indexes into #terms of the words matched, and how.
    const matches: Array<{ at: number; kind: number }> = [];
    for (let i = lowerBound(terms, word); i < terms.length && terms[i]!.startsWith(word); i++) {
      matches.push({ at: i, kind: terms[i] === word ? EXACT : PREFIX });
    }
    if (word.length >= MIN_TYPO_WORD_LENGTH) {
      for (const at of this.#typos(word)) {
        if (!terms[at]!.startsWith(word)) matches.push({ at, kind: TYPO });
      }
    }
    const fieldCount = this.#fieldCount;
    const tierCount = KINDS * fieldCount;
    const postings = this.#termPostings;
    // Lists counted per level (at level + 1), then summed up into where each level's lists start.
    const levelStarts = new Int32Array(tierCount * RESOLUTION + 1);
    let size = 0;
    let listCount = 0;
    // Reading the postings, and per level with lists a pass over two bitsets.
    let bitsetCost = 0;
    for (const { at, kind } of matches) {
      for (let f = 0; f < fieldCount; f++) {
        const entry = at * fieldCount + f;
        const entryScores = postings.scores[entry]!;
        if (entryScores === 0) continue;
        const tier = KINDS * f + kind;
        size += postings.sizes[entry]!;
        bitsetCost += postings.readCosts[entry]!;
        for (let bits = entryScores; bits !== 0; bits &= bits - 1) {
          levelStarts[tier * RESOLUTION + lowestBit(bits) + 1]!++;
          listCount++;
        }
      }
    }
    const bitsetWords = wordCount(this.#walk.mark.length);
    for (let level = 0; level + 1 < levelStarts.length; level++) {
      if (levelStarts[level + 1]! > 0) bitsetCost += 2 * bitsetWords;
      levelStarts[level + 1]! += levelStarts[level]!;
    }
    // Each level's lists in the order of the matches: `filled` is where a level's next one goes.
    const numbers = new Int32Array(listCount);
    const filled = levelStarts.slice(0, -1);
    for (const { at, kind } of matches) {
      for (let f = 0; f < fieldCount; f++) {
        const entry = at * fieldCount + f;
        const tier = KINDS * f + kind;
        let list = postings.firstLists[entry]!;
        for (let bits = postings.scores[entry]!; bits !== 0; bits &= bits - 1) {
          numbers[filled[tier * RESOLUTION + lowestBit(bits)]!++] = list++;
        }
      }
    }
    return { lists: this.#lists, levelStarts, numbers, size, bitsetCost, held: listCount, merged: false, levels: undefined };
  }
}

/** The lists of a merged word have no bitsets. */
const NO_BITSETS: ReadonlyMap<number, PositionSet> = new Map();

/** The index of the lowest bit set in `bits` (not 0). */
function lowestBit(bits: number): number {
  return 31 - Math.clz32(bits & -bits);
}

/** A word's postings as levels (matchLevelSearch.ts): one per tier and score with lists, best first; made once per word. */
export function levelsOf(word: WordPostings): MatchLevel[] {
  return (word.levels ??= levelsOfWord(word));
}

function levelsOfWord({ lists, levelStarts, numbers }: WordPostings): MatchLevel[] {
  const levels: MatchLevel[] = [];
  for (let level = 0; level + 1 < levelStarts.length; level++) {
    const start = levelStarts[level]!;
    const end = levelStarts[level + 1]!;
    if (start === end) continue;
    levels.push({ rank: levelRank(level), lists, numbers: numbers.subarray(start, end) });
  }
  return levels;
}
