/**
 * Settings of the booking interface, read from the environment once at start. A bad value stops
 * the start with a message naming the variable and what is allowed; the API key itself never
 * appears in a message.
 */

import { ConfigError } from './configError.ts';
import { integer, oneOf, readInteger, valuesOf } from './settings.ts';
import { Value } from '@sinclair/typebox/value';

interface CommonConfig {
  /** POST/PATCH requests per client (remote address) per minute; 0 turns the limit off. BOOKING_RATE_LIMIT, default 60. */
  rateLimitPerMinute: number;
  /**
   * Reverse proxies in front of the server whose `X-Forwarded-For` entries name the client
   * (server/http/clientAddress.ts); 0 ignores the header. TRUST_PROXY, default 0.
   */
  trustedProxies: number;
  /**
   * Most responses stored under an Idempotency-Key, over all clients; the oldest leave first,
   * fairly between clients (server/booking/idempotency.ts). IDEMPOTENCY_MAX_ENTRIES, default
   * {@link DEFAULT_IDEMPOTENCY_MAX_ENTRIES}.
   */
  idempotencyMaxEntries: number;
  /** Most bytes of those responses, as the store counts them. IDEMPOTENCY_MAX_BYTES, default {@link DEFAULT_IDEMPOTENCY_MAX_BYTES}. */
  idempotencyMaxBytes: number;
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
export const DEFAULT_IDEMPOTENCY_MAX_ENTRIES = 100_000;
export const DEFAULT_IDEMPOTENCY_MAX_BYTES = 64 * 1024 * 1024;

/** Places held per client unless BOOKING_MAX_HELD_PLACES says otherwise. */
export const DEFAULT_MAX_HELD_PLACES = 200;

/** Proxy mode: forwards the seven calls to the partner's paths, adding the credential. */
export interface ProxyConfig extends CommonConfig {
  mode: 'proxy';
  /**
   * Base URL of the partner's booking interface; the partner path of a call (operations.ts,
   * no `/v1`) is appended to its path. BOOKING_UPSTREAM_URL, default {@link DEFAULT_UPSTREAM_URL}.
   */
  upstreamUrl: string;
  /** The partner contract's API key. BOOKING_API_KEY. */
  apiKey: string;
  /**
   * The request header that carries the key: `Authorization` carries `Bearer <key>`, any other
   * header the bare key. SWISSACTIVITIES_AUTH_HEADER (shared with the sync, which calls the same
   * partner), default `Authorization`.
   */
  authHeader: string;
  /** Whole-call deadline per upstream request (connect, headers, body), in ms. BOOKING_UPSTREAM_TIMEOUT_MS, default 10000. */
  upstreamTimeoutMs: number;
}

/**
 * Off: every /v1 path answers 404 BOOKING_OFF, for a deployment without a booking partner whose
 * replicas must not each keep a sandbox journal of their own.
 */
export interface OffConfig extends CommonConfig {
  mode: 'off';
}

export type BookingConfig = SandboxConfig | ProxyConfig | OffConfig;

/** Swiss Activities' booking API (staging: https://bookingapi.staging.swissactivities.com). */
export const DEFAULT_UPSTREAM_URL = 'https://bookingapi.swissactivities.com';

/** The header the key goes in unless SWISSACTIVITIES_AUTH_HEADER names another. */
export const DEFAULT_AUTH_HEADER = 'Authorization';

/** Most reverse proxies TRUST_PROXY may name; real chains have one or two. */
const MAX_TRUSTED_PROXIES = 10;

/**
 * The booking settings that are a type and a range (settings.ts reads them); the URL, the key
 * and the header name are checked by hand below, for what no schema keyword says (no
 * credentials in the URL, a key never shown in a message).
 */
export const BOOKING_SETTINGS = {
  BOOKING_MODE: oneOf(['proxy', 'sandbox', 'off'], undefined, '`proxy` when BOOKING_UPSTREAM_URL is set, else `sandbox`; `off` answers every /v1 path with 404 BOOKING_OFF.'),
  BOOKING_UPSTREAM_TIMEOUT_MS: integer(100, 120_000, 10_000, 'Proxy: whole-call deadline per upstream request, in ms.'),
  BOOKING_RATE_LIMIT: integer(0, 100_000, 60, 'POST/PATCH requests per client per minute; 0 turns the limit off.'),
  IDEMPOTENCY_MAX_ENTRIES: integer(0, 10_000_000, DEFAULT_IDEMPOTENCY_MAX_ENTRIES, 'Responses stored under an Idempotency-Key, over all clients; 0 stores none.'),
  IDEMPOTENCY_MAX_BYTES: integer(0, 4 * 1024 * 1024 * 1024, DEFAULT_IDEMPOTENCY_MAX_BYTES, 'Bytes of the responses stored under an Idempotency-Key, over all clients.'),
  TRUST_PROXY: integer(0, MAX_TRUSTED_PROXIES, 0, 'Reverse proxies in front of the server whose X-Forwarded-For names the client; 0 ignores the header.'),
  BOOKING_MAX_CART_ITEMS: integer(1, 1000, DEFAULT_MAX_CART_ITEMS, 'Sandbox: reservations per cart.'),
  BOOKING_MAX_HELD_PLACES: integer(1, 100_000, DEFAULT_MAX_HELD_PLACES, 'Sandbox: places one client holds at once.'),
};

/**
 * Reads the booking settings: {@link BOOKING_SETTINGS}, and BOOKING_UPSTREAM_URL (default
 * {@link DEFAULT_UPSTREAM_URL}), BOOKING_API_KEY (required for proxy),
 * SWISSACTIVITIES_AUTH_HEADER (default {@link DEFAULT_AUTH_HEADER}) and STATE_DIR (default
 * `.state`). docs/booking.md#configuration lists them all.
 *
 * @throws ConfigError naming the variable when a value is invalid or a proxy setting is missing
 */
export function readBookingConfig(env: NodeJS.ProcessEnv = process.env): BookingConfig {
  const upstream = env.BOOKING_UPSTREAM_URL?.trim() ?? '';
  const modeRaw = env.BOOKING_MODE?.trim() ?? '';
  const mode = modeRaw === '' ? (upstream === '' ? 'sandbox' : 'proxy') : modeRaw;
  const rateLimitPerMinute = readInteger(env, 'BOOKING_RATE_LIMIT', BOOKING_SETTINGS.BOOKING_RATE_LIMIT);
  const trustedProxies = readInteger(env, 'TRUST_PROXY', BOOKING_SETTINGS.TRUST_PROXY);
  const idempotencyMaxEntries = readInteger(env, 'IDEMPOTENCY_MAX_ENTRIES', BOOKING_SETTINGS.IDEMPOTENCY_MAX_ENTRIES);
  const idempotencyMaxBytes = readInteger(env, 'IDEMPOTENCY_MAX_BYTES', BOOKING_SETTINGS.IDEMPOTENCY_MAX_BYTES);

  if (mode === 'sandbox') {
    return {
      mode,
      rateLimitPerMinute,
      trustedProxies,
      idempotencyMaxEntries,
      idempotencyMaxBytes,
      stateDir: env.STATE_DIR?.trim() || '.state',
      maxCartItems: readInteger(env, 'BOOKING_MAX_CART_ITEMS', BOOKING_SETTINGS.BOOKING_MAX_CART_ITEMS),
      maxHeldPlaces: readInteger(env, 'BOOKING_MAX_HELD_PLACES', BOOKING_SETTINGS.BOOKING_MAX_HELD_PLACES),
    };
  }
  if (mode === 'off') return { mode, rateLimitPerMinute, trustedProxies, idempotencyMaxEntries, idempotencyMaxBytes };
  // Case matters here, unlike LOG_LEVEL: the message names both values as they must be written.
  if (!Value.Check(BOOKING_SETTINGS.BOOKING_MODE, mode)) {
    const values = valuesOf(BOOKING_SETTINGS.BOOKING_MODE);
    throw new ConfigError(`BOOKING_MODE="${modeRaw}": expected ${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);
  }
  return {
    mode: 'proxy',
    rateLimitPerMinute,
    trustedProxies,
    idempotencyMaxEntries,
    idempotencyMaxBytes,
    upstreamUrl: upstreamUrl(upstream === '' ? DEFAULT_UPSTREAM_URL : upstream),
    apiKey: apiKey(env.BOOKING_API_KEY),
    authHeader: authHeader(env.SWISSACTIVITIES_AUTH_HEADER),
    upstreamTimeoutMs: readInteger(env, 'BOOKING_UPSTREAM_TIMEOUT_MS', BOOKING_SETTINGS.BOOKING_UPSTREAM_TIMEOUT_MS),
  };
}

function upstreamUrl(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ConfigError(`BOOKING_UPSTREAM_URL="${raw}": expected an http(s) URL, e.g. ${DEFAULT_UPSTREAM_URL}`);
  }
  // The credential belongs in BOOKING_API_KEY, where it is never logged; a URL is printed freely.
  if (url.username !== '' || url.password !== '') throw new ConfigError('BOOKING_UPSTREAM_URL must not carry credentials; put the key in BOOKING_API_KEY');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`BOOKING_UPSTREAM_URL="${raw}": expected no query or fragment; the partner paths (/reservations, ...) are appended to its path`);
  return url.href.replace(/\/$/, '');
}

function authHeader(raw: string | undefined): string {
  const name = raw?.trim() || DEFAULT_AUTH_HEADER;
  // A header name is an RFC 9110 token; anything else would make every upstream request invalid.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`SWISSACTIVITIES_AUTH_HEADER="${name}": expected an HTTP header name, e.g. Authorization or X-Api-Key`);
  return name;
}

function apiKey(raw: string | undefined): string {
  const key = raw?.trim() ?? '';
  if (key === '') throw new ConfigError('BOOKING_MODE=proxy needs BOOKING_API_KEY, the partner contract\'s API key');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new ConfigError('BOOKING_API_KEY: expected visible ASCII characters without spaces (the value is not shown)');
  return key;
}

