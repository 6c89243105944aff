/**
 * The Idempotency-Key store run to its bound in a process of a small heap: a client writing with
 * a fresh key each time, far past what the bound holds, must leave the heap grown by no more
 * than the bytes the store counts. A store without a bound, or one that counts less than it
 * keeps, ends that process with "JavaScript heap out of memory" or a heap past the bound.
 */

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const HEAP_MB = 96;
const MAX_BYTES = 24 * 1024 * 1024;
/** Far more writes than the bound holds, and than the heap could hold without one. */
const WRITES = 200_000;

const SCRIPT = `
import { createIdempotencyStore } from './server/booking/idempotency.ts';
const store = createIdempotencyStore({ maxEntries: ${WRITES}, maxBytes: ${MAX_BYTES} });
const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed; };
const before = heap();
const now = Date.now();
for (let i = 0; i < ${WRITES}; i++) {
  const key = crypto.randomUUID();
  // A reservation's answer as the sandbox sends it: a few hundred bytes of JSON and two headers.
  const body = Buffer.from(JSON.stringify({ reservationId: 'rsv_' + i.toString(36).padStart(12, '0'), cartId: 'cart_' + i, slotId: 'slot-2026-12-24-0900', quantity: 2, expiresAt: '2026-12-07T16:30:00.000Z', price: { cents: 12900, currency: 'CHF' } }));
  const reply = { status: 201, headers: { 'content-type': 'application/json', location: '/v1/reservations/rsv_' + i }, body };
  const fingerprint = i.toString(16).padStart(64, '0');
  store.begin('203.0.113.7', key, fingerprint, now);
  store.release('203.0.113.7', key, fingerprint, reply, now);
}
const usage = store.usage();
console.log(JSON.stringify({ grownBytes: heap() - before, entries: usage.entries, bytes: usage.bytes }));
`;

describe('the Idempotency-Key store under a small heap', () => {
  it('keeps a client writing with fresh keys within its bound, and the heap within the bytes it counts', { timeout: 300_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: ROOT, maxBuffer: 1 << 20 });
    const result = JSON.parse(stdout) as { grownBytes: number; entries: number; bytes: number };
    expect(result.entries).toBeGreaterThan(0);
    expect(result.entries).toBeLessThan(WRITES);
    expect(result.bytes).toBeLessThanOrEqual(MAX_BYTES);
    // What it counts is what it keeps: the heap grew by no more than that.
    expect(result.grownBytes).toBeLessThanOrEqual(result.bytes);
  });
});
