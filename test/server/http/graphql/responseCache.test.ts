import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { etagOf } from '../../../../server/http/httpCache.ts';
import { createResponseCache, responseKey } from '../../../../server/http/graphql/responseCache.ts';

const facts = { label: 'tours', operationName: 'Tours', cost: 12, documentHash: 'a'.repeat(64) };
const KiB = 1024;
/** An answer well within the share of a 64 KiB cache one entry may take. */
const BODY = Buffer.alloc(3000, 'x');
/** Keys of one length, so that their entries weigh the same. */
const key = (i: number) => `k${String(i).padStart(3, '0')}`;

describe('responseKey', () => {
  it('gives variables in any key order, nested too, one key', () => {
    expect(responseKey('{ a }', null, { b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
      responseKey('{ a }', null, { a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }),
    );
  });

  it('treats absent, null and empty variables as one request, and an absent operation name as none', () => {
    const keys = new Set([responseKey('{ a }', undefined, undefined), responseKey('{ a }', null, null), responseKey('{ a }', null, {})]);
    expect(keys.size).toBe(1);
    expect(responseKey('{ a }', 'A', null)).not.toBe(responseKey('{ a }', null, null));
    expect(responseKey('{ a }', '', null)).not.toBe(responseKey('{ a }', null, null));
  });

  it('never gives two different requests one key, whatever characters they hold', () => {
    const requests: [string, string | null, Record<string, unknown> | null][] = [
      ['{ a }', 'B', null],
      ['B{ a }', null, null],
      ['{ a }{}', null, null],
      ['{ a }', null, {}],
      ['1:B{ a }', null, null],
      ['{ a }', '1:B', null],
      ['{ a }', null, { x: '1' }],
      ['{ a }', null, { x: 1 }],
    ];
    expect(new Set(requests.map(([query, name, variables]) => responseKey(query, name, variables))).size).toBe(requests.length);
  });
});

describe('createResponseCache', () => {
  const snapshot = { version: 'v1' };

  it('keeps an answer per snapshot and finds it by key or by the bytes of a request', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const entry = cache.set(snapshot, 'v1', 'key', Buffer.from('{"data":{}}'), facts)!;
    expect(cache.get(snapshot, 'key')).toBe(entry);
    expect(entry).toMatchObject(facts);
    cache.alias(snapshot, 'POST', Buffer.from('{"query":"{ a }"}'), entry);
    expect(cache.getByAlias(snapshot, 'POST', Buffer.from('{"query":"{ a }"}'))).toBe(entry);
    expect(cache.getByAlias(snapshot, 'GET', Buffer.from('{"query":"{ a }"}'))).toBeUndefined();
    expect(cache.get(snapshot, 'other')).toBeUndefined();
  });

  it('empties itself for another snapshot, and ignores requests still on the previous one', () => {
    const cache = createResponseCache(64 * KiB);
    const next = { version: 'v2' };
    cache.use(snapshot);
    const entry = cache.set(snapshot, 'v1', 'key', Buffer.from('old'), facts)!;
    cache.alias(snapshot, 'GET', Buffer.from('query=a'), entry);
    cache.use(next);
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    expect(cache.get(next, 'key')).toBeUndefined();
    expect(cache.getByAlias(next, 'GET', Buffer.from('query=a'))).toBeUndefined();
    // A request that took the previous snapshot finishes later: it neither reads nor fills the cache.
    expect(cache.set(snapshot, 'v1', 'key', Buffer.from('old'), facts)).toBeUndefined();
    expect(cache.set(next, 'v2', 'key', Buffer.from('new'), facts)).toBeDefined();
    expect(cache.get(snapshot, 'key')).toBeUndefined();
    expect(cache.get(next, 'key')?.body.toString()).toBe('new');
  });

  it('drops the answers not used since they were kept first, past its bytes, aliases included', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const a = cache.set(snapshot, 'v1', key(0), BODY, facts)!;
    const fit = Math.floor((64 * KiB - 5) / cache.bytes);
    cache.alias(snapshot, 'POST', Buffer.from('raw-a'), a);
    for (let i = 1; i < fit; i++) cache.set(snapshot, 'v1', key(i), BODY, facts);
    expect(cache.size).toBe(fit);
    cache.get(snapshot, key(0));
    cache.set(snapshot, 'v1', key(fit), BODY, facts);
    expect(cache.bytes).toBeLessThanOrEqual(64 * KiB);
    expect(cache.size).toBe(fit);
    expect(cache.get(snapshot, key(1))).toBeUndefined();
    // The first had its second chance, behind every other; the last is used now.
    expect(cache.get(snapshot, key(fit))).toBeDefined();
    for (let i = fit + 1; i < 2 * fit; i++) cache.set(snapshot, 'v1', key(i), BODY, facts);
    expect(cache.getByAlias(snapshot, 'POST', Buffer.from('raw-a'))).toBeUndefined();
    expect(cache.get(snapshot, key(0))).toBeUndefined();
    expect(cache.get(snapshot, key(fit))).toBeDefined();
  });

  it.each([
    ['remembered last', true],
    ['remembered first', false],
  ])('tells apart requests whose bytes share a hash, and forgets only the one evicted (the alias %s)', (_, evictedLast) => {
    // Two query strings with the same XXH32 (found by trying query=0, query=1, …).
    const [first, second] = [Buffer.from('query=22249'), Buffer.from('query=100910')];
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const a = cache.set(snapshot, 'v1', key(0), BODY, facts)!;
    const fit = Math.floor((64 * KiB - 25) / cache.bytes);
    const b = cache.set(snapshot, 'v1', key(1), BODY, facts)!;
    // The alias remembered last heads the chain of their hash.
    const [kept, evicted] = [[first, a], [second, b]] as const;
    for (const [raw, entry] of evictedLast ? [kept, evicted] : [evicted, kept]) cache.alias(snapshot, 'GET', raw, entry);
    expect(cache.getByAlias(snapshot, 'GET', first)).toBe(a);
    expect(cache.getByAlias(snapshot, 'GET', second)).toBe(b);
    expect(cache.getByAlias(snapshot, 'GET', Buffer.from('query=22250'))).toBeUndefined();
    // Only the kept one is used again: the other leaves to make room.
    for (let i = 2; i < 2 * fit; i++) {
      cache.set(snapshot, 'v1', key(i), BODY, facts);
      cache.get(snapshot, key(0));
    }
    expect(cache.get(snapshot, key(1))).toBeUndefined();
    expect(cache.getByAlias(snapshot, 'GET', evicted[0])).toBeUndefined();
    expect(cache.getByAlias(snapshot, 'GET', kept[0])).toBe(kept[1]);
  });

  it('keeps a copy of the request bytes, so a reused buffer finds nothing', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const entry = cache.set(snapshot, 'v1', 'key', Buffer.from('{}'), facts)!;
    const raw = Buffer.from('{"query":"{ a }"}');
    cache.alias(snapshot, 'POST', raw, entry);
    raw.fill(0x20);
    expect(cache.getByAlias(snapshot, 'POST', raw)).toBeUndefined();
    expect(cache.getByAlias(snapshot, 'POST', Buffer.from('{"query":"{ a }"}'))).toBe(entry);
  });

  it('refuses an answer larger than a sixteenth of the cache, so that one answer cannot push out the others', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    for (let i = 0; i < 10; i++) cache.set(snapshot, 'v1', key(i), BODY, facts);
    expect(cache.set(snapshot, 'v1', 'big', Buffer.alloc(4 * KiB), facts)).toBeUndefined();
    expect(cache.set(snapshot, 'v1', 'fits', Buffer.alloc(2 * KiB), facts)).toBeDefined();
    expect(cache.size).toBe(11);
  });

  it('keeps a few aliases per answer, not one per variation', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const entry = cache.set(snapshot, 'v1', 'key', Buffer.from('{}'), facts)!;
    for (let spaces = 0; spaces < 10; spaces++) cache.alias(snapshot, 'POST', Buffer.from(`{${' '.repeat(spaces)}}`), entry);
    const found = Array.from({ length: 10 }, (_, spaces) => cache.getByAlias(snapshot, 'POST', Buffer.from(`{${' '.repeat(spaces)}}`))).filter(Boolean);
    expect(found).toHaveLength(4);
  });

  it('makes the ETag of each media type and coding once, as the HTTP layer does', () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const body = Buffer.from('{"data":{"a":1}}');
    const entry = cache.set(snapshot, 'v1', 'key', body, facts)!;
    const json = 'application/json; charset=utf-8';
    expect(entry.etag(json, 'identity')).toBe(etagOf('v1', json, body, 'identity'));
    expect(entry.etag(json, 'br')).toBe(etagOf('v1', json, body, 'br'));
    expect(entry.etag('application/graphql-response+json; charset=utf-8', 'identity')).not.toBe(entry.etag(json, 'identity'));
  });

  it('compresses an answer once per coding and counts the compressed bytes, each with the cost of its buffer', async () => {
    const cache = createResponseCache(64 * KiB);
    cache.use(snapshot);
    const body = Buffer.from(JSON.stringify({ data: { text: 'Grüezi mitenand! '.repeat(150) } }));
    const entry = cache.set(snapshot, 'v1', 'key', body, facts)!;
    const before = cache.bytes;
    const [br, again] = await Promise.all([entry.encoded('br'), entry.encoded('br')]);
    expect(again).toBe(br);
    expect(entry.encoded('br')).toBe(br);
    expect(brotliDecompressSync(br).equals(body)).toBe(true);
    const gzip = await entry.encoded('gzip');
    expect(gunzipSync(gzip).equals(body)).toBe(true);
    // What a compressed body costs besides its bytes is the same for each.
    const overhead = (cache.bytes - before - br.length - gzip.length) / 2;
    expect(overhead).toBeGreaterThan(0);
    expect(Number.isInteger(overhead)).toBe(true);
  });
});
