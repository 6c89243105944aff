/**
 * Automatic persisted queries, Apollo's protocol
 * (https://github.com/apollographql/apollo-link-persisted-queries#protocol): a client sends
 * `extensions.persistedQuery = { version: 1, sha256Hash }` without the query; if the server knows
 * the hash it runs the stored query, otherwise it answers PERSISTED_QUERY_NOT_FOUND and the client
 * retries with query and hash, which registers the query. A GET then fits in a short, cacheable URL.
 */

import { createHash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';

/** What a request's `extensions.persistedQuery` asks for. */
export interface PersistedQueryRequest {
  /** Lowercase hex sha256 of the query text. */
  readonly sha256Hash: string;
}

/**
 * Bytes counted per entry beyond its query's: its hash, and the strings, slots and map entry of
 * the cache that hold it. Counting the query text alone, a budget of tiny queries would hold
 * entries whose overhead is many times the budget.
 */
export const ENTRY_OVERHEAD_BYTES = 512;

/** Queries by hash, least recently used first out; bounded by the bytes of the stored entries. */
export interface PersistedQueries {
  /** The stored query of a hash, or undefined. */
  get(sha256Hash: string): string | undefined;
  /**
   * Stores a query whose hash was verified, and publishes it to the relay if there is one; an
   * entry larger than the whole budget is not stored.
   * @returns true when the query was new and is now stored
   */
  set(sha256Hash: string, query: string): boolean;
  /** The stored queries as `[sha256Hash, query]`, least recently used first. */
  entries(): IterableIterator<[string, string]>;
  /** Bytes of the entries stored now: each query's UTF-8 bytes plus {@link ENTRY_OVERHEAD_BYTES}. */
  readonly bytes: number;
}

/**
 * How a store shares the queries registered with it, and learns those registered with other
 * stores: the workers of a cluster (server/http/graphql/clusterPersistedQueries.ts), so that a hash registered
 * with one worker is known to all.
 */
export interface PersistedQueryRelay {
  /** Tells the other stores of a query newly stored here. */
  publish(sha256Hash: string, query: string): void;
  /** Calls `onQuery` with each query registered elsewhere (those known already first). */
  subscribe(onQuery: (sha256Hash: string, query: string) => void): void;
}

/**
 * Creates an empty store holding at most `maxBytes`, each entry counted as its query text (UTF-8)
 * and {@link ENTRY_OVERHEAD_BYTES}.
 *
 * @param maxBytes the budget, at least 1 (APQ_CACHE_BYTES; with 0 the callers keep no store)
 * @param relay where queries newly stored are published, and others' come from
 */
export function createPersistedQueries(maxBytes: number, relay?: PersistedQueryRelay): PersistedQueries {
  const queries = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (query) => ENTRY_OVERHEAD_BYTES + Buffer.byteLength(query) });

  /** Stores a query unless it is known or too large; true when stored. */
  function store(sha256Hash: string, query: string): boolean {
    if (queries.has(sha256Hash)) return false;
    // The cache skips an entry larger than maxSize itself; has() tells whether it took this one.
    queries.set(sha256Hash, query);
    return queries.has(sha256Hash);
  }

  relay?.subscribe(store);
  return {
    get: (sha256Hash) => queries.get(sha256Hash),
    set(sha256Hash, query) {
      if (!store(sha256Hash, query)) return false;
      relay?.publish(sha256Hash, query);
      return true;
    },
    *entries() {
      // rentries() goes from the least recently used to the most.
      for (const [sha256Hash, query] of queries.rentries() as Iterable<[string, string]>) yield [sha256Hash, query];
    },
    get bytes() {
      return queries.calculatedSize;
    },
  };
}

/** Lowercase hex sha256 of a query, as clients compute it. */
export function hashQuery(query: string): string {
  return createHash('sha256').update(query).digest('hex');
}

/**
 * Reads `extensions.persistedQuery` of a request.
 *
 * @returns null when the request does not use persisted queries
 * @throws Error (a 400 Bad Request) when the extension is malformed or of another version
 */
export function readPersistedQuery(extensions: unknown): PersistedQueryRequest | null {
  if (typeof extensions !== 'object' || extensions === null || !('persistedQuery' in extensions)) return null;
  const persisted = (extensions as { persistedQuery: unknown }).persistedQuery;
  if (typeof persisted !== 'object' || persisted === null) throw new Error('extensions.persistedQuery must be an object { version: 1, sha256Hash }');
  const { version, sha256Hash } = persisted as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) throw new Error(`extensions.persistedQuery.version ${JSON.stringify(version)} is not supported; expected 1`);
  if (typeof sha256Hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256Hash)) {
    throw new Error('extensions.persistedQuery.sha256Hash must be the hex sha256 of the query (64 characters)');
  }
  return { sha256Hash: sha256Hash.toLowerCase() };
}

/** The error a client answers by sending the query along with its hash. */
export function persistedQueryNotFound(): GraphQLError {
  // Apollo clients match this exact message as well as the code.
  return new GraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
}

/** The error for a persisted query when the server keeps none (APQ_CACHE_BYTES=0). */
export function persistedQueryNotSupported(): GraphQLError {
  return new GraphQLError('PersistedQueryNotSupported', { extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } });
}

/** A request that uses persisted queries, once its query is resolved. */
export interface PersistedLookup {
  /** The query's hash (lowercase hex sha256). */
  readonly sha256Hash: string;
  /** The query came with its text: it is registered once it passes the checks. */
  readonly register: boolean;
}

/**
 * Resolves the persisted query of a request (its `extensions`): a hash sent without the query
 * gets the stored query in `params.query`; one sent with it is checked against it.
 *
 * @param store the persisted queries, or null when they are turned off
 * @param observe told of each lookup in the store (hit or miss)
 * @returns null when the request does not use persisted queries
 * @throws GraphQLError PERSISTED_QUERY_NOT_FOUND / _NOT_SUPPORTED; Error (400) for a malformed
 *   extension or a hash that does not match the query
 */
export function resolvePersistedQuery(
  params: { query: unknown; extensions: unknown },
  store: PersistedQueries | null,
  observe: (hit: boolean) => void,
): PersistedLookup | null {
  const request = readPersistedQuery(params.extensions);
  if (request === null) return null;
  if (!store) throw persistedQueryNotSupported();
  if (typeof params.query === 'string') {
    if (hashQuery(params.query) !== request.sha256Hash) throw new Error('extensions.persistedQuery.sha256Hash does not match the sha256 of the query');
    return { sha256Hash: request.sha256Hash, register: true };
  }
  const stored = store.get(request.sha256Hash);
  observe(stored !== undefined);
  if (stored === undefined) throw persistedQueryNotFound();
  params.query = stored;
  return { sha256Hash: request.sha256Hash, register: false };
}
