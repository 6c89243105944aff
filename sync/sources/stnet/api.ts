/**
 * The STnet WISPO stations service's requests: the page URL with its per-request token and
 * ticket, and the check of a page's envelope. The source as a whole is snowdataSource.ts.
 */

import { createHash, randomBytes } from 'node:crypto';
import { integer, list } from '../read.ts';
import type { StnetPage, StnetStation } from './shapes.ts';

/** The real service (plain http in every client seen). */
export const DEFAULT_BASE_URL = 'http://st.stnet.ch/api/services/wispostations';
/** Stations per page, as the clients of the service ask for. */
export const PAGE_SIZE = 50;
/** The date in the ticket is the date in Switzerland, where the service runs. */
export const TICKET_TIME_ZONE = 'Europe/Zurich';

/** Least pause between two pages by default, in ms: the service's own clients pause about this long. */
export const DEFAULT_PAGE_PAUSE_MS = 300;
/** Whole-request timeout by default, in ms: a full page of every station can take long to build. */
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface SnowdataConfig {
  /** STNET_BASE_URL, default {@link DEFAULT_BASE_URL}. */
  baseUrl: string;
  /** STNET_USERNAME: the STnet account name. */
  username: string;
  /** STNET_API_KEY: the account's key; only its hash in the ticket is ever sent. */
  apiKey: string;
  /** STNET_PAGE_PAUSE_MS: least time between two page requests, in ms. */
  pagePauseMs: number;
  /** STNET_TIMEOUT_MS: longest one request may take, in ms. */
  timeoutMs: number;
}

/** A random request token: 16 letters and digits, like the service's clients send. */
export function stnetToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every letter equally likely.
  let token = '';
  while (token.length < 16) {
    for (const byte of randomBytes(32)) if (byte < 248 && token.length < 16) token += alphabet[byte % 62];
  }
  return token;
}

/** `YYYY.MM.DD` of `at` in {@link TICKET_TIME_ZONE}. */
export function stnetDate(at: Date): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone: TICKET_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}.${part('month')}.${part('day')}`;
}

/** The request ticket: lowercase hex md5 of `username:apiKey:token:YYYY.MM.DD`. */
export function stnetTicket(username: string, apiKey: string, token: string, date: string): string {
  return createHash('md5').update(`${username}:${apiKey}:${token}:${date}`).digest('hex');
}

/** URL of one page, with a fresh token and its ticket for the date of `at`. */
export function stnetPageUrl(config: SnowdataConfig, page: number, at: Date = new Date()): string {
  const token = stnetToken();
  const url = new URL(config.baseUrl);
  url.searchParams.set('stn-username', config.username);
  url.searchParams.set('stn-token', token);
  url.searchParams.set('stn-ticket', stnetTicket(config.username, config.apiKey, token, stnetDate(at)));
  url.searchParams.set('stn-output', 'json');
  url.searchParams.set('stn-size', String(PAGE_SIZE));
  url.searchParams.set('stn-page', String(page));
  url.searchParams.set('stn-stationType', 'full');
  return url.toString();
}

/**
 * Checks the envelope of one page; `resultSize` is the stations the service declares in all; the stations themselves are checked by the normaliser.
 *
 * @throws Error naming the page and the expected shape
 */
export function readPage(body: unknown, page: number): { totalPages: number; resultSize: number | null; stations: StnetStation[] } {
  const root = (body as StnetPage | null)?.stations;
  const totalPages = integer(root?.header?.totalPages);
  const array = root?.stationsArray;
  if (root == null || typeof root !== 'object' || totalPages === null || totalPages < 0 || (array != null && typeof array !== 'object')) {
    throw new Error(
      `STnet page ${page}: not a stations page (expected { stations: { header: { totalPages, resultSize }, stationsArray } }), got ${JSON.stringify(body)?.slice(0, 120)}`,
    );
  }
  return { totalPages, resultSize: integer(root.header?.resultSize), stations: list(array) };
}
