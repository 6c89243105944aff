/**
 * Where a query's words match in a text, by the rules of the text index (textIndex.ts): the
 * same fold (words.ts) and the same match of a query word to a text word, exact, as a prefix, or
 * one edit away for query words of MIN_TYPO_WORD_LENGTH letters or more (typos.ts). For showing
 * what matched, not for finding it: it reads the one text given.
 */

import { MIN_TYPO_WORD_LENGTH, withinOneEdit } from './typos.ts';
import { documentWords } from './words.ts';

/** A run of a text, from `start` (inclusive) to `end` (exclusive), in UTF-16 code units. */
export interface Span {
  start: number;
  end: number;
}

// A character of a word, as words.ts reads words (\p{L}, \p{N}, \p{M}); hyphens join the parts of a compound.
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;
const HYPHENS = new Set([0x2d, 0x2010, 0x2011]);

/** Whether the UTF-16 unit at `at` is a character of a word (a unit of an astral character never is). */
function isWordCharacter(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0x80) return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
  return WORD_CHARACTER.test(text[at]!);
}

/**
 * The words of `text` that a query word matches, in text order. A hyphenated compound counts
 * part by part, or whole when only its parts joined match ("saasfee" finds "Saas-Fee").
 * @param words the query's words, folded (queryWords)
 * @returns no spans when there is no query word
 */
export function matchedSpans(text: string, words: readonly string[]): Span[] {
  const spans: Span[] = [];
  if (words.length === 0) return spans;
  const length = text.length;
  for (let at = 0; at < length; ) {
    if (!isWordCharacter(text, at)) {
      at++;
      continue;
    }
    // A compound: parts of word characters joined by single hyphens.
    const start = at;
    const before = spans.length;
    let parts = 0;
    for (;;) {
      const partStart = at;
      while (at < length && isWordCharacter(text, at)) at++;
      parts++;
      if (partMatches(text.slice(partStart, at), words)) spans.push({ start: partStart, end: at });
      if (at + 1 < length && HYPHENS.has(text.charCodeAt(at)) && isWordCharacter(text, at + 1)) at++;
      else break;
    }
    if (spans.length === before && parts > 1 && matchesAny(documentWords(text.slice(start, at)).at(-1)!, words)) {
      spans.push({ start, end: at });
    }
  }
  return spans;
}

/** Whether a query word matches a part of a compound in one of its spellings (documentWords). */
function partMatches(part: string, words: readonly string[]): boolean {
  // An ASCII word has one spelling, in lower case; most words of most texts are ASCII.
  if (isAscii(part)) return matchesAny(part.toLowerCase(), words);
  for (const word of documentWords(part)) if (matchesAny(word, words)) return true;
  return false;
}

function isAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Whether one of the query words matches the folded text word (see the module comment). */
function matchesAny(word: string, wanted: readonly string[]): boolean {
  for (const query of wanted) {
    if (word.startsWith(query)) return true;
    if (query.length >= MIN_TYPO_WORD_LENGTH && withinOneEdit(query, word)) return true;
  }
  return false;
}
