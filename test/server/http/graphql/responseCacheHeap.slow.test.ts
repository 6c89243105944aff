/**
 * The response cache filled past its budget in a process of its own: the heap and the buffers
 * outside it must grow by no more than the bytes the cache counts, so that RESPONSE_CACHE_BYTES
 * is what the cache costs. Small answers are the hard case: per entry, the objects, maps and
 * buffer headers outweigh the answer itself.
 */

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BUDGET_BYTES = 16 * 1024 * 1024;
/** More small answers than the budget holds. */
const ANSWERS = 40_000;

const SCRIPT = (encode: boolean) => `
import { createResponseCache, responseKey } from './server/http/graphql/responseCache.ts';
const cache = createResponseCache(${BUDGET_BYTES});
const snapshot = {};
cache.use(snapshot);
const memory = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
const before = memory();
const facts = { label: 'tour', operationName: undefined, cost: 3, documentHash: 'a'.repeat(64) };
for (let i = 0; i < ${ANSWERS}; i++) {
  const query = '{ tour(id: "t-' + i + '") { id name abstract } }';
  const body = Buffer.from(JSON.stringify({ data: { tour: { id: 't-' + i, name: 'Winterwanderweg ' + i, abstract: 'Unterwegs von Adelboden ' + i } } }));
  const entry = cache.set(snapshot, 'v1', responseKey(query, undefined, undefined), body, facts);
  if (!entry) throw new Error('an answer was not kept');
  // As a request does: the POST body remembered, the ETag made${encode ? ', the gzip form kept' : ''}.
  cache.alias(snapshot, 'POST', Buffer.from(JSON.stringify({ query })), entry);
  entry.etag('application/json', 'identity');
  ${encode ? "await entry.encoded('gzip');" : ''}
}
console.log(JSON.stringify({ grownBytes: memory() - before, counted: cache.bytes, size: cache.size }));
`;

describe.each([
  ['uncompressed', false],
  ['with their gzip forms', true],
])('the response cache filled with small answers, %s', (_name, encode) => {
  it('grows the heap and the buffers by no more than the bytes it counts, and counts no more than its budget', { timeout: 300_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', SCRIPT(encode)], { cwd: ROOT });
    const result = JSON.parse(stdout) as { grownBytes: number; counted: number; size: number };
    expect(result.size).toBeLessThan(ANSWERS);
    expect(result.counted).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(result.grownBytes).toBeLessThanOrEqual(result.counted);
  });
});
