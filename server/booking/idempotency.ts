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

/** Creates an in-memory store (the sandbox also journals what it stores, see sandbox/commit.ts and sandbox/replay.ts). */
export function createIdempotencyStore(): IdempotencyStore {
  // Insertion order is storage order, so expired entries are always at the front.
  const stored = new Map<string, StoredResponse>();
  const running = new Map<string, string>();

  function prune(now: number): void {
    for (const [key, entry] of stored) {
      if (now - entry.storedAt < IDEMPOTENCY_TTL_MS) break;
      stored.delete(key);
    }
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
      if (reply !== undefined && reply.status >= 200 && reply.status < 300) {
        stored.set(scoped(client, key), { fingerprint, storedAt: now, reply });
      }
    },
    restore(client, key, entry, now) {
      if (now - entry.storedAt < IDEMPOTENCY_TTL_MS) stored.set(scoped(client, key), entry);
    },
  };
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
