/**
 * Idempotency-Key on POST and PATCH
 * (https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/): a successful
 * response is stored under its key for {@link IDEMPOTENCY_TTL_MS}; a retry with the same key and
 * the same request gets the stored response again, a different request under a used key is a
 * 422, and a retry while the first is still running is a 409.
 *
 * Only 2xx responses are stored: an error response changes nothing, so a retry may simply run
 * again (e.g. after places were freed or the card was replaced).
 */

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BookingError } from './errors.ts';
import type { BookingReply } from './operations.ts';

/** How long a stored response answers retries: 24 hours, in ms. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest accepted key, in characters (a UUID has 36). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A stored response and what it answered. */
export interface StoredResponse {
  /** {@link fingerprintRequest} of the request it answered. */
  readonly fingerprint: string;
  /** When it was stored, ms since the epoch. */
  readonly storedAt: number;
  readonly reply: BookingReply;
}

export interface IdempotencyStore {
  /**
   * Looks a client's key up before running a request.
   *
   * @returns the stored response to send again, or undefined when the request must run (and
   *   then the key is marked as in use until {@link IdempotencyStore.release})
   * @throws BookingError IDEMPOTENCY_KEY_REUSED when the key answered a different request;
   *   IDEMPOTENCY_KEY_IN_USE when a request with this key is still running
   */
  begin(client: string, key: string, fingerprint: string, now: number): BookingReply | undefined;
  /** Ends the run begun by {@link IdempotencyStore.begin}, storing its response when it is a 2xx. */
  release(client: string, key: string, fingerprint: string, reply: BookingReply | undefined, now: number): void;
  /** Puts back a response stored before a restart; ignored once expired. */
  restore(client: string, key: string, stored: StoredResponse, now: number): void;
}

/** The bound of a store: it drops its oldest responses to keep within both. */
export interface IdempotencyBound {
  /** Most responses kept (IDEMPOTENCY_MAX_ENTRIES). */
  maxEntries: number;
  /** Most bytes kept, counted by {@link storedBytes} (IDEMPOTENCY_MAX_BYTES). */
  maxBytes: number;
}

/**
 * What one stored response is counted as: its body, headers, key and client as stored, and the
 * entry's own cost in the heap (the maps' entries, the objects, the fingerprint), measured by
 * test/server/booking/idempotencyHeap.slow.test.ts.
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

/** The bytes a stored response is counted as (see {@link ENTRY_OVERHEAD_BYTES}). */
export function storedBytes(client: string, key: string, reply: BookingReply): number {
  let bytes = ENTRY_OVERHEAD_BYTES + 2 * (client.length + key.length) + reply.body.length;
  for (const name in reply.headers) bytes += 2 * (name.length + reply.headers[name]!.length);
  return bytes;
}

/**
 * A stored response with what the bound counts it as, in two lists, oldest first: of all
 * responses, and of its client's. Lists, not a Map's insertion order: dropping from the front of
 * a Map leaves holes that every later walk from the front steps over, until it is rebuilt.
 */
interface Entry extends StoredResponse {
  readonly scopedKey: string;
  readonly client: string;
  readonly bytes: number;
  older: Entry | null;
  newer: Entry | null;
  olderOfClient: Entry | null;
  newerOfClient: Entry | null;
}

/** A list of entries, oldest first, linked through the fields `older` and `newer` name. */
class EntryList {
  oldest: Entry | null = null;
  newest: Entry | null = null;
  size = 0;

  constructor(
    private readonly olderField: 'older' | 'olderOfClient',
    private readonly newerField: 'newer' | 'newerOfClient',
  ) {}

  push(entry: Entry): void {
    entry[this.olderField] = this.newest;
    entry[this.newerField] = null;
    if (this.newest) this.newest[this.newerField] = entry;
    else this.oldest = entry;
    this.newest = entry;
    this.size++;
  }

  remove(entry: Entry): void {
    const older = entry[this.olderField];
    const newer = entry[this.newerField];
    if (older) older[this.newerField] = newer;
    else this.oldest = newer;
    if (newer) newer[this.olderField] = older;
    else this.newest = older;
    entry[this.olderField] = entry[this.newerField] = null;
    this.size--;
  }
}

/**
 * Creates an in-memory store (the sandbox also journals what it stores, see sandbox/commit.ts and
 * sandbox/replay.ts), kept within `bound`: when a response would pass it, the oldest response of
 * the client that holds the most is dropped, until it fits. So a client sending fresh keys
 * without end drops its own responses, not those of clients that hold fewer.
 */
export function createIdempotencyStore(bound: IdempotencyBound): IdempotencyStore & IdempotencyUsage {
  const stored = new Map<string, Entry>();
  // Storage order is expiry order: expired entries are always the oldest.
  const all = new EntryList('older', 'newer');
  const byClient = new Map<string, EntryList>();
  // The clients by how many responses each holds, so that the one holding most is found at once:
  // a count changes by one at a time, so the most is found by stepping down from the last.
  const holding = new Map<number, Set<string>>();
  let most = 0;
  const running = new Map<string, string>();
  let bytes = 0;

  function moveClient(client: string, from: number, to: number): void {
    if (from > 0) {
      const clients = holding.get(from)!;
      clients.delete(client);
      if (clients.size === 0) holding.delete(from);
    }
    if (to > 0) {
      let clients = holding.get(to);
      if (clients === undefined) holding.set(to, (clients = new Set()));
      clients.add(client);
    }
    if (to > most) most = to;
    while (most > 0 && !holding.has(most)) most--;
  }

  function drop(entry: Entry): void {
    stored.delete(entry.scopedKey);
    all.remove(entry);
    bytes -= entry.bytes;
    const own = byClient.get(entry.client)!;
    own.remove(entry);
    moveClient(entry.client, own.size + 1, own.size);
    if (own.size === 0) byClient.delete(entry.client);
  }

  function prune(now: number): void {
    while (all.oldest !== null && now - all.oldest.storedAt >= IDEMPOTENCY_TTL_MS) drop(all.oldest);
  }

  /** Drops responses until one more of `size` bytes for `client` fits. */
  function makeRoom(client: string, size: number): void {
    while (stored.size > 0 && (stored.size + 1 > bound.maxEntries || bytes + size > bound.maxBytes)) {
      // Among those holding the most, the client storing goes first: it is the one adding.
      const heaviest = byClient.get(client)?.size === most ? client : (holding.get(most)!.values().next().value as string);
      drop(byClient.get(heaviest)!.oldest!);
    }
  }

  function put(client: string, key: string, response: StoredResponse): void {
    const scopedKey = scoped(client, key);
    const previous = stored.get(scopedKey);
    if (previous !== undefined) drop(previous);
    const size = storedBytes(client, key, response.reply);
    // One that passes the bound alone is not kept: a retry runs again, as after its expiry.
    if (size > bound.maxBytes || bound.maxEntries === 0) return;
    makeRoom(client, size);
    const entry: Entry = {
      fingerprint: response.fingerprint,
      storedAt: response.storedAt,
      reply: response.reply,
      scopedKey,
      client,
      bytes: size,
      older: null,
      newer: null,
      olderOfClient: null,
      newerOfClient: null,
    };
    stored.set(scopedKey, entry);
    all.push(entry);
    let own = byClient.get(client);
    if (own === undefined) byClient.set(client, (own = new EntryList('olderOfClient', 'newerOfClient')));
    own.push(entry);
    moveClient(client, own.size - 1, own.size);
    bytes += size;
  }

  // A client address never contains a newline, so `client\nkey` names one key of one client.
  const scoped = (client: string, key: string) => `${client}\n${key}`;

  return {
    begin(client, key, fingerprint, now) {
      prune(now);
      const entry = stored.get(scoped(client, key));
      if (entry !== undefined) {
        if (entry.fingerprint !== fingerprint) throw reused(key);
        return entry.reply;
      }
      const runningFingerprint = running.get(scoped(client, key));
      if (runningFingerprint !== undefined) {
        if (runningFingerprint !== fingerprint) throw reused(key);
        throw new BookingError('IDEMPOTENCY_KEY_IN_USE', `A request with Idempotency-Key ${JSON.stringify(key)} is still being processed; retry when it has been answered`, { idempotencyKey: key });
      }
      running.set(scoped(client, key), fingerprint);
      return undefined;
    },
    release(client, key, fingerprint, reply, now) {
      running.delete(scoped(client, key));
      if (reply !== undefined && reply.status >= 200 && reply.status < 300) put(client, key, { fingerprint, storedAt: now, reply });
    },
    restore(client, key, entry, now) {
      if (now - entry.storedAt < IDEMPOTENCY_TTL_MS) put(client, key, entry);
    },
    usage() {
      return { entries: stored.size, bytes, clients: byClient.size, entriesOf: (client) => byClient.get(client)?.size ?? 0 };
    },
  };
}

/** What a store holds now, for metrics and tests. */
export interface IdempotencyUsage {
  usage(): { entries: number; bytes: number; clients: number; entriesOf(client: string): number };
}

function reused(key: string): BookingError {
  return new BookingError(
    'IDEMPOTENCY_KEY_REUSED',
    `Idempotency-Key ${JSON.stringify(key)} was already used for a different request; use a new key for a new request`,
    { idempotencyKey: key },
  );
}

/**
 * Reads the Idempotency-Key header.
 *
 * @returns the key, or undefined when the header is absent
 * @throws BookingError INVALID_REQUEST when it is empty, repeated, longer than
 *   {@link MAX_IDEMPOTENCY_KEY_LENGTH} or has characters other than visible ASCII
 */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value) || value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new BookingError('INVALID_REQUEST', `Idempotency-Key must be one value of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, e.g. a UUID`, {
      field: 'Idempotency-Key',
    });
  }
  return value;
}

/** What makes two requests "the same": method, path with query, and the body bytes (sha256, hex). */
export function fingerprintRequest(method: string, target: string, body: Buffer): string {
  return createHash('sha256').update(`${method} ${target}\n`).update(body).digest('hex');
}
