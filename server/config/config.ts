/**
 * All settings, read from the environment once at start and validated: a bad value stops
 * the start with a message naming the variable, the value and what is allowed. Each setting is
 * declared in serverSettings.ts (type, range, default); docs/operations.md lists every variable.
 */

import { createPublicKey, type KeyObject } from 'node:crypto';
import type { LevelWithSilent } from 'pino';
import type { SourceName } from '../../sync/format.ts';
import { type BookingConfig, readBookingConfig } from './bookingConfig.ts';
import { ConfigError } from './configError.ts';
import { SERVER_SETTINGS } from './serverSettings.ts';
import { readSourceTerms, type SourceTerms } from './sourceTerms.ts';
import { readBoolean, readInteger, readOneOf, readPaths } from './settings.ts';
import { cpuCount } from './cpuCount.ts';

/** Limits on one GraphQL request, applied before execution (see server/execution/limits.ts). */
export interface QueryLimits {
  /** Largest request body in bytes; MAX_BODY_BYTES, default 102400 (100 KiB). */
  maxBodyBytes: number;
  /** Most lexical tokens in a query document; MAX_TOKENS, default 2000. */
  maxTokens: number;
  /** Deepest field nesting of an operation, fragments expanded, root fields at depth 1; MAX_DEPTH, default 10. */
  maxDepth: number;
  /** Most aliased fields in an operation, fragments expanded; MAX_ALIASES, default 30. */
  maxAliases: number;
  /** Most directives in an operation, fragments expanded (once per spread); MAX_DIRECTIVES, default 20. */
  maxDirectives: number;
  /** Largest cost (fields resolved, list fields counted once per item); MAX_COST, default 25000. */
  maxCost: number;
  /**
   * Largest answer in bytes (its JSON text, before compression); MAX_RESPONSE_BYTES, default
   * 4194304 (4 MiB). An operation whose estimated answer is larger is refused before it runs,
   * one whose answer grows larger anyway while it is written (server/execution/limits.ts).
   */
  maxResponseBytes: number;
  /** Time budget of one execution in ms, checked before each root field; EXECUTION_TIMEOUT_MS, default 2000. */
  executionTimeoutMs: number;
}

/** Socket timeouts of the HTTP server (https://nodejs.org/api/http.html#class-httpserver). */
export interface ServerTimeouts {
  /** Time to receive a request's headers, in ms; HEADERS_TIMEOUT_MS, default 10000. */
  headersMs: number;
  /** Time to receive a whole request (headers and body), in ms; REQUEST_TIMEOUT_MS, default 30000. */
  requestMs: number;
  /** Idle time before a keep-alive connection is closed, in ms; KEEP_ALIVE_TIMEOUT_MS, default 5000. */
  keepAliveMs: number;
}

/** What successful GraphQL responses tell HTTP caches (see server/http/httpCache.ts). */
export interface CachePolicy {
  /** Upper bound of `max-age` in seconds (also bounded by the snapshot's expiresAt); CACHE_MAX_AGE_S, default 300. */
  maxAgeS: number;
  /** `stale-while-revalidate` in seconds; CACHE_STALE_WHILE_REVALIDATE_S, default 60. */
  staleWhileRevalidateS: number;
}

/** Trusted documents: the operations a client may run by id (server/http/graphql/trustedDocuments/). */
export interface TrustedDocumentsConfig {
  /** Manifest files, as given (relative to the working directory); PERSISTED_DOCUMENTS, comma-separated, default none. */
  files: string[];
  /** Whether every other document is refused; PERSISTED_DOCUMENTS_ONLY, default false, and only with `files`. */
  only: boolean;
}

/** Pull mode: DATA_DIR is a local cache of the snapshot an origin serves (server/snapshot/pull/). */
export interface PullConfig {
  /**
   * Base URL of a data directory served over HTTP, ending in `/`: HTTPS, or HTTP to a loopback
   * address only; SNAPSHOT_URL.
   */
  origin: URL;
  /** Seconds between polls of its manifest, before jitter; SNAPSHOT_POLL_S, default 60. */
  pollS: number;
  /** Total deadline of one GET (headers and the whole body), in ms; SNAPSHOT_FETCH_TIMEOUT_MS, default 120000. */
  fetchTimeoutMs: number;
  /**
   * Ed25519 public keys, one of which must verify each manifest's signature; empty takes
   * unsigned manifests. SNAPSHOT_PUBLIC_KEY: one key, or two comma-separated while a key is
   * rotated.
   */
  publicKeys: KeyObject[];
}

/** Keys SNAPSHOT_PUBLIC_KEY takes at most: the current one and the next, while a key is rotated. */
export const MAX_PUBLIC_KEYS = 2;

export interface Config {
  /** TCP port; PORT, default 4000 (0 picks a free port). */
  port: number;
  /** Interface to bind; HOST, default 0.0.0.0 (all). */
  host: string;
  /** Directory with manifest.json; DATA_DIR, default "data". */
  dataDir: string;
  /**
   * The longest the manifest, or one file it names, may take to be read, checked and inflated,
   * in ms, at start and at each reload; SNAPSHOT_READ_TIMEOUT_MS, default 30000.
   */
  snapshotReadTimeoutMs: number;
  /**
   * The largest size one file of a snapshot may inflate to, in bytes: inflating stops there and
   * the snapshot is refused, so a small file that inflates to gigabytes costs no more than this;
   * SNAPSHOT_MAX_FILE_BYTES, default 268435456 (256 MiB).
   */
  snapshotMaxFileBytes: number;
  /** Pull mode (SNAPSHOT_URL set): where the snapshot comes from; null serves DATA_DIR as the sync writes it. */
  pull: PullConfig | null;
  /** Extra browser origins allowed by CORS (localhost is always allowed); ALLOWED_ORIGINS, comma-separated. */
  allowedOrigins: string[];
  /** pino level of the JSON logs on stdout; LOG_LEVEL, default "info". */
  logLevel: LevelWithSilent;
  /** Whether introspection (`__schema`, `__type`) is allowed; INTROSPECTION, default true (the playground needs it). */
  introspection: boolean;
  limits: QueryLimits;
  timeouts: ServerTimeouts;
  cache: CachePolicy;
  /** Memory for automatic persisted queries in bytes, 0 to turn them off; APQ_CACHE_BYTES, default 8388608 (8 MiB). */
  apqCacheBytes: number;
  trustedDocuments: TrustedDocumentsConfig;
  /**
   * Memory for serialised GraphQL answers in bytes, 0 when turned off; RESPONSE_CACHE_BYTES,
   * default 67108864 (64 MiB), and RESPONSE_CACHE (default true; false or 0 turns it off).
   */
  responseCacheBytes: number;
  /**
   * Memory for the JSON bytes of records as operations select them (server/execution/json/recordBytesCache.ts)
   * in bytes, 0 when turned off (answers are then executed and serialised whole);
   * RECORD_CACHE_BYTES, default 33554432 (32 MiB), and RECORD_CACHE (default true).
   */
  recordCacheBytes: number;
  /** Most checked operations kept (server/execution/engine.ts), 0 for none; OPERATION_CACHE_SIZE, default 1000. */
  operationCacheSize: number;
  /** Whether operations are compiled with graphql-jit; GRAPHQL_JIT, default true. */
  jit: boolean;
  /**
   * Processes serving the port (node:cluster), 1 to serve from this process alone; WORKERS,
   * default one per core, and 1 under `npm run dev`: each worker loads and indexes the snapshot,
   * and a restart after every edit should not wait for a core's worth of them.
   */
  workers: number;
  /** Time in-flight requests get to finish after SIGTERM/SIGINT, in ms; SHUTDOWN_GRACE_MS, default 10000. */
  shutdownGraceMs: number;
  /**
   * GraphQL and GeoJSON requests are shed (503 OVERLOADED) while the event loop is late by more
   * than this, in ms, 0 never (server/http/loadShedding.ts); SHED_EVENT_LOOP_DELAY_MS, default 100.
   */
  shedEventLoopDelayMs: number;
  /** The /v1 booking interface: sandbox or proxy (docs/booking.md). */
  booking: BookingConfig;
  /** Each source's licence and attribution; `<SOURCE>_LICENSE` and `<SOURCE>_ATTRIBUTION` (server/config/sourceTerms.ts). */
  terms: Readonly<Record<SourceName, SourceTerms>>;
}

export { ConfigError };
export type { SourceTerms };

const S = SERVER_SETTINGS;

/**
 * Reads and validates every setting.
 *
 * @param env the environment; tests pass a plain object
 * @throws ConfigError for the first variable with a value that is not allowed
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const headersMs = readInteger(env, 'HEADERS_TIMEOUT_MS', S.HEADERS_TIMEOUT_MS);
  const requestMs = readInteger(env, 'REQUEST_TIMEOUT_MS', S.REQUEST_TIMEOUT_MS);
  // Node requires it: a request cannot take less time than its headers.
  if (requestMs < headersMs) {
    throw new ConfigError(`REQUEST_TIMEOUT_MS=${requestMs} is below HEADERS_TIMEOUT_MS=${headersMs}; the whole request includes its headers`);
  }
  // The size is checked even when the cache is off, so a typo shows before it is turned on.
  const cacheBytes = readInteger(env, 'RESPONSE_CACHE_BYTES', S.RESPONSE_CACHE_BYTES);
  const responseCacheBytes = readBoolean(env, 'RESPONSE_CACHE', S.RESPONSE_CACHE) ? cacheBytes : 0;
  const recordBytes = readInteger(env, 'RECORD_CACHE_BYTES', S.RECORD_CACHE_BYTES);
  const recordCacheBytes = readBoolean(env, 'RECORD_CACHE', S.RECORD_CACHE) ? recordBytes : 0;
  const trustedDocuments = { files: readPaths(env, 'PERSISTED_DOCUMENTS'), only: readBoolean(env, 'PERSISTED_DOCUMENTS_ONLY', S.PERSISTED_DOCUMENTS_ONLY) };
  if (trustedDocuments.only && trustedDocuments.files.length === 0) {
    throw new ConfigError('PERSISTED_DOCUMENTS_ONLY=true needs PERSISTED_DOCUMENTS: the manifest files of the documents to answer (comma-separated)');
  }
  const pull = readPullConfig(env);
  // One process pulls into one cache: in pull mode the replica, not a cluster, is the unit of scale.
  const workers = readInteger(env, 'WORKERS', S.WORKERS, pull || env.npm_lifecycle_event === 'dev' ? 1 : cpuCount());
  if (pull && workers > 1) throw new ConfigError(`WORKERS=${workers} with SNAPSHOT_URL: pull mode runs one process per replica; set WORKERS=1 (or leave it unset) and run more replicas`);
  return {
    port: readInteger(env, 'PORT', S.PORT),
    host: env.HOST?.trim() || '0.0.0.0',
    dataDir: env.DATA_DIR?.trim() || 'data',
    snapshotReadTimeoutMs: readInteger(env, 'SNAPSHOT_READ_TIMEOUT_MS', S.SNAPSHOT_READ_TIMEOUT_MS),
    snapshotMaxFileBytes: readInteger(env, 'SNAPSHOT_MAX_FILE_BYTES', S.SNAPSHOT_MAX_FILE_BYTES),
    pull,
    allowedOrigins: origins(env, 'ALLOWED_ORIGINS'),
    logLevel: readOneOf(env, 'LOG_LEVEL', S.LOG_LEVEL),
    introspection: readBoolean(env, 'INTROSPECTION', S.INTROSPECTION),
    limits: {
      maxBodyBytes: readInteger(env, 'MAX_BODY_BYTES', S.MAX_BODY_BYTES),
      maxTokens: readInteger(env, 'MAX_TOKENS', S.MAX_TOKENS),
      maxDepth: readInteger(env, 'MAX_DEPTH', S.MAX_DEPTH),
      maxAliases: readInteger(env, 'MAX_ALIASES', S.MAX_ALIASES),
      maxDirectives: readInteger(env, 'MAX_DIRECTIVES', S.MAX_DIRECTIVES),
      maxCost: readInteger(env, 'MAX_COST', S.MAX_COST),
      maxResponseBytes: readInteger(env, 'MAX_RESPONSE_BYTES', S.MAX_RESPONSE_BYTES),
      executionTimeoutMs: readInteger(env, 'EXECUTION_TIMEOUT_MS', S.EXECUTION_TIMEOUT_MS),
    },
    timeouts: { headersMs, requestMs, keepAliveMs: readInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', S.KEEP_ALIVE_TIMEOUT_MS) },
    cache: {
      maxAgeS: readInteger(env, 'CACHE_MAX_AGE_S', S.CACHE_MAX_AGE_S),
      staleWhileRevalidateS: readInteger(env, 'CACHE_STALE_WHILE_REVALIDATE_S', S.CACHE_STALE_WHILE_REVALIDATE_S),
    },
    apqCacheBytes: readInteger(env, 'APQ_CACHE_BYTES', S.APQ_CACHE_BYTES),
    trustedDocuments,
    responseCacheBytes,
    recordCacheBytes,
    operationCacheSize: readInteger(env, 'OPERATION_CACHE_SIZE', S.OPERATION_CACHE_SIZE),
    jit: readBoolean(env, 'GRAPHQL_JIT', S.GRAPHQL_JIT),
    workers,
    shutdownGraceMs: readInteger(env, 'SHUTDOWN_GRACE_MS', S.SHUTDOWN_GRACE_MS),
    shedEventLoopDelayMs: readInteger(env, 'SHED_EVENT_LOOP_DELAY_MS', S.SHED_EVENT_LOOP_DELAY_MS),
    booking: readBookingConfig(env),
    terms: readSourceTerms(env),
  };
}

/**
 * SNAPSHOT_URL, SNAPSHOT_POLL_S, SNAPSHOT_FETCH_TIMEOUT_MS and SNAPSHOT_PUBLIC_KEY; null without
 * SNAPSHOT_URL. By hand: a URL's scheme against its host, and a key's type, are no schema keyword.
 */
function readPullConfig(env: NodeJS.ProcessEnv): PullConfig | null {
  const raw = env.SNAPSHOT_URL?.trim() ?? '';
  const keysRaw = env.SNAPSHOT_PUBLIC_KEY?.trim() ?? '';
  if (raw === '') {
    if (keysRaw !== '') throw new ConfigError('SNAPSHOT_PUBLIC_KEY is set without SNAPSHOT_URL: the keys check the manifests a replica pulls; set SNAPSHOT_URL too, or unset SNAPSHOT_PUBLIC_KEY');
    return null;
  }
  let origin: URL;
  try {
    origin = new URL(raw);
  } catch {
    throw new ConfigError(`SNAPSHOT_URL: "${raw}" is not a URL; expected the base of a data directory, e.g. https://raw.githubusercontent.com/<owner>/<repo>/data/`);
  }
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(origin.hostname);
  if (!(origin.protocol === 'https:' || (origin.protocol === 'http:' && loopback))) {
    throw new ConfigError(`SNAPSHOT_URL: "${raw}": expected an https:// URL (http:// only to a loopback address)`);
  }
  if (origin.username || origin.password || origin.search || origin.hash) {
    throw new ConfigError(`SNAPSHOT_URL: "${raw}": expected a base URL without credentials, query or fragment`);
  }
  if (!origin.pathname.endsWith('/')) origin.pathname += '/';
  const publicKeys = keysRaw === '' ? [] : keysRaw.split(',').map((item, index) => publicKey(item.trim(), index));
  if (publicKeys.length > MAX_PUBLIC_KEYS) throw new ConfigError(`SNAPSHOT_PUBLIC_KEY: ${publicKeys.length} keys; expected one, or two (comma-separated) while a key is rotated`);
  return {
    origin,
    pollS: readInteger(env, 'SNAPSHOT_POLL_S', S.SNAPSHOT_POLL_S),
    fetchTimeoutMs: readInteger(env, 'SNAPSHOT_FETCH_TIMEOUT_MS', S.SNAPSHOT_FETCH_TIMEOUT_MS),
    publicKeys,
  };
}

/** One key of SNAPSHOT_PUBLIC_KEY: the base64 SPKI DER of an Ed25519 key, as `npm run sync -- --keygen` prints it. */
function publicKey(text: string, index: number): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new ConfigError(`SNAPSHOT_PUBLIC_KEY: key ${index + 1} is not a public key; expected the base64 SPKI key that \`npm run sync -- --keygen\` prints`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ConfigError(`SNAPSHOT_PUBLIC_KEY: key ${index + 1} is a ${key.asymmetricKeyType} key; expected Ed25519`);
  return key;
}

/**
 * Kept by hand rather than as a schema: an origin is what `new URL` makes of the text, and the
 * check is that the text is already that origin, which no JSON Schema keyword says.
 */
function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((item) => {
    const value = item.trim();
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(`${name}: "${value}" is not an origin; expected e.g. https://www.example.ch`);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(`${name}: "${value}" is not an origin; expected scheme://host[:port] without a path, e.g. https://www.example.ch`);
    }
    return url.origin;
  });
}
