/**
 * HTTP caching of GraphQL answers (RFC 9110 §8.8.3 and §13, RFC 9111 §5.2, RFC 5861).
 *
 * The ETag is a hash of the snapshot version, the media type and the body bytes, with the content
 * coding appended. Hashing the body keeps it strong (RFC 9110 §8.8.1: it changes whenever the bytes
 * do) even though some answers vary between executions (`meta.responseTimeMs`); a hash of the
 * request alone would promise identical bytes that the resolvers do not guarantee.
 *
 * The body is hashed with XXH64 (xxhash-wasm, https://github.com/jungomi/xxhash-wasm), not a
 * cryptographic hash: a tag only has to change with the bytes, and nobody gains by making two
 * answers collide. Every uncached answer is hashed, and XXH64 costs a fraction of sha256, the copy
 * into WebAssembly memory included. 64 bits make a collision between two bodies of one version unlikely past a billion bodies.
 */

import { hash } from 'node:crypto';
import type { CachePolicy } from '../config/config.ts';
import { h64Raw } from '../util/xxhash.ts';

/** Characters of the tag taken from the hash of the version and media type; the body's hash gives the rest. */
const PREFIX_CHARS = 8;
/** Characters of the tag from the hash of the body: 64 bits in base 36. */
const BODY_CHARS = 13;

/** Tag prefixes by version, then media type: a handful per snapshot, computed once each. */
const prefixes = new Map<string, Map<string, string>>();

/**
 * The strong ETag of a representation, e.g. `"b3Jhbmdl1hzrkwfu4tq0e"` or with a
 * content coding `"…-br"`: each coding of a body is its own representation with its own tag.
 * Two one-shot hashes rather than one streamed over the three parts: the prefix for the version
 * and media type is remembered, so an answer hashes its body alone, in one call.
 *
 * @param encoding the content coding sent (`br`, `gzip`) or `identity`
 */
export function etagOf(version: string, contentType: string, body: Uint8Array, encoding: string): string {
  const tag = prefixOf(version, contentType) + h64Raw(body).toString(36).padStart(BODY_CHARS, '0');
  return encoding === 'identity' ? `"${tag}"` : `"${tag}-${encoding}"`;
}

// Looked up by the two strings the caller holds (no key built per request, which would be hashed anew).
function prefixOf(version: string, contentType: string): string {
  let byType = prefixes.get(version);
  if (byType === undefined) {
    // Versions come and go with hot reloads; forgetting them all now and then bounds the map.
    if (prefixes.size >= 16) prefixes.clear();
    prefixes.set(version, (byType = new Map()));
  }
  let prefix = byType.get(contentType);
  if (prefix === undefined) byType.set(contentType, (prefix = hash('sha256', `${version}\0${contentType}`, 'base64url').slice(0, PREFIX_CHARS)));
  return prefix;
}

/**
 * Whether an `If-None-Match` header matches an ETag, so a 304 may answer (RFC 9110 §13.1.2:
 * weak comparison, `*` matches any current representation).
 *
 * `*` matches for GET and HEAD only. On any other method it asks that the request be carried out
 * only where nothing exists yet (RFC 9110 §13.1.2 answers it 412): a GraphQL POST, which only
 * reads, ignores it and is answered in full. A listed tag on a POST query still gets its 304,
 * since that POST asks for the same answer a GET would.
 *
 * @param method the request's method
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string, method: string | undefined): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return method === 'GET' || method === 'HEAD';
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/**
 * `Cache-Control` of a successful answer: shared caches may keep it until the data expires
 * (the snapshot's earliest expiresAt), at most `policy.maxAgeS`, and serve it stale while they
 * revalidate. Data past its expiresAt gets max-age=0: still served, revalidated every time.
 * Generated fixture data has no expiry (server/http/snapshotHolder.ts) and gets `policy.maxAgeS`.
 *
 * @param expiresAtMs when the data expires, ms since the epoch; null when it never does or is
 *   unknown (then maxAgeS)
 * @param nowMs the current time, ms since the epoch
 */
export function cacheControl(policy: CachePolicy, expiresAtMs: number | null, nowMs: number): string {
  const untilExpiryS = expiresAtMs === null ? policy.maxAgeS : Math.floor((expiresAtMs - nowMs) / 1000);
  const maxAgeS = Math.max(0, Math.min(policy.maxAgeS, untilExpiryS));
  return `public, max-age=${maxAgeS}, stale-while-revalidate=${policy.staleWhileRevalidateS}`;
}

/** `Cache-Control` of an answer no cache may keep: errors, status and health. */
export const NO_STORE = 'no-store';
