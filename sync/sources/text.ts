/**
 * Upstream text to plain text: markup removed, entities decoded, whitespace normalised, and a
 * length cap per kind of text. Upstreams send HTML fragments and entity-encoded names (`&amp;`);
 * the API serves plain text, and a client that renders it must never meet markup or a script URL.
 *
 * Tags are removed by sanitize-html configured to keep none (its parser drops the contents of
 * `<script>`, `<style>` and the like, and attributes such as `onclick` or `href` go with their
 * tags); entities are decoded by html-entities. See https://github.com/apostrophecms/sanitize-html
 * and https://github.com/mdevils/html-entities.
 */

import { decode } from 'html-entities';
import sanitizeHtml from 'sanitize-html';
import { repairEncoding } from './encoding.ts';

/** The kinds of upstream text, each with its own cap and whitespace rule. */
export type TextKind = 'name' | 'label' | 'teaser' | 'description' | 'report' | 'url';

/** Longest plain text per kind, in UTF-16 code units (JavaScript string length), with the reason. */
export const TEXT_CAPS: Readonly<Record<TextKind, { maxChars: number; multiline: boolean; reason: string }>> = {
  name: { maxChars: 300, multiline: false, reason: 'a title or name is shown on one line in lists; longer is a description sent in the wrong field' },
  label: { maxChars: 300, multiline: false, reason: 'a short value (a condition, a place, a difficulty) is a word or a phrase' },
  teaser: { maxChars: 5_000, multiline: true, reason: 'a teaser or abstract is a paragraph or two shown under the name' },
  description: { maxChars: 100_000, multiline: true, reason: 'a full description is a page of text; far more is a broken or hostile upstream, and one record that size makes its answers too large to serve' },
  report: { maxChars: 20_000, multiline: true, reason: 'a daily snow or condition report is a few paragraphs, rewritten each day' },
  url: { maxChars: 2_048, multiline: false, reason: 'longer URLs are refused by common browsers and servers' },
};

/**
 * Markup beyond this many times a kind's cap is not parsed at all: no page of HTML holds that
 * much markup per character of text, and parsing megabytes of it per field would stall the sync.
 */
export const RAW_CAP_FACTOR = 8;

/** Schemes a URL field may have; anything else (`javascript:`, `data:`, `file:`…) is never served as a link. */
const URL_SCHEMES = new Set(['http:', 'https:']);

/** Why a text field made its record unfit to publish. */
export interface TextRejection {
  rule: 'text-cap' | 'url-scheme';
  kind: TextKind;
  /** What was wrong and what is allowed, in one line. */
  message: string;
}

/** A cleaned text (null when nothing is left), or the reason its record must be rejected. */
export type TextResult =
  /** `encoding` says when the text's double encoding was repaired, or when its marks remain (encoding.ts). */
  | { ok: true; text: string | null; encoding?: 'repaired' | 'damaged' }
  | { ok: false; rejection: TextRejection };

/** Tags after which a long text starts a new paragraph or line; their text stays. */
const PARAGRAPH_END = /<\/(?:p|div|h[1-6]|ul|ol|table|blockquote|section|article|pre)\s*>/gi;
const LINE_BREAK = /<br\s*\/?>|<\/(?:li|tr|dt|dd)\s*>/gi;
/** A script or data URL written out in text, where a client's linkifier could turn it into a link. */
const SCRIPT_URL_TEXT = /\b(?:javascript|vbscript|data)\s*:[^\s]+/gi;
/** C0 controls other than tab and newline, DEL and C1 controls: never meaningful in served text. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  // Content of these is code or form data, never text to show.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'iframe', 'object', 'svg', 'math'],
};

/**
 * Turns one upstream text into plain text of its kind.
 *
 * Markup and script URLs are removed, entities decoded, whitespace collapsed (a long text keeps
 * its paragraphs as blank lines and its line breaks). A `url` must be absolute http(s).
 *
 * @param value what the upstream sent; null, undefined and empty give `{ ok: true, text: null }`
 * @returns the plain text, or a rejection when it is over its kind's cap or is a URL of another scheme
 */
export function plainText(value: string | null | undefined, kind: TextKind): TextResult {
  if (value == null) return { ok: true, text: null };
  const cap = TEXT_CAPS[kind];
  if (value.length > cap.maxChars * RAW_CAP_FACTOR) return overCap(kind, value.length, 'before removing markup');
  // Before the markup goes: the control characters it removes are half of a Latin-1 reading's marks.
  const repair = kind === 'url' ? null : repairEncoding(value);
  const encoding = repair?.damaged ? ('damaged' as const) : repair?.repaired ? ('repaired' as const) : undefined;
  const text = kind === 'url' ? cleanUrl(value) : cleanText(repair!.text, cap.multiline);
  if (text === null) return { ok: true, text: null, ...(encoding ? { encoding } : {}) };
  if (text.length > cap.maxChars) return overCap(kind, text.length, 'of plain text');
  if (kind === 'url' && !URL_SCHEMES.has(schemeOf(text))) {
    return { ok: false, rejection: { rule: 'url-scheme', kind, message: `url ${JSON.stringify(text.slice(0, 60))} is not an absolute http or https URL; only those are served as links` } };
  }
  return { ok: true, text, ...(encoding ? { encoding } : {}) };
}

function overCap(kind: TextKind, length: number, measured: string): TextResult {
  const { maxChars } = TEXT_CAPS[kind];
  return { ok: false, rejection: { rule: 'text-cap', kind, message: `${kind} text has ${length} characters ${measured}, at most ${maxChars} allowed for a ${kind}` } };
}

function cleanText(html: string, multiline: boolean): string | null {
  const marked = multiline ? html.replace(PARAGRAPH_END, '$&\n\n').replace(LINE_BREAK, '$&\n') : html;
  // sanitize-html escapes `&`, `<` and `>` in the text it keeps, so one decode gives the text as written.
  const text = decode(sanitizeHtml(marked, SANITIZE), { level: 'html5' }).replace(CONTROL, '').replace(SCRIPT_URL_TEXT, '');
  const normalised = multiline
    ? text
        .replace(/\r\n?/g, '\n')
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : text.replace(/\s+/g, ' ').trim();
  return normalised === '' ? null : normalised;
}

function cleanUrl(value: string): string | null {
  // A URL field is not HTML, but upstreams do send `&amp;` in query strings.
  const url = decode(value.trim(), { level: 'html5' }).replace(CONTROL, '').replace(/\s/g, '');
  return url === '' ? null : url;
}

function schemeOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
