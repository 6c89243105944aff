/**
 * The response cache: serialised GraphQL answers kept per snapshot, so that a repeated request is
 * answered without parsing, checking or executing anything.
 *
 * - An entry is keyed by document, operation name and variables (canonical JSON: object keys
 *   sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` share an entry), whatever the method (GET,
 *   POST) or whether the document came as a persisted query. Besides, the exact bytes of a
 *   request (a POST body, a GET query string) may be remembered as an alias of the entry, so that
 *   a hit needs no JSON parsing at all.
 * - Only successful answers are kept: never one with errors.
 * - The cache belongs to one snapshot: it is emptied when the first request served from another
 *   snapshot arrives, and requests still running on the previous snapshot neither read nor fill it.
 * - Bounded in bytes: bodies, their compressed forms, keys and a fixed overhead per entry are
 *   counted. An answer larger than a sixteenth of the budget is not kept. Entries not used since they were kept (or last given a second chance) leave first;
 *   one that was used goes back to the end of the line once (the CLOCK approximation of least
 *   recently used, so that a hit costs no reordering).
 * - Per entry, the ETag of each media type and content coding, and each compressed body, are
 *   made once, on first use.
 */

import { canonicalJson } from './canonicalJson.ts';
import { compress, type Encoding } from '../compress.ts';
import { etagOf } from '../httpCache.ts';
import { h32Raw } from '../../util/xxhash.ts';

/**
 * What the cache counts beyond the bytes of bodies, keys and aliases: the objects, maps and
 * buffer headers that hold them, in the heap. test/server/http/graphql/responseCacheHeap.slow.test.ts
 * fills a cache and checks that the heap and the buffers grow by no more than it counts.
 */
const ENTRY_OVERHEAD_BYTES = 1024;
/** One alias: its object, its buffer's header and its place in the alias map. */
const ALIAS_OVERHEAD_BYTES = 256;
/** One compressed body's buffer header and map entry. */
const BUFFER_OVERHEAD_BYTES = 160;
/** The ETags of one media type: their map entry and object. */
const ETAGS_OVERHEAD_BYTES = 256;
/** One ETag string's header. */
const STRING_OVERHEAD_BYTES = 32;

/**
 * The largest share of the budget one entry may take: a larger answer is sent but not kept, so
 * that one answer cannot push out a large part of what the cache holds.
 */
export const MAX_ENTRY_SHARE = 1 / 16;

/** Request-bytes aliases kept per entry: clients that vary only in spacing get a few, not unlimited. */
const MAX_ALIASES_PER_ENTRY = 4;

/** What a cached answer needs besides its body: the labels of the request's log line and metrics. */
export interface ResponseFacts {
  /** Metrics label of the operation (server/execution/engine.ts operationLabel). */
  readonly label: string;
  /** The operation's name as logged, or undefined. */
  readonly operationName: string | undefined;
  /** Cost of the operation with its variables. */
  readonly cost: number;
  /** Lowercase hex sha256 of the document, for the log line. */
  readonly documentHash: string;
}

/** Whose bytes an alias is: a POST body and a GET query string are told apart even when equal. */
export type AliasMethod = 'GET' | 'POST';

/** One cached answer. */
export interface CachedResponse extends ResponseFacts {
  /** The serialised result, uncompressed. */
  readonly body: Buffer;
  /** The ETag of the body sent as `contentType` with `encoding`; computed once. */
  etag(contentType: string, encoding: Encoding): string;
  /** The body in a content coding; compressed once, on first use, and then counted in the cache's bytes. */
  encoded(encoding: Exclude<Encoding, 'identity'>): Buffer | Promise<Buffer>;
}

export interface ResponseCache {
  /**
   * Makes `snapshot` the one the cache serves, emptying it when it served another. Call it once
   * per request, when the request takes its snapshot.
   */
  use(snapshot: object): void;
  /** The entry of a canonical key ({@link responseKey}) for a request served from `snapshot`. */
  get(snapshot: object, key: string): CachedResponse | undefined;
  /** The entry a request's exact bytes (a POST body, a GET query string) were remembered for ({@link ResponseCache.alias}). */
  getByAlias(snapshot: object, method: AliasMethod, raw: Buffer): CachedResponse | undefined;
  /**
   * Keeps a successful answer under its canonical key, unless `snapshot` is no longer the one
   * served or the entry alone exceeds {@link MAX_ENTRY_SHARE} of the budget.
   *
   * @param version the snapshot's version, part of every ETag
   * @returns the entry, or undefined when it was not kept
   */
  set(snapshot: object, version: string, key: string, body: Buffer, facts: ResponseFacts): CachedResponse | undefined;
  /** Remembers a request's exact bytes (copied) as leading to `entry` (a few per entry at most). */
  alias(snapshot: object, method: AliasMethod, raw: Buffer, entry: CachedResponse): void;
  /** Entries held now. */
  readonly size: number;
  /** Bytes counted now. */
  readonly bytes: number;
}

/**
 * The canonical key of a request: document, operation name and variables. Lengths prefix the
 * parts, so no two requests share a key unless all three are equal; null, absent and empty
 * variables are the same request.
 *
 * @throws JsonTooDeepError when the variables nest too deep to be keyed (canonicalJson)
 */
export function responseKey(query: string, operationName: string | null | undefined, variables: Readonly<Record<string, unknown>> | null | undefined): string {
  const name = operationName == null ? '-' : `${operationName.length}:${operationName}`;
  return `${name}${query.length}:${query}${variables == null ? '{}' : canonicalJson(variables)}`;
}

/** Creates an empty cache of at most `maxBytes`. */
export function createResponseCache(maxBytes: number): ResponseCache {
  const entries = new Map<string, Entry>();
  const aliases: Record<AliasMethod, AliasMap> = { GET: new AliasMap(), POST: new AliasMap() };
  let served: object | null = null;
  let bytes = 0;

  function evict(): void {
    for (const [key, entry] of entries) {
      if (bytes <= maxBytes) break;
      // Map keeps insertion order: an entry used since it was kept gets a second chance at the end.
      if (entry.used) {
        entry.used = false;
        entries.delete(key);
        entries.set(key, entry);
      } else {
        remove(key, entry);
      }
    }
  }

  function remove(key: string, entry: Entry): void {
    entries.delete(key);
    for (const alias of entry.aliases) aliases[alias.method].delete(alias);
    bytes -= entry.bytes;
    entry.evicted = true;
  }

  function grow(entry: Entry, added: number): void {
    if (entry.evicted) return;
    entry.bytes += added;
    bytes += added;
    evict();
  }

  return {
    use(snapshot) {
      if (snapshot === served) return;
      served = snapshot;
      entries.clear();
      aliases.GET.clear();
      aliases.POST.clear();
      bytes = 0;
    },
    get(snapshot, key) {
      if (snapshot !== served) return undefined;
      const entry = entries.get(key);
      if (entry) entry.used = true;
      return entry;
    },
    getByAlias(snapshot, method, raw) {
      if (snapshot !== served) return undefined;
      const entry = aliases[method].get(raw);
      if (entry) entry.used = true;
      return entry;
    },
    set(snapshot, version, key, body, facts) {
      if (snapshot !== served) return undefined;
      // A key's characters as V8 keeps them: one byte each when all are Latin-1, else two.
      const size = ENTRY_OVERHEAD_BYTES + (isLatin1(key) ? key.length : 2 * key.length) + body.length;
      if (size > maxBytes * MAX_ENTRY_SHARE) return undefined;
      const previous = entries.get(key);
      if (previous) remove(key, previous);
      const entry = new Entry(key, version, body, facts, size, grow);
      entries.set(key, entry);
      bytes += size;
      evict();
      return entry;
    },
    alias(snapshot, method, raw, cached) {
      const entry = cached as Entry;
      if (snapshot !== served || entry.evicted || entry.aliases.length >= MAX_ALIASES_PER_ENTRY || aliases[method].get(raw)) return;
      entry.aliases.push(aliases[method].add(method, raw, entry));
      grow(entry, ALIAS_OVERHEAD_BYTES + raw.length);
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}

/** Request bytes remembered for an entry; aliases whose bytes share a hash are chained. */
interface Alias {
  readonly method: AliasMethod;
  readonly hash: number;
  readonly bytes: Buffer;
  readonly entry: Entry;
  next: Alias | undefined;
}

/**
 * The aliases of one method, found by the XXH32 of their bytes and told apart by comparing them.
 * Keyed by a number rather than by the bytes as a string: a string made of each request's body
 * would be decoded and hashed anew by every lookup, on the path of every cached answer.
 */
class AliasMap {
  readonly #byHash = new Map<number, Alias>();

  get(bytes: Buffer): Entry | undefined {
    for (let alias = this.#byHash.get(h32Raw(bytes)); alias !== undefined; alias = alias.next) {
      if (alias.bytes.equals(bytes)) return alias.entry;
    }
    return undefined;
  }

  add(method: AliasMethod, raw: Buffer, entry: Entry): Alias {
    // A copy of its own: a small request's buffer is a slice of a pool it would keep alive.
    const bytes = Buffer.allocUnsafeSlow(raw.length);
    raw.copy(bytes);
    const hash = h32Raw(bytes);
    const alias: Alias = { method, hash, bytes, entry, next: this.#byHash.get(hash) };
    this.#byHash.set(hash, alias);
    return alias;
  }

  delete(alias: Alias): void {
    let head = this.#byHash.get(alias.hash);
    if (head === alias) {
      if (alias.next === undefined) this.#byHash.delete(alias.hash);
      else this.#byHash.set(alias.hash, alias.next);
      return;
    }
    while (head !== undefined && head.next !== alias) head = head.next;
    if (head !== undefined) head.next = alias.next;
  }

  clear(): void {
    this.#byHash.clear();
  }
}

class Entry implements CachedResponse {
  readonly aliases: Alias[] = [];
  evicted = false;
  /** Used since it was kept or last given a second chance. */
  used = false;
  readonly label: string;
  readonly operationName: string | undefined;
  readonly cost: number;
  readonly documentHash: string;
  /** ETags per media type, then per content coding; made on first use, as most entries never need more than one. */
  #etags: Map<string, Partial<Record<Encoding, string>>> | undefined;
  #encoded: Map<Encoding, Buffer | Promise<Buffer>> | undefined;

  constructor(
    readonly key: string,
    readonly version: string,
    readonly body: Buffer,
    facts: ResponseFacts,
    public bytes: number,
    readonly grow: (entry: Entry, added: number) => void,
  ) {
    this.label = facts.label;
    this.operationName = facts.operationName;
    this.cost = facts.cost;
    this.documentHash = facts.documentHash;
  }

  etag(contentType: string, encoding: Encoding): string {
    const etags = (this.#etags ??= new Map());
    let byEncoding = etags.get(contentType);
    if (byEncoding === undefined) {
      etags.set(contentType, (byEncoding = {}));
      this.grow(this, ETAGS_OVERHEAD_BYTES + contentType.length);
    }
    let etag = byEncoding[encoding];
    if (etag === undefined) {
      byEncoding[encoding] = etag = etagOf(this.version, contentType, this.body, encoding);
      this.grow(this, STRING_OVERHEAD_BYTES + etag.length);
    }
    return etag;
  }

  encoded(encoding: Exclude<Encoding, 'identity'>): Buffer | Promise<Buffer> {
    const encodedBodies = (this.#encoded ??= new Map());
    let body = encodedBodies.get(encoding);
    if (body === undefined) {
      const pending = compress(this.body, encoding).then((compressed) => {
        encodedBodies.set(encoding, compressed);
        this.grow(this, BUFFER_OVERHEAD_BYTES + compressed.length);
        return compressed;
      });
      // A failed compression is not kept: the next request tries again.
      pending.catch(() => encodedBodies.delete(encoding));
      encodedBodies.set(encoding, (body = pending));
    }
    return body;
  }
}

/** Whether every character of `text` is Latin-1, so that V8 keeps it one byte each. */
function isLatin1(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[^\u0000-\u00ff]/.test(text);
}
