/**
 * The one-typo index of a text index's vocabulary: the words one edit (insertion, deletion,
 * substitution or swap of two neighbours) away from a query word, found through the hashes of
 * their single-letter deletions (SymSpell, edit distance 1: https://github.com/wolfgarbe/SymSpell).
 */

import { sortSteps } from '../../util/sortSteps.ts';
import type { Steps } from '../../util/timeSlice.ts';
import { lowerBound } from '../binarySearch.ts';

/** Query words shorter than this match only exactly or as a prefix, never with a typo. */
export const MIN_TYPO_WORD_LENGTH = 5;

/**
 * Most words one query word matches with a typo, and most indexed deletions it compares with:
 * the work of a typo, and what it adds to a search, stay bounded whatever the vocabulary and
 * the word, so that a long word of random letters costs no more than a handful of real ones.
 */
export const MAX_TYPO_MATCHES = 64;
export const MAX_TYPO_CANDIDATES = 4096;

/**
 * The typo index of `terms` (sorted), as steps (server/util/timeSlice.ts): the deletions of
 * its words as numbers, sorted, which {@link typoFinder} searches. A typed array, so that a
 * worker thread can build it and hand it over.
 *
 * The deletions are kept as hashes rather than strings, since a Map from each deletion's text to
 * its words would hold a key per deletion of every word. A deletion's hash and its word's index in
 * `terms` make one number; the numbers, sorted, are searched for the hashes of the query
 * word's deletions. Every word found is taken only when it is one edit from the query word, so
 * a collision of hashes adds nothing: a word one edit away shares a deletion with the query
 * word in fact, and is found through it.
 * @throws RangeError when `terms` holds more words than the index tells apart
 */
export function* typoKeys(terms: readonly string[]): Steps<Float64Array> {
  if (terms.length > WORDS_PER_HASH) throw new RangeError(`${terms.length} words; at most ${WORDS_PER_HASH} fit the typo index`);
  return yield* sortedDeletionKeys(terms);
}

/**
 * A function listing the words of `terms` (sorted) one edit away from a query word (of at
 * least MIN_TYPO_WORD_LENGTH letters), found through `sorted`, their {@link typoKeys}, as
 * their indexes in `terms`.
 */
export function typoFinder(terms: readonly string[], sorted: Float64Array): (word: string) => Iterable<number> {
  return (word) => {
    const found = new Set<number>();
    let candidates = 0;
    const full = () => found.size >= MAX_TYPO_MATCHES || candidates >= MAX_TYPO_CANDIDATES;
    /** Adds the words with a deletion of this hash that are one edit from the word. */
    const collect = (hash: number) => {
      for (let k = lowerBound(sorted, hash * WORDS_PER_HASH); k < sorted.length && Math.floor(sorted[k]! / WORDS_PER_HASH) === hash && !full(); k++) {
        candidates++;
        const at = sorted[k]! % WORDS_PER_HASH;
        const candidate = terms[at]!;
        if (candidate !== word && withinOneEdit(word, candidate)) found.add(at);
      }
    };
    // An inserted letter in the word: the indexed word is one of its deletions.
    // A missing letter: the word is a deletion of the indexed word.
    // A substituted or swapped letter: both share a deletion.
    collect(deletionHash(word, -1));
    for (let i = 0; i < word.length && !full(); i++) {
      const key = word.slice(0, i) + word.slice(i + 1);
      candidates++;
      const at = lowerBound(terms, key);
      if (terms[at] === key) found.add(at);
      collect(deletionHash(word, i));
    }
    return found;
  };
}

/**
 * The deletions of the `terms` that need them as numbers, each its hash × WORDS_PER_HASH + the
 * word's index, sorted by hash, then by index. Only words that can be one edit from a
 * typo-eligible query word need their deletions: a 5-letter query reaches 4-letter words by a
 * deletion of its own, looked up in `terms`.
 */
function* sortedDeletionKeys(terms: readonly string[]): Steps<Float64Array> {
  const keys: number[] = [];
  for (const [at, word] of terms.entries()) {
    if (at % WORDS_PER_STEP === WORDS_PER_STEP - 1) yield;
    if (word.length < MIN_TYPO_WORD_LENGTH) continue;
    for (let i = 0; i < word.length; i++) {
      // Dropping either of two equal letters side by side leaves the same deletion.
      if (i > 0 && word[i] === word[i - 1]) continue;
      keys.push(deletionHash(word, i) * WORDS_PER_HASH + at);
    }
  }
  return Float64Array.from(yield* sortSteps(keys, (a, b) => a - b));
}

/** Words whose deletions are listed per step. */
const WORDS_PER_STEP = 256;

/** Words a typo index tells apart: a hash (< 2^32) times this, plus a word's index, stays an exact double. */
const WORDS_PER_HASH = 2 ** 21;

/** A 32-bit hash (FNV-1a over UTF-16 code units) of `word` without its letter at `skip` (-1: the whole word). */
function deletionHash(word: string, skip: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    if (i !== skip) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  }
  return hash >>> 0;
}

/** True when a and b differ by at most one insertion, deletion, substitution or swap of neighbours. */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const restA = endA - start;
  const restB = endB - start;
  if (restA <= 1 && restB <= 1) return true;
  return restA === 2 && restB === 2 && a[start] === b[start + 1] && a[start + 1] === b[start];
}
