import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureAnswer, createRawServer, NODE_WRITTEN_HEADERS, type RawAnswer } from '../../bench/raw.ts';

/** A stand-in for the real server: the headers of a cached GraphQL answer, in this order and case. */
const REAL_HEADERS = [
  'X-Request-Id', '94750b77-7eb1-42d7-b1fd-a41e84ffab9a',
  'Vary', 'Origin, Accept, Accept-Encoding',
  'content-type', 'application/json; charset=utf-8',
  'etag', '"DIAy5EGw2x9lkfnazl0u0"',
  'cache-control', 'public, max-age=0, stale-while-revalidate=60',
];
const BODY = '{"data":{"attractions":{"total":1205}}}';
const QUERY = '{"query":"{ attractions { total } }"}';

const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let realUrl = '';

beforeAll(async () => {
  realUrl = await listen(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, [...REAL_HEADERS, 'content-length', String(Buffer.byteLength(BODY))]).end(BODY));
    }),
  );
});

afterAll(() => {
  for (const server of servers) server.close();
});

/** POSTs `body` and gives the status, the raw headers and the body. */
function post(url: string, body: string): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/graphql', url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Raw headers without those node:http writes on its own. */
function withoutNodeHeaders(rawHeaders: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!NODE_WRITTEN_HEADERS.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}

describe('the raw twin', () => {
  let answer: RawAnswer;

  beforeAll(async () => {
    answer = await captureAnswer(realUrl, { method: 'POST', path: '/api/graphql', headers: { 'content-type': 'application/json' }, body: QUERY });
  });

  it('captures the status, the headers as sent (less those node:http writes itself) and the body', () => {
    expect(answer).toMatchObject({ method: 'POST', path: '/api/graphql', requestBody: QUERY, status: 200 });
    expect(answer.headers).toEqual([...REAL_HEADERS, 'content-length', String(Buffer.byteLength(BODY))]);
    expect(Buffer.from(answer.body, 'base64').toString('utf8')).toBe(BODY);
  });

  it('answers the same request with the same head and body as the real server', async () => {
    const twinUrl = await listen(createRawServer([answer]));
    const [real, twin] = [await post(realUrl, QUERY), await post(twinUrl, QUERY)];
    expect(twin.status).toBe(real.status);
    expect(withoutNodeHeaders(twin.rawHeaders)).toEqual(withoutNodeHeaders(real.rawHeaders));
    expect(twin.body).toBe(real.body);
  });

  it('answers any other request 404', async () => {
    const twinUrl = await listen(createRawServer([answer]));
    expect((await post(twinUrl, '{"query":"{ other }"}')).status).toBe(404);
  });
});
