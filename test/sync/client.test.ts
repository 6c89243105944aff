import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, FetchError, type HttpClient, type HttpClientOptions, parseRetryAfter, redactUrl, type RetryEvent } from '../../sync/client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

let server: Server;
let base: string;
let handler: Handler;
let hits: number;
const clients: HttpClient[] = [];

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res, ++hits));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function serve(next: Handler): void {
  hits = 0;
  handler = next;
}

function client(options: HttpClientOptions = {}): HttpClient {
  const created = createHttpClient({ minDelayMs: 5, maxDelayMs: 20, ...options });
  clients.push(created);
  return created;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

describe('createHttpClient', () => {
  it('returns the parsed JSON body of a 200 response', async () => {
    serve((req, res) => sendJson(res, 200, { path: req.url, accept: req.headers.accept, key: req.headers['x-api-key'] }));
    const body = await client().json(`${base}/tours?lang=de`, { headers: { 'x-api-key': 'k' } });
    expect(body).toEqual({ path: '/tours?lang=de', accept: 'application/json', key: 'k' });
  });

  it('posts a JSON body when one is given', async () => {
    serve(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      sendJson(res, 200, { method: req.method, type: req.headers['content-type'], body: JSON.parse(text) });
    });
    const body = await client().json(`${base}/graphql`, { body: { query: '{ a }' } });
    expect(body).toEqual({ method: 'POST', type: 'application/json', body: { query: '{ a }' } });
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    const times: number[] = [];
    serve((_req, res, hit) => {
      times.push(Date.now());
      if (hit === 1) sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '1' });
      else sendJson(res, 200, { ok: true });
    });
    const retries: RetryEvent[] = [];
    const body = await client().json(`${base}/a`, { onRetry: (event) => retries.push(event) });
    expect(body).toEqual({ ok: true });
    expect(hits).toBe(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(990);
    expect(retries).toEqual([{ method: 'GET', url: `${base}/a`, attempt: 1, maxAttempts: 5, delayMs: 1000, reason: '429 Too Many Requests' }]);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    serve((_req, res, hit) => {
      if (hit === 1) sendJson(res, 503, {}, { 'retry-after': new Date(Date.now() + 1500).toUTCString() });
      else sendJson(res, 200, { ok: true });
    });
    const retries: RetryEvent[] = [];
    await client().json(`${base}/a`, { onRetry: (event) => retries.push(event) });
    // HTTP dates have whole seconds, so the wait is between 0.5 and 1.5 s.
    expect(retries[0]!.delayMs).toBeGreaterThan(400);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1500);
  });

  it('fails at once when Retry-After asks for longer than it is willing to wait', async () => {
    serve((_req, res) => sendJson(res, 429, {}, { 'retry-after': '3600' }));
    const error = await client({ maxRetryAfterMs: 60_000 }).json(`${base}/a`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe(`[GET] "${base}/a": 429 Too Many Requests: {}; Retry-After asks for 3600 s, more than the 60 s we wait`);
    expect(hits).toBe(1);
  });

  it('retries a 500 and returns the next successful response', async () => {
    serve((_req, res, hit) => (hit === 1 ? sendJson(res, 500, { error: 'boom' }) : sendJson(res, 200, [1, 2, 3])));
    const retries: RetryEvent[] = [];
    const body = await client({ onRetry: (event) => retries.push(event) }).json(`${base}/a`);
    expect(body).toEqual([1, 2, 3]);
    expect(retries.map((r) => r.reason)).toEqual(['500 Internal Server Error']);
    // Equal jitter: between half and the whole of the first backoff (5 ms).
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(2);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(5);
  });

  it('gives up after maxAttempts and names method, URL and status', async () => {
    serve((_req, res) => sendJson(res, 502, { error: 'upstream down' }));
    const error = (await client({ maxAttempts: 3 })
      .json(`${base}/tours?page=2`)
      .catch((e: unknown) => e)) as FetchError;
    expect(hits).toBe(3);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ method: 'GET', url: `${base}/tours?page=2`, status: 502, attempts: 3 });
    expect(error.message).toBe(`[GET] "${base}/tours?page=2": 502 Bad Gateway: {"error":"upstream down"} (after 3 attempts)`);
  });

  it('backs off exponentially between attempts', async () => {
    serve((_req, res) => sendJson(res, 503, {}));
    const retries: RetryEvent[] = [];
    await client({ maxAttempts: 4, minDelayMs: 40, maxDelayMs: 100 })
      .json(`${base}/a`, { onRetry: (event) => retries.push(event) })
      .catch(() => undefined);
    const delays = retries.map((r) => r.delayMs);
    expect(delays).toHaveLength(3);
    expect(delays[0]).toBeGreaterThanOrEqual(20);
    expect(delays[0]).toBeLessThanOrEqual(40);
    expect(delays[1]).toBeGreaterThanOrEqual(40);
    expect(delays[1]).toBeLessThanOrEqual(80);
    // Capped at maxDelayMs.
    expect(delays[2]).toBeGreaterThanOrEqual(50);
    expect(delays[2]).toBeLessThanOrEqual(100);
  });

  it('does not retry a 404', async () => {
    serve((_req, res) => sendJson(res, 404, { error: 'no such page' }));
    const error = (await client()
      .json(`${base}/missing`)
      .catch((e: unknown) => e)) as FetchError;
    expect(hits).toBe(1);
    expect(error.message).toBe(`[GET] "${base}/missing": 404 Not Found: {"error":"no such page"}`);
    expect(error.status).toBe(404);
  });

  it('times out a response whose headers never come, and retries it', async () => {
    serve((_req, res, hit) => {
      if (hit === 2) sendJson(res, 200, { ok: true });
      // The first request hangs: no status line, no headers.
    });
    const retries: RetryEvent[] = [];
    const started = Date.now();
    const body = await client({ headersTimeoutMs: 200 }).json(`${base}/slow`, { onRetry: (event) => retries.push(event) });
    expect(body).toEqual({ ok: true });
    expect(retries.map((r) => r.reason)).toEqual(['UND_ERR_HEADERS_TIMEOUT']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('times out a body that stops halfway and reports it after the last attempt', async () => {
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
    });
    const error = (await client({ bodyTimeoutMs: 150, maxAttempts: 2 })
      .json(`${base}/stall`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/^\[GET\] ".*\/stall": 200 response broke off: UND_ERR_BODY_TIMEOUT .* \(after 2 attempts\)$/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('refuses malformed JSON with a clear message', async () => {
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>Maintenance</html>');
    });
    const error = (await client()
      .json(`${base}/a`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toMatch(/^\[GET\] ".*\/a": 200 OK with malformed JSON, expected JSON: Unexpected token/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(hits).toBe(1);
  });

  it('refuses truncated JSON and says it was cut off', async () => {
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"meta":{"page":{"number":0}},"data":[{"identifier":"a"},{"ident');
    });
    const error = (await client()
      .json(`${base}/a`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error.message).toMatch(/^\[GET\] ".*\/a": 200 OK with truncated JSON \(64 bytes\), expected JSON: /);
  });

  it('says a body cut off just after a comma was cut off, not malformed', async () => {
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"meta":{"page":0,');
    });
    const error = (await client()
      .json(`${base}/a`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error.message).toMatch(/^\[GET\] ".*\/a": 200 OK with truncated JSON \(18 bytes\), expected JSON: /);
  });

  it('retries a body shorter than its Content-Length, as a network failure', async () => {
    serve((_req, res, hit) => {
      if (hit === 2) return sendJson(res, 200, { ok: true });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data": [1, 2');
      res.destroy();
    });
    const retries: RetryEvent[] = [];
    expect(await client().json(`${base}/a`, { onRetry: (event) => retries.push(event) })).toEqual({ ok: true });
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/^UND_ERR_/);
  });

  it('retries a refused connection and then reports it', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = (await client({ maxAttempts: 2 })
      .json(`http://127.0.0.1:${port}/a`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/ECONNREFUSED.*\(after 2 attempts\)$/);
  });

  it('never has more requests in flight than its concurrency', async () => {
    let inFlight = 0;
    let most = 0;
    serve((_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        sendJson(res, 200, { ok: true });
      }, 30);
    });
    const http = client({ concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => http.json(`${base}/p${i}`)));
    expect(hits).toBe(12);
    expect(most).toBe(3);
  });

  it('lets the requests of one pace key through at most one per interval, and others unpaced', async () => {
    const arrived: Record<string, number[]> = { a: [], b: [] };
    serve((req, res) => {
      arrived[req.url!.slice(1, 2)]!.push(Date.now());
      sendJson(res, 200, { ok: true });
    });
    const http = client({ concurrency: 8 });
    const pace = { key: 'quota', intervalMs: 80 };
    const started = Date.now();
    await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => http.json(`${base}/a${i}`, { pace })),
      ...Array.from({ length: 4 }, (_, i) => http.json(`${base}/b${i}`)),
    ]);
    const paced = arrived.a!.sort((x, y) => x - y);
    // The n-th request of the key is let through no sooner than n intervals after the first.
    paced.forEach((at, n) => expect(at - started).toBeGreaterThanOrEqual(n * 80 - 5));
    expect(arrived.b).toHaveLength(4);
  });

  it('waits rateLimitWaitMs after a 429 without Retry-After, and the usual backoff without the setting', async () => {
    serve((_req, res, hit) => (hit % 2 === 1 ? sendJson(res, 429, {}) : sendJson(res, 200, { ok: true })));
    const retries: RetryEvent[] = [];
    expect(await client().json(`${base}/a`, { rateLimitWaitMs: 150, onRetry: (e) => retries.push(e) })).toEqual({ ok: true });
    expect(retries.map((r) => r.delayMs)).toEqual([150]);
    serve((_req, res, hit) => (hit === 1 ? sendJson(res, 429, {}) : sendJson(res, 200, { ok: true })));
    await client().json(`${base}/a`, { onRetry: (e) => retries.push(e) });
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(5);
  });

  it('holds back every request of a pace key for the wait of a 429 among them', async () => {
    const arrived: { url: string; at: number }[] = [];
    serve((req, res, hit) => {
      arrived.push({ url: req.url!, at: Date.now() });
      if (hit === 1) sendJson(res, 429, {});
      else sendJson(res, 200, { ok: true });
    });
    const http = client();
    const pace = { key: 'quota', intervalMs: 20 };
    await Promise.all([http.json(`${base}/first`, { pace, rateLimitWaitMs: 300 }), http.json(`${base}/second`, { pace, rateLimitWaitMs: 300 })]);
    // The second had its turn booked before the 429 arrived; a third, asked for after it, waits.
    await http.json(`${base}/third`, { pace, rateLimitWaitMs: 300 });
    const limited = arrived[0]!.at;
    expect(arrived.map((a) => a.url)).toEqual(['/first', '/second', '/first', '/third']);
    expect(arrived[2]!.at - limited).toBeGreaterThanOrEqual(295);
    expect(arrived[3]!.at - limited).toBeGreaterThanOrEqual(295);
  });

  it('ends an attempt whose body still trickles at attemptTimeoutMs, though no gap reaches the body timeout, and retries it', async () => {
    const timers: NodeJS.Timeout[] = [];
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      timers.push(setInterval(() => res.write(' '), 20));
    });
    const error = (await client({ attemptTimeoutMs: 300, bodyTimeoutMs: 5_000, maxAttempts: 2 })
      .json(`${base}/slow`)
      .catch((e: unknown) => e)) as FetchError;
    timers.forEach(clearInterval);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(`[GET] "${base}/slow": stopped after 300 ms, the longest an attempt may take, while its 200 response body was still arriving (after 2 attempts)`);
    expect(hits).toBe(2);
  });

  it('ends an attempt still running at the deadline, naming the deadline, without a retry', async () => {
    const timers: NodeJS.Timeout[] = [];
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      timers.push(setInterval(() => res.write(' '), 20));
    });
    const error = (await client({ deadlineMs: 400, deadlineName: 'SYNC_DEADLINE_MS', attemptTimeoutMs: 60_000, bodyTimeoutMs: 5_000 })
      .json(`${base}/slow`)
      .catch((e: unknown) => e)) as FetchError;
    timers.forEach(clearInterval);
    expect(error.message).toBe(`[GET] "${base}/slow": stopped: SYNC_DEADLINE_MS (400 ms) passed while its 200 response body was still arriving`);
    expect(error.attempts).toBe(1);
    expect(hits).toBe(1);
  });

  it('does not send an attempt once the deadline has passed', async () => {
    serve((_req, res) => sendJson(res, 503, {}));
    const error = (await client({ deadlineMs: 60, deadlineName: 'SYNC_DEADLINE_MS', minDelayMs: 50, maxDelayMs: 50, maxAttempts: 5 })
      .json(`${base}/a`)
      .catch((e: unknown) => e)) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toMatch(/SYNC_DEADLINE_MS \(60 ms\)/);
  });

  it('fails a retry whose wait would pass the deadline at once, naming it', async () => {
    serve((_req, res) => sendJson(res, 429, {}));
    const error = (await client({ deadlineMs: 1_000 })
      .json(`${base}/a`, { rateLimitWaitMs: 60_000 })
      .catch((e: unknown) => e)) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(`[GET] "${base}/a": 429 Too Many Requests: {}; waiting 60 s to retry would pass the run's deadline`);
    expect(hits).toBe(1);
  });

  it('does not send a paced request whose turn comes after the deadline', async () => {
    serve((_req, res) => sendJson(res, 200, { ok: true }));
    const http = client({ deadlineMs: 500 });
    const pace = { key: 'quota', intervalMs: 10_000 };
    const results = await Promise.allSettled([http.json(`${base}/a`, { pace }), http.json(`${base}/b`, { pace })]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect((results[1] as PromiseRejectedResult).reason.message).toBe(`[GET] "${base}/b": not sent: its turn in the quota quota comes after the run's deadline`);
    expect(hits).toBe(1);
  });

  it('redacts keys in the query and configured secrets from every message', async () => {
    serve((_req, res) => sendJson(res, 401, { error: 'invalid key s3cr3t-value' }));
    const retries: RetryEvent[] = [];
    const error = (await client({ secrets: ['s3cr3t-value'], onRetry: (e) => retries.push(e) })
      .json(`${base}/a?api_key=s3cr3t-value&lang=de&page=0`, { headers: { 'x-api-key': 's3cr3t-value' } })
      .catch((e: unknown) => e)) as FetchError;
    expect(error.message).toBe(`[GET] "${base}/a?api_key=REDACTED&lang=de&page=0": 401 Unauthorized: {"error":"invalid key REDACTED"}`);
    expect(error.url).not.toContain('s3cr3t');
  });
});

describe('redactUrl', () => {
  it('replaces credential-like query values and keeps the rest', () => {
    expect(redactUrl('https://api.example.ch/v1/x?lang=de&apikey=abc&access_token=def&page=2')).toBe(
      'https://api.example.ch/v1/x?lang=de&apikey=REDACTED&access_token=REDACTED&page=2',
    );
  });
});

describe('parseRetryAfter', () => {
  it('reads delay seconds', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
  });
  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-11-21T04:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 04:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 03:59:00 GMT', now)).toBe(0);
  });
  it('ignores an absent or unreadable value', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
