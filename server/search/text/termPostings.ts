/**
 * The postings of every indexed word, taken out of FlexSearch once built
 * (https://github.com/nextapps-de/flexsearch; "strict" tokenizer, one index per field): per
 * word and field, which documents hold it at which score. Only whole words are indexed:
 * prefixes are expanded at search time through the sorted vocabulary (expansions.ts), since
 * indexing every prefix would make building far slower.
 */

import { Index } from 'flexsearch';
import { sortSteps } from '../../util/sortSteps.ts';
import type { Steps } from '../../util/timeSlice.ts';
import { wordCount } from '../positionSet.ts';
import { RESOLUTION } from './matchRanks.ts';
import { holdsAsBitset, PostingListsBuilder, type PostingLists } from './postingLists.ts';
import { documentWords } from './words.ts';

/**
 * The postings of every word in every field, word by word in sorted order, field by field:
 * entry i × field count + f is word i's in field f. Per entry its scores (bit `score` set when
 * it has positions of that score), its lists (one per score it has, in score order, numbered
 * from firstLists[entry] on in the index's PostingLists), its number of positions, and what
 * reading them costs matchLevelSearch.ts (in bitset words: the bitset's length where a list has one,
 * else a word per position).
 */
export interface TermPostings {
  firstLists: Int32Array;
  sizes: Int32Array;
  readCosts: Int32Array;
  scores: Uint16Array;
}

/** Every indexed word and its postings, as {@link indexTerms} returns them. */
export interface IndexedTerms {
  /** Every indexed word, sorted, so the words with a given prefix are a contiguous run. */
  terms: string[];
  postings: TermPostings;
  lists: PostingLists;
}

/**
 * Indexes the documents' words, as steps (server/util/timeSlice.ts).
 * @param docs one entry per document: its text fields in priority order; a null or empty field
 *   is skipped
 * @param fieldCount the number of fields every document has
 * @throws RangeError when a document has a different number of fields
 */
export function* indexTerms(docs: ReadonlyArray<ReadonlyArray<string | null>>, fieldCount: number): Steps<IndexedTerms> {
  const { fields, vocabulary } = yield* indexFields(docs, fieldCount);
  const terms = yield* sortSteps([...vocabulary], compareCodeUnits);
  return yield* takePostings(fields, terms, docs.length);
}

/** Array.prototype.sort's default order for strings: by UTF-16 code units. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Documents indexed, or terms taken, per step. */
const ITEMS_PER_STEP = 16;

/** One FlexSearch index per field over the documents' folded words, and every word seen. */
function* indexFields(docs: ReadonlyArray<ReadonlyArray<string | null>>, fieldCount: number): Steps<{ fields: Index[]; vocabulary: Set<string> }> {
  const fields: Index[] = [];
  for (let f = 0; f < fieldCount; f++) {
    // Fields arrive as folded words joined by spaces, and queries one folded word at a time.
    fields.push(new Index({ tokenize: 'strict', resolution: RESOLUTION, encode: splitOnSpaces }));
  }
  const vocabulary = new Set<string>();
  for (let position = 0; position < docs.length; position++) {
    const doc = docs[position]!;
    if (position % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
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
  }
  return { fields, vocabulary };
}

/**
 * FlexSearch's postings of every word, taken once, in the order of the sorted `terms`, with
 * what a search weighs them by: a search of FlexSearch pays for its options on every word, and
 * a one-letter prefix reads the postings of thousands of words. Long postings are bitsets too,
 * for matchLevelSearch.ts.
 */
function* takePostings(fields: readonly Index[], terms: string[], size: number): Steps<IndexedTerms> {
  const entries = terms.length * fields.length;
  const lists = new PostingListsBuilder(size);
  const postings: TermPostings = {
    firstLists: new Int32Array(entries),
    sizes: new Int32Array(entries),
    readCosts: new Int32Array(entries),
    scores: new Uint16Array(entries),
  };
  let entry = 0;
  for (const [at, term] of terms.entries()) {
    if (at % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
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
  return { terms, postings, lists: lists.build() };
}

function splitOnSpaces(text: string): string[] {
  return text.split(' ');
}

/** FlexSearch's postings of one word in one field: buckets[score] = positions, ascending. */
type Buckets = ReadonlyArray<readonly number[] | undefined>;
