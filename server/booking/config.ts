/**
 * Settings of the booking interface, read from the environment once at start. A bad value stops
 * the start with a message naming the variable and what is allowed; the API key itself never
 * appears in a message.
 */

import { ConfigError } from '../configError.ts';
import { integerSetting } from '../integerSetting.ts';

interface CommonConfig {
  /** POST/PATCH requests per client (remote address) per minute; 0 turns the limit off. BOOKING_RATE_LIMIT, default 60. */
  rateLimitPerMinute: number;
  /**
   * Reverse proxies in front of the server whose `X-Forwarded-For` entries name the client
   * (server/clientAddress.ts); 0 ignores the header. TRUST_PROXY, default 0.
   */
  trustedProxies: number;
}

/** Sandbox mode: a complete offline implementation over the snapshot's activities. */
export interface SandboxConfig extends CommonConfig {
  mode: 'sandbox';
  /** Directory of the journal (created when missing). STATE_DIR, default `.state`. */
  stateDir: string;
  /** Most reservations one cart takes. BOOKING_MAX_CART_ITEMS, default {@link DEFAULT_MAX_CART_ITEMS}. */
  maxCartItems: number;
  /**
   * Most places one client (as for the rate limit) may hold at once in reservations not yet
   * checked out. BOOKING_MAX_HELD_PLACES, default {@link DEFAULT_MAX_HELD_PLACES}.
   */
  maxHeldPlaces: number;
}

/** Reservations per cart unless BOOKING_MAX_CART_ITEMS says otherwise. */
export const DEFAULT_MAX_CART_ITEMS = 50;

/** Places held per client unless BOOKING_MAX_HELD_PLACES says otherwise. */
export const DEFAULT_MAX_HELD_PLACES = 200;

/** Proxy mode: forwards the seven paths to the partner, adding the credential. */
export interface ProxyConfig extends CommonConfig {
  mode: 'proxy';
  /** Base URL of the partner's booking interface; `/v1/...` is appended to its path. BOOKING_UPSTREAM_URL. */
  upstreamUrl: string;
  /** The partner contract's API key; sent as `Authorization: Bearer <key>`. BOOKING_API_KEY. */
  apiKey: string;
  /** Whole-call deadline per upstream request (connect, headers, body), in ms. BOOKING_UPSTREAM_TIMEOUT_MS, default 10000. */
  upstreamTimeoutMs: number;
}

export type BookingConfig = SandboxConfig | ProxyConfig;

/** Most reverse proxies TRUST_PROXY may name; real chains have one or two. */
const MAX_TRUSTED_PROXIES = 10;

/**
 * Reads the booking settings:
 *
 * | Variable | Default | |
 * |---|---|---|
 * | BOOKING_MODE | `proxy` when BOOKING_UPSTREAM_URL is set, else `sandbox` | `proxy` or `sandbox` |
 * | BOOKING_UPSTREAM_URL | (none; required for proxy) | http(s) URL, no credentials, query or fragment |
 * | BOOKING_API_KEY | (none; required for proxy) | visible ASCII, no spaces |
 * | BOOKING_UPSTREAM_TIMEOUT_MS | 10000 | 100 to 120000 |
 * | BOOKING_RATE_LIMIT | 60 | POST/PATCH per client per minute, 0 to 100000 (0 = off) |
 * | TRUST_PROXY | 0 | reverse proxies in front of the server, 0 to 10 (0 = X-Forwarded-For ignored) |
 * | STATE_DIR | `.state` | sandbox journal directory |
 * | BOOKING_MAX_CART_ITEMS | 50 | sandbox: reservations per cart, 1 to 1000 |
 * | BOOKING_MAX_HELD_PLACES | 200 | sandbox: places one client holds at once, 1 to 100000 |
 *
 * @throws ConfigError naming the variable when a value is invalid or a proxy setting is missing
 */
export function readBookingConfig(env: NodeJS.ProcessEnv = process.env): BookingConfig {
  const upstream = env.BOOKING_UPSTREAM_URL?.trim() ?? '';
  const modeRaw = env.BOOKING_MODE?.trim() ?? '';
  const mode = modeRaw === '' ? (upstream === '' ? 'sandbox' : 'proxy') : modeRaw;
  const rateLimitPerMinute = integerSetting(env, 'BOOKING_RATE_LIMIT', 60, 0, 100_000);
  const trustedProxies = integerSetting(env, 'TRUST_PROXY', 0, 0, MAX_TRUSTED_PROXIES);

  if (mode === 'sandbox') {
    return {
      mode,
      rateLimitPerMinute,
      trustedProxies,
      stateDir: env.STATE_DIR?.trim() || '.state',
      maxCartItems: integerSetting(env, 'BOOKING_MAX_CART_ITEMS', DEFAULT_MAX_CART_ITEMS, 1, 1000),
      maxHeldPlaces: integerSetting(env, 'BOOKING_MAX_HELD_PLACES', DEFAULT_MAX_HELD_PLACES, 1, 100_000),
    };
  }
  if (mode !== 'proxy') throw new ConfigError(`BOOKING_MODE="${modeRaw}": expected proxy or sandbox`);
  if (upstream === '') throw new ConfigError('BOOKING_MODE=proxy needs BOOKING_UPSTREAM_URL, the base URL of the partner booking interface (e.g. https://api.partner.example)');
  return {
    mode,
    rateLimitPerMinute,
    trustedProxies,
    upstreamUrl: upstreamUrl(upstream),
    apiKey: apiKey(env.BOOKING_API_KEY),
    upstreamTimeoutMs: integerSetting(env, 'BOOKING_UPSTREAM_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}

function upstreamUrl(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ConfigError(`BOOKING_UPSTREAM_URL="${raw}": expected an http(s) URL, e.g. https://api.partner.example`);
  }
  // The credential belongs in BOOKING_API_KEY, where it is never logged; a URL is printed freely.
  if (url.username !== '' || url.password !== '') throw new ConfigError('BOOKING_UPSTREAM_URL must not carry credentials; put the key in BOOKING_API_KEY');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`BOOKING_UPSTREAM_URL="${raw}": expected no query or fragment; /v1/... is appended to its path`);
  return url.href.replace(/\/$/, '');
}

function apiKey(raw: string | undefined): string {
  const key = raw?.trim() ?? '';
  if (key === '') throw new ConfigError('BOOKING_MODE=proxy needs BOOKING_API_KEY, the partner contract\'s API key');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new ConfigError('BOOKING_API_KEY: expected visible ASCII characters without spaces (the value is not shown)');
  return key;
}

