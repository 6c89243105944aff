/**
 * A hit's snippet: the text that matched, with the matched words in `<mark>`…`</mark>` and
 * everything else HTML-escaped, so that it is safe to put into HTML as it is.
 */

import { matchedSpans, type Span } from '../../search/indexes.ts';

/** Characters of a long field shown before its first matched word, and in all. */
const CONTEXT_BEFORE = 40;
const SNIPPET_LENGTH = 160;

/**
 * The snippet of a record's text fields (the title first) for a query's words (folded, see
 * search/text/words.ts queryWords): the first field in which a query word matches, around its first match when it is long; the title, escaped, when none does.
 */
export function snippetOf(fields: readonly (string | null)[], words: readonly string[]): string {
  for (const text of fields) {
    if (!text) continue;
    const spans = matchedSpans(text, words);
    if (spans.length === 0) continue;
    const { start, end } = excerpt(text, spans[0]!.start);
    return marked(text, spans, start, end);
  }
  return escapeHtml(fields[0] ?? '');
}

/** The part of `text` shown: all of it when short, else SNIPPET_LENGTH characters from a word boundary before `from`. */
function excerpt(text: string, from: number): { start: number; end: number } {
  if (text.length <= SNIPPET_LENGTH) return { start: 0, end: text.length };
  let start = Math.max(0, from - CONTEXT_BEFORE);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space === -1 || space >= from ? from : space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > from) end = space;
  }
  return { start, end };
}

/** text[start..end) escaped, with the spans inside it marked, and an ellipsis where it is cut. */
function marked(text: string, spans: readonly Span[], start: number, end: number): string {
  let out = start > 0 ? '…' : '';
  let at = start;
  for (const span of spans) {
    if (span.start < at || span.end > end) continue;
    out += `${escapeHtml(text.slice(at, span.start))}<mark>${escapeHtml(text.slice(span.start, span.end))}</mark>`;
    at = span.end;
  }
  out += escapeHtml(text.slice(at, end));
  return end < text.length ? `${out}…` : out;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The text with the characters HTML gives a meaning to (& < > " ') as entities. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}
