/**
 * Fuzzy full-text search over a fixed array of documents, built once per locale and area.
 *
 * Documents and queries are folded the same way (case, diacritics, ß → ss; see
 * documentWords). A query word matches a document word that starts with it (an exact word
 * being the shortest case), or, when the query word has MIN_TYPO_WORD_LENGTH letters or
 * more, a document word one edit away from it (insertion, deletion, substitution or swap of
 * two neighbours). A document matches when every query word matches one of its words.
 *
 * FlexSearch ("strict" tokenizer, one index per field) builds the postings of each word with
 * its position score (https://github.com/nextapps-de/flexsearch), taken out of it once built.
 * Prefixes are expanded through the sorted vocabulary, and typos through the hashes of its
 * single-letter deletions (SymSpell, edit distance 1: https://github.com/wolfgarbe/SymSpell).
 * Indexing every prefix with FlexSearch's "forward" tokenizer instead took 7 times longer to
 * build.
 *
 * The matches are found by walking the postings one by one, or, when the words are found in
 * so many documents that reading sets of them 32 at a time costs less, by matchLevelSearch.ts.
 */

import { Index } from 'flexsearch';
import { hasPosition, positionSetOf, wordCount, type Intersection, type PositionSet } from '../filterIndex.ts';
import { MatchLevelSearch, type MatchLevel } from './matchLevelSearch.ts';
import { lowerBound } from './lowerBound.ts';
import { holdsAsBitset, PostingListsBuilder, type PostingLists } from './postingLists.ts';
import { createTypoFinder, MIN_TYPO_WORD_LENGTH } from './typos.ts';
import { documentWords, queryWords } from './words.ts';

export { MIN_TYPO_WORD_LENGTH } from './typos.ts';

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
   */
  search(query: string, options?: { filter?: Intersection | null; end?: number }): TextMatches | null;

  /**
   * The set of the documents matching all words of `query`, as {@link search} finds them, in
   * no order; null when `query` has no word at all. For callers that order matches otherwise
   * (near-me orders them by distance).
   */
  matchSet(query: string): PositionSet | null;
}

export interface TextMatches {
  /** Number of matches. */
  total: number;
  /** The first matches, best first (see {@link TextIndex.search}). */
  positions: ArrayLike<number>;
}

/** Distinct query words beyond this many are ignored, which bounds the cost of a search. */
export const MAX_QUERY_WORDS = 10;

// FlexSearch's default: a word scores 0..8 by its position in its field.
const RESOLUTION = 9;
// Match kinds inside a field, best first.
const EXACT = 0;
const PREFIX = 1;
const TYPO = 2;
const KINDS = 3;

// A candidate's match ranks packed into one integer, compared as it is: its worst tier above
// the sum of its tiers above the sum of its scores. The sums add up without carrying over, so
// a word's match is added to both in one step. Ten bits hold a sum of MAX_QUERY_WORDS tiers
// for up to MAX_FIELDS fields, and of as many scores.
const TIER_SUM_SHIFT = 10;
const WORST_TIER_SHIFT = 20;
const SUM_MASK = (1 << TIER_SUM_SHIFT) - 1;
const SUMS = (1 << WORST_TIER_SHIFT) - 1;
/** Most text fields per document (see the packing above). */
export const MAX_FIELDS = Math.floor(SUM_MASK / MAX_QUERY_WORDS / KINDS);

/**
 * Most postings lists and merged positions the expansions of query words kept per index hold
 * (FuzzyTextIndex #expansions), unless it has more than a quarter as many documents (see
 * #maxExpandedEntries), and most words. Every one- and two-letter query (702) over all 28
 * indexes of the fixture or of the bench's 10x dataset left 3.3 to 3.6 MB more heap in all,
 * every one-letter query 2.7 to 3.2 MB.
 */
const MAX_EXPANDED_ENTRIES = 20_000;
const MAX_EXPANDED_WORDS = 256;

/**
 * A query word matching in more postings lists than this has them merged (FuzzyTextIndex
 * #merge): past it, going from list to list costs a search more than the positions it reads.
 */
const MERGE_ABOVE_LISTS = 16;

/** Pages ending up to here are picked from many matches with a heap of their size (#best). */
const MAX_HEAP_END = 128;

/**
 * Builds the index.
 * @param docs one entry per document: its text fields in priority order (e.g. `[name,
 *   abstract]`); a null or empty field is skipped. Every document has the same number of
 *   fields.
 * @throws RangeError when a document has a different number of fields than the first, or
 *   documents have more than MAX_FIELDS fields.
 */
export function createTextIndex(docs: ReadonlyArray<ReadonlyArray<string | null>>): TextIndex {
  const fieldCount = docs[0]?.length ?? 0;
  if (fieldCount > MAX_FIELDS) throw new RangeError(`documents have ${fieldCount} text fields; at most ${MAX_FIELDS} are supported`);
  const fields: Index[] = [];
  for (let f = 0; f < fieldCount; f++) {
    // Fields arrive as folded words joined by spaces, and queries one folded word at a time.
    fields.push(new Index({ tokenize: 'strict', resolution: RESOLUTION, encode: splitOnSpaces }));
  }
  const vocabulary = new Set<string>();
  docs.forEach((doc, position) => {
    if (doc.length !== fieldCount) {
      throw new RangeError(`document ${position} has ${doc.length} text fields, expected ${fieldCount}`);
    }
    for (let f = 0; f < fieldCount; f++) {
      const text = doc[f];
      if (!text) continue;
      const words = documentWords(text);
      if (words.length === 0) continue;
      for (const word of words) vocabulary.add(word);
      fields[f]!.add(position, words.join(' '));
    }
  });

  // FlexSearch's postings of every word, taken once, in the order of the sorted words, with
  // what a search weighs them by: a search of FlexSearch costs 0.18 µs a word, mostly its
  // options, and a one-letter prefix reads the postings of thousands of words. Long postings
  // are bitsets too, for matchLevelSearch.ts (a few hundred kB for 20,000 tours).
  const size = docs.length;
  const terms = [...vocabulary].sort();
  const entries = terms.length * fieldCount;
  const lists = new PostingListsBuilder(size);
  const postings: TermPostings = {
    firstLists: new Int32Array(entries),
    sizes: new Int32Array(entries),
    readCosts: new Int32Array(entries),
    scores: new Uint16Array(entries),
  };
  let entry = 0;
  for (const term of terms) {
    for (const field of fields) {
      const buckets = field.search(term, { resolve: false }).result as Buckets;
      postings.firstLists[entry] = lists.count;
      // In score order, so the entry's lists are numbered in the order of its scores' bits.
      buckets.forEach((ids, score) => {
        if (!ids || ids.length === 0) return;
        lists.add(ids);
        postings.sizes[entry]! += ids.length;
        postings.scores[entry]! |= 1 << score;
        postings.readCosts[entry]! += holdsAsBitset(ids.length, size) ? wordCount(size) : ids.length;
      });
      entry++;
    }
  }
  return new FuzzyTextIndex(size, fieldCount, terms, postings, lists.build(), createTypoFinder(terms));
}

/**
 * The postings of every word in every field, word by word in sorted order, field by field:
 * entry i × field count + f is word i's in field f. Per entry its scores (bit `score` set when
 * it has positions of that score), its lists (one per score it has, in score order, numbered
 * from firstLists[entry] on in the index's PostingLists), its number of positions, and what
 * reading them costs matchLevelSearch.ts (in bitset words: the bitset's length where a list has one,
 * else a word per position).
 */
interface TermPostings {
  firstLists: Int32Array;
  sizes: Int32Array;
  readCosts: Int32Array;
  scores: Uint16Array;
}

function splitOnSpaces(text: string): string[] {
  return text.split(' ');
}

/** FlexSearch's postings of one word in one field: buckets[score] = positions, ascending. */
type Buckets = ReadonlyArray<readonly number[] | undefined>;

/**
 * Where one query word matches: its postings lists by level, a level being a tier (KINDS ×
 * field + kind) and a score, numbered tier × RESOLUTION + score, so in rank order; their total
 * length, and what reading them as bitsets would cost (in 32-bit words, see #costs).
 */
interface WordPostings {
  /** The index's lists, or the word's own when merged. */
  lists: PostingLists;
  /** Level l's lists are numbers[levelStarts[l]] up to numbers[levelStarts[l + 1]], of `lists`. */
  levelStarts: Int32Array;
  numbers: Int32Array;
  size: number;
  bitsetCost: number;
  /**
   * What keeping the word costs (see #expansions): the postings lists `numbers` names, and the
   * positions of those that are its own rather than the index's (see #merge).
   */
  held: number;
  /** Whether its postings are merged (see #merge): one list per level, disjoint. */
  merged: boolean;
  /** Its levels for matchLevelSearch.ts, made on first use (levelsOf). */
  levels: MatchLevel[] | undefined;
}

class FuzzyTextIndex implements TextIndex {
  readonly #fieldCount: number;
  /** Every indexed word, sorted, so the words with a given prefix are a contiguous run. */
  readonly #terms: readonly string[];
  readonly #termPostings: TermPostings;
  readonly #lists: PostingLists;
  /** The indexes in #terms of the words one edit away from a query word (createTypoFinder). */
  readonly #typos: (word: string) => Iterable<number>;
  // Scratch state per position, reused across searches (search is synchronous). A position
  // matches the words seen so far while mark[position] equals the latest word's stamp,
  // which spares clearing the arrays on every search. candidates lists those positions.
  readonly #mark: Int32Array;
  /** Match ranks, packed (see WORST_TIER_SHIFT). */
  readonly #ranks: Int32Array;
  readonly #candidates: Int32Array;
  #stamp = 0;
  // Scratch of #rank, grown to the largest size asked so far: the counts per key, and the
  // keys per candidate. Typed arrays above 64 bytes live outside the JS heap and cost a
  // malloc each, which a search of a few matches would otherwise spend most of its time on.
  #counts = new Int32Array(0);
  #keys = new Int32Array(0);
  /** Scratch of #best: its heap, a packed rank and a position per entry. */
  readonly #heap = new Int32Array(2 * MAX_HEAP_END);

  readonly #matchLevelSearch: MatchLevelSearch;

  /**
   * Query words expanded before, with where they match. A short prefix expands into thousands
   * of words whose postings a search gathers anew each time (on the bench's one-letter
   * attractions search, 40 % of the server's CPU, and 13 % on two common words); the expansion
   * depends on the word alone. Bounded by what they hold (#expandedEntries: a postings list
   * and a merged position each cost a number), forgotten all at once past #maxExpandedEntries.
   */
  readonly #expansions = new Map<string, WordPostings>();
  #expandedEntries = 0;
  /** MAX_EXPANDED_ENTRIES, or four per document where more: room for a few merged one-letter prefixes. */
  readonly #maxExpandedEntries: number;

  constructor(
    size: number,
    fieldCount: number,
    terms: readonly string[],
    termPostings: TermPostings,
    lists: PostingLists,
    typos: (word: string) => Iterable<number>,
  ) {
    this.#fieldCount = fieldCount;
    this.#termPostings = termPostings;
    this.#lists = lists;
    this.#matchLevelSearch = new MatchLevelSearch(size, addMatch);
    this.#terms = terms;
    this.#typos = typos;
    this.#mark = new Int32Array(size);
    this.#ranks = new Int32Array(size);
    this.#candidates = new Int32Array(size);
    this.#maxExpandedEntries = Math.max(MAX_EXPANDED_ENTRIES, 4 * size);
  }

  search(query: string, options: { filter?: Intersection | null; end?: number } = {}): TextMatches | null {
    const perWord = this.#wordPostings(query);
    if (perWord === null) return null;
    const { filter = null } = options;
    // The merged postings of a word are its matches in rank order already.
    if (perWord.length === 1 && perWord[0]!.merged && filter === null) return firstMerged(perWord[0]!, options.end ?? Infinity);
    // A page is read off levels only while short: each of its ranks costs a pass over bitsets.
    const costs = this.#costs(perWord);
    if (options.end !== undefined && options.end <= MAX_HEAP_END && costs.bitsets < costs.walk) {
      // The levels give up once they have cost what the walk would have, which words whose
      // levels rarely meet can make them do, and the walk takes over.
      const found = this.#matchLevelSearch.search(perWord.map(levelsOf), filter, options.end, costs.walk - costs.bitsets);
      if (found !== null) return found;
    }
    const found = this.#intersect(perWord);
    const total = filter === null ? found.count : this.#keepOnly(filter, found.count);
    const end = Math.min(options.end ?? Infinity, total);
    if (end === 0) return { total, positions: [] };
    return { total, positions: this.#rank(total, found.stamp, found.wordCount, end) };
  }

  matchSet(query: string): PositionSet | null {
    const perWord = this.#wordPostings(query);
    if (perWord === null) return null;
    const costs = this.#costs(perWord);
    if (costs.bitsets < costs.walk) return this.#matchLevelSearch.matchSet(perWord);
    const found = this.#intersect(perWord);
    return positionSetOf(this.#mark.length, this.#candidates.subarray(0, found.count));
  }

  /** Where each distinct word of `query` matches (up to MAX_QUERY_WORDS), rarest first; null when it has no word. */
  #wordPostings(query: string): WordPostings[] | null {
    const words = [...new Set(queryWords(query))].slice(0, MAX_QUERY_WORDS);
    if (words.length === 0) return null;
    const perWord = words.map((word) => this.#postings(word));
    // The rarest word first keeps the candidate set small from the start.
    return perWord.sort((a, b) => a.size - b.size);
  }

  /**
   * What finding the matches costs, in bitset words read: by matchLevelSearch.ts, which reads a few
   * bitsets per level and the postings that have none, before it combines levels; and by
   * walking the postings (#intersect), which reads every posting and ranks every match.
   * Measured on the benchmark's 10x tours, a posting walked costs about as much as four bitset
   * words read; three keeps words where both are close on the walk.
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

  /**
   * Finds the documents matching every word: they are the first `count` entries of #candidates,
   * and marked with `stamp` in #mark, their match ranks in #ranks.
   */
  #intersect(perWord: readonly WordPostings[]): { count: number; stamp: number; wordCount: number } {
    let count = 0;
    let previous = 0;
    // Each word takes a fresh stamp; start over before they could run out mid-search. Stamps
    // start at 1, so a mark of 0 is never a match.
    if (this.#stamp > 0x7fffffff - MAX_QUERY_WORDS) {
      this.#mark.fill(0);
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
    const mark = this.#mark;
    const ranks = this.#ranks;
    const candidates = this.#candidates;
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
    const mark = this.#mark;
    const ranks = this.#ranks;
    const candidates = this.#candidates;
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
  #keepOnly(filter: Intersection, count: number): number {
    const mark = this.#mark;
    const candidates = this.#candidates;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const position = candidates[i]!;
      if (hasPosition(filter, position)) candidates[kept++] = position;
      else mark[position] = 0;
    }
    return kept;
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
  #rank(count: number, stamp: number, wordCount: number, end: number): ArrayLike<number> {
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

  #postings(word: string): WordPostings {
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
   * documents: the one-letter search of the bench's attractions read 3,237 positions in 853
   * lists, 47 % of the server's CPU, where merged it reads 1,205 in 32 lists, or, alone and
   * unfiltered, only its first page (firstMerged). Costs a walk of the postings, once per word kept.
   */
  #merge(word: WordPostings): WordPostings {
    const { count } = this.#intersect([word]);
    const ranks = this.#ranks;
    const levelCount = word.levelStarts.length - 1;
    // In position order, so each list is ascending.
    const matches = this.#candidates.subarray(0, count).sort();
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
    const bitsetCost = count + 2 * listCount * wordCount(this.#mark.length);
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
    const bitsetWords = wordCount(this.#mark.length);
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

/** The level (tier × RESOLUTION + score) of a single word's match, by its packed rank. */
function mergedLevel(rank: number): number {
  return (rank >>> WORST_TIER_SHIFT) * RESOLUTION + (rank & SUM_MASK);
}

/** The packed rank of a word's match at a level (tier × RESOLUTION + score): mergedLevel's inverse. */
function levelRank(level: number): number {
  return rankOf((level / RESOLUTION) | 0, level % RESOLUTION);
}

/** The index of the lowest bit set in `bits` (not 0). */
function lowestBit(bits: number): number {
  return 31 - Math.clz32(bits & -bits);
}

/** The packed rank of a word's match of a tier and score. */
function rankOf(tier: number, score: number): number {
  return (tier << WORST_TIER_SHIFT) | (tier << TIER_SUM_SHIFT) | score;
}

/** The packed rank of a document's matches, `rank`, with one more word's match (a packed rank). */
function addMatch(rank: number, match: number): number {
  return Math.max(rank & ~SUMS, match & ~SUMS) | ((rank & SUMS) + (match & SUMS));
}

/**
 * The matches of a word alone whose postings are merged: its lists, in level order, hold each
 * match once and ascending, so their positions one after the other are the ranking.
 */
function firstMerged(word: WordPostings, end: number): TextMatches {
  const total = word.size;
  const length = Math.min(end, total);
  // See TextIndex.search on which kind of array.
  const positions = length * 16 < total ? new Array<number>(length) : new Int32Array(length);
  const merged = word.lists.positions;
  for (let i = 0; i < length; i++) positions[i] = merged[i]!;
  return { total, positions };
}

/** A word's postings as levels (matchLevelSearch.ts): one per tier and score with lists, best first; made once per word. */
function levelsOf(word: WordPostings): MatchLevel[] {
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

/** Whether a match (packed rank and position) ranks before another. */
function ranksBefore(rank: number, position: number, otherRank: number, otherPosition: number): boolean {
  return rank < otherRank || (rank === otherRank && position < otherPosition);
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

/**
 * A packed match rank as a key counted from 0 in the same order, for `tierSpan` possible tier
 * sums and `scoreSpan` possible score sums.
 */
function keyOf(rank: number, tierSpan: number, scoreSpan: number): number {
  return ((rank >>> WORST_TIER_SHIFT) * tierSpan + ((rank >>> TIER_SUM_SHIFT) & SUM_MASK)) * scoreSpan + (rank & SUM_MASK);
}
