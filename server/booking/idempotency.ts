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
export const ENTRY_OVERHEAD_BYTES = 600;

/** The bytes a stored response is counted as (see {@link ENTRY_OVERHEAD_BYTES}). */
export function storedBytes(client: string, key: string, reply: BookingReply): number {
  let bytes = ENTRY_OVERHEAD_BYTES + 2 * (client.length + key.length) + reply.body.length;
  for (const name in reply.headers) bytes += 2 * (name.length + reply.headers[name]!.length);
  return bytes;
}

/** A stored response with what the bound counts it as. */
interface Entry extends StoredResponse {
  readonly client: string;
  readonly bytes: number;
}

/**
 * Creates an in-memory store (the sandbox also journals what it stores, see sandbox/commit.ts and
 * sandbox/replay.ts), kept within `bound`: when a response would pass it, the oldest response of
 * the client that holds the most is dropped, until it fits. So a client sending fresh keys
 * without end drops its own responses, not those of clients that hold fewer.
 */
export function createIdempotencyStore(bound: IdempotencyBound): IdempotencyStore & IdempotencyUsage {
  // Insertion order is storage order, so expired entries are always at the front, and the
  // oldest of a client first in its own map.
  const stored = new Map<string, Entry>();
  const byClient = new Map<string, Map<string, Entry>>();
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

  function drop(scopedKey: string, entry: Entry): void {
    stored.delete(scopedKey);
    bytes -= entry.bytes;
    const own = byClient.get(entry.client)!;
    own.delete(scopedKey);
    moveClient(entry.client, own.size + 1, own.size);
    if (own.size === 0) byClient.delete(entry.client);
  }

  function prune(now: number): void {
    for (const [key, entry] of stored) {
      if (now - entry.storedAt < IDEMPOTENCY_TTL_MS) break;
      drop(key, entry);
    }
  }

  /** Drops responses until one more of `size` bytes for `client` fits. */
  function makeRoom(client: string, size: number): void {
    while (stored.size > 0 && (stored.size + 1 > bound.maxEntries || bytes + size > bound.maxBytes)) {
      // Among those holding the most, the client storing goes first: it is the one adding.
      const heaviest = byClient.get(client)?.size === most ? client : (holding.get(most)!.values().next().value as string);
      const [key, entry] = byClient.get(heaviest)!.entries().next().value as [string, Entry];
      drop(key, entry);
    }
  }

  function put(client: string, key: string, response: StoredResponse): void {
    const scopedKey = scoped(client, key);
    const previous = stored.get(scopedKey);
    if (previous !== undefined) drop(scopedKey, previous);
    const size = storedBytes(client, key, response.reply);
    // One that passes the bound alone is not kept: a retry runs again, as after its expiry.
    if (size > bound.maxBytes || bound.maxEntries === 0) return;
    makeRoom(client, size);
    const entry: Entry = { ...response, client, bytes: size };
    stored.set(scopedKey, entry);
    let own = byClient.get(client);
    if (own === undefined) byClient.set(client, (own = new Map()));
    own.set(scopedKey, entry);
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
