/**
 * The one fold of documents and queries into words: lower case, diacritics dropped (with a
 * German umlaut's ae/oe/ue spelling kept beside it), ß → ss and the like, hyphenated compounds
 * split. A query word can only find a document word folded the same way.
 */

// Letters that NFD does not decompose, spelled the way a keyboard without them would.
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i',
};
const SPECIAL_LETTER = /[ßæœøłđðþı]/g;
// A word with its diacritics as combining marks; hyphens join the parts of a compound.
const WORD = /[\p{L}\p{N}\p{M}]+(?:[-\u2010\u2011][\p{L}\p{N}\p{M}]+)*/gu;
const HYPHEN = /[-\u2010\u2011]/;
// The first combining mark (\p{M}): no character below it is one.
const FIRST_MARK = 0x300;
const MARKS = /\p{M}/gu;
const GERMAN_UMLAUT = /([aou])\u0308/g;
const HAS_GERMAN_UMLAUT = /[aou]\u0308/;
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

function decompose(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(SPECIAL_LETTER, (c) => SPECIAL_LETTERS[c]!);
}

/**
 * The words of a document field in reading order, folded. A word with a German umlaut is
 * followed by its ae/oe/ue spelling ("zürich" → "zurich", "zuerich"), and a hyphenated
 * compound by its parts joined ("saas-fee" → "saas", "fee", "saasfee"), so that either
 * spelling of the query finds it.
 */
export function documentWords(text: string): string[] {
  const words: string[] = [];
  // match() rather than matchAll(): an array of strings, not a match object per word.
  for (const compound of decompose(text).match(WORD) ?? []) {
    if (!hasHyphen(compound)) {
      pushFolded(words, compound);
      continue;
    }
    const parts = compound.split(HYPHEN);
    for (const part of parts) pushFolded(words, part);
    const joined = foldMarks(parts.join(''));
    if (joined) words.push(joined);
  }
  return words;
}

/** Adds a word of a document, and its ae/oe/ue spelling when it has a German umlaut. */
function pushFolded(words: string[], part: string): void {
  const folded = foldMarks(part);
  if (!folded) return;
  words.push(folded);
  if (folded !== part && HAS_GERMAN_UMLAUT.test(part)) words.push(part.replace(GERMAN_UMLAUT, '$1e').replace(MARKS, ''));
}

/**
 * The word without its combining marks. Most words have none, and every mark is at U+0300 or
 * above: a scan of the word costs less than the Unicode regular expression.
 */
function foldMarks(word: string): string {
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) >= FIRST_MARK) return word.replace(MARKS, '');
  }
  return word;
}

/** Whether the word has one of HYPHEN's characters; a scan, as in foldMarks. */
function hasHyphen(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code === 0x2d || code === 0x2010 || code === 0x2011) return true;
  }
  return false;
}

/** The words of a query, folded like {@link documentWords}; compounds count as their parts. */
export function queryWords(query: string): string[] {
  // Most queries are plain ASCII, where folding is lower case and a word is a run of letters
  // and digits (\p{L}, \p{N} and \p{M} hold no other ASCII character): no NFD, no Unicode classes.
  if (ASCII.test(query)) return query.toLowerCase().match(ASCII_WORD) ?? [];
  const words: string[] = [];
  for (const compound of decompose(query).match(WORD) ?? []) {
    for (const part of compound.split(HYPHEN)) {
      const folded = foldMarks(part);
      if (folded) words.push(folded);
    }
  }
  return words;
}
