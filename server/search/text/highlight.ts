/**
 * Where a query's words match in a text, by the rules of the text index (textIndex.ts): the
 * same fold (words.ts) and the same match of a query word to a text word, exact, as a prefix, or
 * one edit away for query words of MIN_TYPO_WORD_LENGTH letters or more (typos.ts). For showing
 * what matched, not for finding it: it reads the one text given.
 */

import { MIN_TYPO_WORD_LENGTH, withinOneEdit } from './typos.ts';
import { documentWords, queryWords } from './words.ts';

/** A run of a text, from `start` (inclusive) to `end` (exclusive), in UTF-16 code units. */
export interface Span {
  start: number;
  end: number;
}

// A word of the text as written, its parts joined by hyphens, as words.ts reads compounds.
const WORD = /[\p{L}\p{N}\p{M}]+(?:[-\u2010\u2011][\p{L}\p{N}\p{M}]+)*/gu;
const PART = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The words of `text` that a word of `query` matches, in text order. A hyphenated compound
 * counts part by part, or whole when only its parts joined match ("saasfee" finds "Saas-Fee").
 * @returns no spans when the query has no word
 */
export function matchedSpans(text: string, query: string): Span[] {
  const wanted = [...new Set(queryWords(query))];
  const spans: Span[] = [];
  if (wanted.length === 0) return spans;
  for (const compound of text.matchAll(WORD)) {
    const start = compound.index;
    const before = spans.length;
    const parts = [...compound[0].matchAll(PART)];
    for (const part of parts) {
      if (documentWords(part[0]).some((word) => matchesAny(word, wanted))) spans.push({ start: start + part.index, end: start + part.index + part[0].length });
    }
    if (spans.length === before && parts.length > 1 && matchesAny(documentWords(compound[0]).at(-1)!, wanted)) {
      spans.push({ start, end: start + compound[0].length });
    }
  }
  return spans;
}

/** Whether one of the query words matches the folded text word (see the module comment). */
function matchesAny(word: string, wanted: readonly string[]): boolean {
  for (const query of wanted) {
    if (word.startsWith(query)) return true;
    if (query.length >= MIN_TYPO_WORD_LENGTH && withinOneEdit(query, word)) return true;
  }
  return false;
}
