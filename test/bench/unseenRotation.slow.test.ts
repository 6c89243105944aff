import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warmUp } from '../../bench/paired.ts';
import type { BenchRequest } from '../../bench/scenarios.ts';

/** A loopback server that counts the bodies it is sent. */
const received = new Map<string, number>();
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.set(body, (received.get(body) ?? 0) + 1);
      res.end('{"data":{}}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

const pool = (size: number): BenchRequest[] =>
  Array.from({ length: size }, (_, i) => ({ name: 'Q', method: 'POST', path: '/api/graphql', headers: { 'content-type': 'application/json' }, body: `{"query":"{ q${i} }"}` }));

describe('unseen documents', () => {
  it('are sent in one rotation shared by every connection, so no document comes back before all the others', async () => {
    // More documents than both runs can send (one autocannon thread sends well under 100k a
    // second here), so that a document sent twice can only mean a rotation that started over.
    const requests = pool(200_000);
    const sentSoFar = () => [...received.values()].reduce((a, b) => a + b, 0);
    received.clear();
    await warmUp(url, requests, 10, 0.5, true);
    expect(sentSoFar()).toBeGreaterThan(100);
    expect(sentSoFar()).toBeLessThan(requests.length);
    // Each connection cycling through the list on its own would send the first documents ten times.
    expect(Math.max(...received.values())).toBe(1);
    // The rotation goes on from where the last run left off.
    const before = received.size;
    await warmUp(url, requests, 10, 0.3, true);
    expect(received.size).toBeGreaterThan(before);
    expect(sentSoFar()).toBeLessThan(requests.length);
    expect(Math.max(...received.values())).toBe(1);
  });
});
