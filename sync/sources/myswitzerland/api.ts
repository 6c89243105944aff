/**
 * The MySwitzerland Open Data API's requests: settings, the list URL, pacing and the check of a
 * list page's envelope. The sources as a whole are listSources.ts.
 */

import type { Pace } from '../../client.ts';
import type { Locale } from '../../format.ts';

export const DEFAULT_BASE_URL = 'https://opendata.myswitzerland.io/v1';

/** The values of the API's `lang` parameter. */
export const LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Records per page (`hitsPerPage`); 50 is what real clients of the API send. */
export const HITS_PER_PAGE = 50;
/** The API's `lang` per service locale. */
export const LANGUAGE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, Language>;
/**
 * Least time between two requests, tours and attractions together, in ms: about what the
 * slower of the API's known clients pauses, since the quota is not published.
 */
export const DEFAULT_REQUEST_INTERVAL_MS = 1_000;
/** Wait after a 429 without `Retry-After`, in ms: the quota's clock, as its clients found it. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 65_000;

export interface MySwitzerlandConfig {
  /** MYSWITZERLAND_BASE_URL, default {@link DEFAULT_BASE_URL}. */
  baseUrl: string;
  /** MYSWITZERLAND_API_KEY, sent as `x-api-key`. */
  apiKey: string;
  /** MYSWITZERLAND_REQUEST_INTERVAL_MS, default {@link DEFAULT_REQUEST_INTERVAL_MS}. */
  requestIntervalMs: number;
  /** MYSWITZERLAND_RATE_LIMIT_WAIT_MS, default {@link DEFAULT_RATE_LIMIT_WAIT_MS}. */
  rateLimitWaitMs: number;
}

/** The quota tours and attractions share: one key, so both lists are paced together. */
export function quota(config: MySwitzerlandConfig): Pace {
  return { key: 'MySwitzerland', intervalMs: config.requestIntervalMs };
}

/** The options of every request to the API. */
export function requestOptions(config: MySwitzerlandConfig) {
  return { headers: { 'x-api-key': config.apiKey }, pace: quota(config), rateLimitWaitMs: config.rateLimitWaitMs };
}

/** URL of one list page: `{base}/{list}?lang=…&page=…&hitsPerPage=…&expand=true&striphtml=true`. */
export function listUrl(baseUrl: string, list: 'tours' | 'attractions', lang: Language, page: number, hitsPerPage = HITS_PER_PAGE): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${list}`);
  url.searchParams.set('lang', lang);
  url.searchParams.set('page', String(page));
  url.searchParams.set('hitsPerPage', String(hitsPerPage));
  url.searchParams.set('expand', 'true');
  url.searchParams.set('striphtml', 'true');
  return url.toString();
}

/**
 * Checks the envelope of one list page; the records themselves are checked by the normalisers.
 * `totalElements` is the records the API declares in all, null when it does not say.
 *
 * @throws Error naming `what` and the expected shape
 */
export function readPage(body: unknown, what: string): { data: unknown[]; totalPages: number; totalElements: number | null } {
  const page = isObject(body) && isObject(body['meta']) ? body['meta']['page'] : undefined;
  const totalPages = isObject(page) ? page['totalPages'] : undefined;
  if (!isObject(body) || !Array.isArray(body['data']) || !Number.isSafeInteger(totalPages) || (totalPages as number) < 0) {
    throw new Error(`${what}: not a list response (expected { meta: { page: { totalPages } }, data: [...] }), got ${JSON.stringify(body).slice(0, 120)}`);
  }
  const totalElements = isObject(page) && Number.isSafeInteger(page['totalElements']) ? (page['totalElements'] as number) : null;
  return { data: body['data'], totalPages: totalPages as number, totalElements };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
