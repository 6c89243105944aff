/**
 * Fuzzy full-text search over a fixed array of documents, built once per locale and area: the
 * public surface of text/.
 *
 * Documents and queries are folded the same way (words.ts). A query word matches a document
 * word that starts with it (an exact word being the shortest case), or, when the query word
 * has MIN_TYPO_WORD_LENGTH letters or more, a document word one edit away from it (typos.ts).
 * A document matches when every query word matches one of its words.
 *
 * Where each query word matches comes from the postings of the indexed words (termPostings.ts,
 * expansions.ts). The matches are then found by walking those postings one by one
 * (postingsWalk.ts, then ranking.ts), or, when the words are found in so many documents that
 * reading sets of them 32 at a time costs less, by matchLevelSearch.ts.
 */

import { runSteps, type Steps } from '../../util/timeSlice.ts';
import { positionSetOf, type Intersection, type PositionSet } from '../positionSet.ts';
import { Expansions, levelsOf, type WordPostings } from './expansions.ts';
import { MatchLevelSearch } from './matchLevelSearch.ts';
import { addMatch, levelRank, MAX_FIELDS, MAX_QUERY_WORDS } from './matchRanks.ts';
import { PostingsWalk } from './postingsWalk.ts';
import { MAX_HEAP_END, Ranking } from './ranking.ts';
import { indexTerms, type IndexedTerms } from './termPostings.ts';
import { typoFinder, typoKeys } from './typos.ts';
import { queryWords } from './words.ts';

// The limits callers check their input against, from the modules that set them.
export { EXACT, KINDS, MAX_FIELDS, MAX_QUERY_WORDS, RESOLUTION, scoreSumOf, tierSumOf, TYPO, worstTierOf } from './matchRanks.ts';
export { MIN_TYPO_WORD_LENGTH } from './typos.ts';
export { matchedSpans, type Span } from './highlight.ts';
export { queryWords } from './words.ts';

/** A search over the documents given to {@link createTextIndex}. */
export interface TextIndex {
  /**
   * Finds the documents matching all words of `query`, best first. A word's match is ranked by
   * field (first field best), then kind (exact word, then prefix, then typo); a document ranks
   * by its worst word, then by the sum over its words, then by how near the start of their
   * field its words are, then by position. Only the first MAX_QUERY_WORDS distinct words count.
   * @param options.filter only documents whose positions are in it count (filterIndex.ts); null
   *   or absent for all
   * @param options.end the caller needs the ranked matches up to this index (offset + limit;
   *   absent: all of them). Only that many are ordered, since ordering every match of a common
   *   word is most of the cost of a search.
   * @returns `total`, the number of matches, and `positions`, the first `end` of them (all when
   *   there are fewer) as indexes into the `docs` given at build time; or null when `query` has
   *   no word at all (empty, blanks, punctuation), which callers treat as "no text filter".
   *   `positions` is an array for a few, an Int32Array for many: a typed array of more than
   *   64 bytes costs an allocation outside the JS heap, which for a few positions is most of
   *   a search, and a large plain array costs more.
   * @param options.ranks also give the packed match rank of each position (`ranks`, read by
   *   worstTierOf, tierSumOf and scoreSumOf), for callers that weigh matches against others
   */
  search(query: string, options?: SearchOptions): TextMatches | null;

  /**
   * The set of the documents matching all words of `query`, as {@link search} finds them, in
   * no order; null when `query` has no word at all. For callers that order matches otherwise
   * (near-me orders them by distance).
   */
  matchSet(query: string): PositionSet | null;
}

/** The options of {@link TextIndex.search}. */
export interface SearchOptions {
  filter?: Intersection | null;
  end?: number;
  ranks?: boolean;
}

/** What {@link TextIndex.search} finds. */
export interface TextMatches {
  /** Number of matches. */
  total: number;
  /** The first matches, best first (see {@link TextIndex.search}). */
  positions: ArrayLike<number>;
  /** With `options.ranks`: the packed match rank of each of `positions` (matchRanks.ts). */
  ranks?: ArrayLike<number>;
}

/**
 * Builds the index.
 * @param docs one entry per document: its text fields in priority order (e.g. `[name,
 *   abstract]`); a null or empty field is skipped. Every document has the same number of
 *   fields.
 * @throws RangeError when a document has a different number of fields than the first, or
 *   documents have more than MAX_FIELDS fields.
 */
export function createTextIndex(docs: ReadonlyArray<ReadonlyArray<string | null>>): TextIndex {
  return textIndexOf(runSteps(textIndexPartsSteps(docs)));
}

/**
 * What a text index is made of, computed from its documents alone: plain data and typed
 * arrays, so that a worker thread can compute them and hand them over (server/snapshot/loadWorker.ts),
 * leaving {@link textIndexOf} little to do on the thread that serves.
 */
export interface TextIndexParts extends IndexedTerms {
  /** Documents indexed. */
  size: number;
  fieldCount: number;
  /** The typo index of `terms` (typos.ts). */
  typoKeys: Float64Array;
}

/** The parts of {@link createTextIndex}'s index of `docs`, as steps; the same errors. */
export function* textIndexPartsSteps(docs: ReadonlyArray<ReadonlyArray<string | null>>): Steps<TextIndexParts> {
  const fieldCount = docs[0]?.length ?? 0;
  if (fieldCount > MAX_FIELDS) throw new RangeError(`documents have ${fieldCount} text fields; at most ${MAX_FIELDS} are supported`);
  const indexed = yield* indexTerms(docs, fieldCount);
  return { ...indexed, size: docs.length, fieldCount, typoKeys: yield* typoKeys(indexed.terms) };
}

/** The typed arrays among `parts`: what a thread that computed them can transfer rather than copy. */
export function textIndexPartsArrays(parts: TextIndexParts): ArrayBufferView[] {
  return [parts.typoKeys, ...Object.values(parts.postings), parts.lists.positions, parts.lists.starts, ...parts.lists.bitsets.values()];
}

/** The index made of its parts. */
export function textIndexOf(parts: TextIndexParts): TextIndex {
  const walk = new PostingsWalk(parts.size);
  const expansions = new Expansions(parts.fieldCount, parts.terms, parts.postings, parts.lists, typoFinder(parts.terms, parts.typoKeys), walk);
  return new FuzzyTextIndex(walk, new Ranking(walk, parts.fieldCount), expansions, new MatchLevelSearch(parts.size, addMatch));
}

class FuzzyTextIndex implements TextIndex {
  readonly #walk: PostingsWalk;
  readonly #ranking: Ranking;
  readonly #expansions: Expansions;
  readonly #matchLevelSearch: MatchLevelSearch;

  constructor(walk: PostingsWalk, ranking: Ranking, expansions: Expansions, matchLevelSearch: MatchLevelSearch) {
    this.#walk = walk;
    this.#ranking = ranking;
    this.#expansions = expansions;
    this.#matchLevelSearch = matchLevelSearch;
  }

  search(query: string, options: SearchOptions = {}): TextMatches | null {
    const perWord = this.#wordPostings(query);
    if (perWord === null) return null;
    const { filter = null, ranks = false } = options;
    // The merged postings of a word are its matches in rank order already.
    if (perWord.length === 1 && perWord[0]!.merged && filter === null) return firstMerged(perWord[0]!, options.end ?? Infinity, ranks);
    // A page is read off levels only while short: each of its ranks costs a pass over bitsets.
    const costs = this.#costs(perWord);
    if (options.end !== undefined && options.end <= MAX_HEAP_END && costs.bitsets < costs.walk) {
      // The levels give up once they have cost what the walk would have, which words whose
      // levels rarely meet can make them do, and the walk takes over.
      const found = this.#matchLevelSearch.search(perWord.map(levelsOf), filter, options.end, costs.walk - costs.bitsets);
      if (found !== null) return ranks ? found : { total: found.total, positions: found.positions };
    }
    const found = this.#walk.intersect(perWord);
    const total = filter === null ? found.count : this.#walk.keepOnly(filter, found.count);
    const end = Math.min(options.end ?? Infinity, total);
    if (end === 0) return ranks ? { total, positions: [], ranks: [] } : { total, positions: [] };
    const positions = this.#ranking.rank(total, found.stamp, found.wordCount, end);
    if (!ranks) return { total, positions };
    // The walk's ranks of its matches stay until the next search.
    const walked = this.#walk.ranks;
    const matchRanks = new Array<number>(positions.length);
    for (let i = 0; i < positions.length; i++) matchRanks[i] = walked[positions[i]!]!;
    return { total, positions, ranks: matchRanks };
  }

  matchSet(query: string): PositionSet | null {
    const perWord = this.#wordPostings(query);
    if (perWord === null) return null;
    const costs = this.#costs(perWord);
    if (costs.bitsets < costs.walk) return this.#matchLevelSearch.matchSet(perWord);
    const found = this.#walk.intersect(perWord);
    return positionSetOf(this.#walk.mark.length, this.#walk.candidates.subarray(0, found.count));
  }

  /** Where each distinct word of `query` matches (up to MAX_QUERY_WORDS), rarest first; null when it has no word. */
  #wordPostings(query: string): WordPostings[] | null {
    const words = [...new Set(queryWords(query))].slice(0, MAX_QUERY_WORDS);
    if (words.length === 0) return null;
    const perWord = words.map((word) => this.#expansions.postingsOf(word));
    // The rarest word first keeps the candidate set small from the start.
    return perWord.sort((a, b) => a.size - b.size);
  }

  /**
   * What finding the matches costs, in bitset words read: by matchLevelSearch.ts, which reads a few
   * bitsets per level and the postings that have none, before it combines levels; and by
   * walking the postings (postingsWalk.ts), which reads every posting and ranks every match.
   * A posting walked is weighed as three bitset words read, which keeps words on the walk
   * where both cost about the same.
   */
  #costs(perWord: readonly WordPostings[]): { bitsets: number; walk: number } {
    let bitsets = 0;
    let size = 0;
    for (const word of perWord) {
      bitsets += word.bitsetCost;
      size += word.size;
    }
    return { bitsets, walk: 3 * size };
  }
}

/**
 * The matches of a word alone whose postings are merged: its lists, in level order, hold each
 * match once and ascending, so their positions one after the other are the ranking.
 */
function firstMerged(word: WordPostings, end: number, withRanks: boolean): TextMatches {
  const total = word.size;
  const length = Math.min(end, total);
  // See TextIndex.search on which kind of array.
  const positions = length * 16 < total ? new Array<number>(length) : new Int32Array(length);
  const merged = word.lists.positions;
  for (let i = 0; i < length; i++) positions[i] = merged[i]!;
  if (!withRanks) return { total, positions };
  // Merged lists are one per level with matches, in level order (expansions.ts #merge).
  const ranks = new Array<number>(length);
  const { levelStarts, lists } = word;
  for (let level = 0, i = 0; i < length; level++) {
    if (levelStarts[level] === levelStarts[level + 1]) continue;
    const rank = levelRank(level);
    const listEnd = lists.starts[levelStarts[level]! + 1]!;
    for (; i < listEnd && i < length; i++) ranks[i] = rank;
  }
  return { total, positions, ranks };
}
