import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, request, startBooking } from './helpers.ts';

const API_KEY = 'sk_live_partner-Secret.123';

/** What the loopback upstream received. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let upstream: Server;
let upstreamUrl: string;
let received: Received[] = [];
let h: Harness;
/** Every response body and header block the client got, to look for the key in. */
const seenByClient: string[] = [];

async function listen(server: Server | net.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = req.url!.replace(/^\/partner/, '').split('?')[0];
      if (path === '/v1/bookings/bkg_conflict') {
        res.writeHead(409, {
          'content-type': 'application/json',
          connection: 'keep-alive, x-partner-hop',
          'x-partner-hop': '1',
          'keep-alive': 'timeout=99, max=7',
          'set-cookie': 'session=partner',
          'access-control-allow-origin': '*',
          'x-partner-trace': 'trace-1',
        });
        res.end('{"message":"already taken at the partner"}');
      } else if (path === '/v1/bookings/bkg_slow') {
        // Never answers.
      } else if (path === '/v1/bookings/bkg_stall') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      } else if (path === '/v1/bookings/bkg_reset') {
        req.socket.destroy();
      } else if (path === '/v1/bookings/bkg_unauthorized') {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"message":"invalid key"}');
      } else {
        // Echo, credential included, as a careless upstream might.
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'x-echo-authorization': req.headers.authorization ?? '' });
        res.end(JSON.stringify({ method: req.method, url: req.url, authorization: req.headers.authorization, body }));
      }
    });
  });
  upstreamUrl = `http://127.0.0.1:${await listen(upstream)}/partner`;
  h = await startBooking({ mode: 'proxy', upstreamUrl, apiKey: API_KEY, upstreamTimeoutMs: 300 });
});

afterEach(() => {
  received = [];
});

afterAll(async () => {
  await h.stop();
  upstream.closeAllConnections();
  upstream.close();
  // Neither the client nor the log ever saw the credential.
  expect(seenByClient.join('\n')).not.toContain(API_KEY);
  expect(h.logs.join('\n')).not.toContain(API_KEY);
});

/** Sends through the proxy; only our own answers (`own`) are checked against the OpenAPI document. */
async function send(method: string, target: string, options: { body?: unknown; headers?: Record<string, string> } = {}, own = false) {
  const answer = await request(h.url, method, target, { ...options, unchecked: !own });
  seenByClient.push(JSON.stringify(answer.body), JSON.stringify([...answer.headers]));
  return answer;
}

describe('proxy mode', () => {
  it('forwards a call with the credential added and the client credential, cookies and hop-by-hop headers left out', async () => {
    const answer = await send('GET', '/v1/bookings/bkg_1', {
      headers: { authorization: 'Bearer client-token', cookie: 'a=b', 'idempotency-key': 'ignored-on-get', 'x-request-id': 'req-1', 'accept-language': 'fr', connection: 'keep-alive' },
    });
    expect(answer.status).toBe(200);
    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call!.method).toBe('GET');
    expect(call!.url).toBe('/partner/v1/bookings/bkg_1');
    expect(call!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call!.headers.cookie).toBeUndefined();
    expect(call!.headers['x-request-id']).toBe('req-1');
    expect(call!.headers['accept-language']).toBe('fr');
    expect(call!.headers.origin).toBeUndefined();
  });

  it('never shows the credential to the client, even when the upstream echoes it', async () => {
    const answer = await send('GET', '/v1/bookings/bkg_echo');
    expect(answer.body.authorization).toBe('Bearer [redacted]');
    expect(answer.headers.get('x-echo-authorization')).toBe('Bearer [redacted]');
  });

  it('forwards the body, the content type and the Idempotency-Key of a POST unchanged', async () => {
    const body = '{"slotId":"4711-20261122-0900","quantity":2}';
    const answer = await send('POST', '/v1/reservations', { body, headers: { 'idempotency-key': 'k-1' } });
    expect(answer.status).toBe(201);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/partner/v1/reservations', body });
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers['idempotency-key']).toBe('k-1');
  });

  it('answers a retry under the same Idempotency-Key itself, calling the upstream once', async () => {
    const options = { body: { method: 'invoice' }, headers: { 'idempotency-key': 'pay-once' } };
    const first = await send('POST', '/v1/bookings/bkg_2/payment_attempts', options);
    const retry = await send('POST', '/v1/bookings/bkg_2/payment_attempts', options);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(received).toHaveLength(1);
  });

  it('writes the locale in the underscore form upstream, and refuses an unknown one itself', async () => {
    await send('GET', '/v1/activities?locale=fr-CH');
    expect(received[0]!.url).toBe('/partner/v1/activities?locale=fr_CH');
    expect((await send('GET', '/v1/activities?locale=xx', {}, true)).status).toBe(400);
    expect(received).toHaveLength(1);
  });

  it('passes the upstream status and body through, without hop-by-hop, cookie or CORS headers', async () => {
    const answer = await send('GET', '/v1/bookings/bkg_conflict');
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ message: 'already taken at the partner' });
    expect(answer.headers.get('x-partner-trace')).toBe('trace-1');
    for (const name of ['x-partner-hop', 'set-cookie', 'access-control-allow-origin']) expect(answer.headers.get(name), name).toBeNull();
    // Our own server sends its own Keep-Alive; the upstream's must not replace it.
    expect(answer.headers.get('keep-alive')).not.toContain('max=7');
  });

  it('passes a refused credential through and tells the operator to check the key', async () => {
    const answer = await send('GET', '/v1/bookings/bkg_unauthorized');
    expect(answer.status).toBe(401);
    expect(h.logs.at(-1)).toBe('booking upstream GET /v1/bookings/bkg_unauthorized answered 401: the partner refused the credential; check BOOKING_API_KEY');
  });

  it('sends nothing upstream for a path that is not one of the seven, a wrong method, or a preflight', async () => {
    for (const [method, target] of [
      ['GET', '/v1/admin'],
      ['GET', '/v1/bookings/..%2F..%2Fadmin'],
      ['GET', '/v1/bookings/bkg_1/tickets'],
      ['DELETE', '/v1/bookings/bkg_1'],
      ['PUT', '/v1/reservations'],
    ] as const) {
      expect([404, 405], `${method} ${target}`).toContain((await send(method, target, {}, true)).status);
    }
    const preflight = await fetch(`${h.url}/v1/carts/cart_1/check_out`, {
      method: 'OPTIONS',
      headers: { origin: 'https://www.operator.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type, idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, idempotency-key');
    expect(received).toEqual([]);
  });

  it('answers 504 when the upstream sends no answer, or stops mid-body, within the timeout', async () => {
    for (const id of ['bkg_slow', 'bkg_stall']) {
      const answer = await send('GET', `/v1/bookings/${id}`, {}, true);
      expect(answer.status, id).toBe(504);
      expect(answer.body.error).toEqual({ code: 'UPSTREAM_TIMEOUT', message: 'The booking partner did not answer within 300 ms', details: { timeoutMs: 300 } });
    }
  });

  it('answers 502 when the upstream drops the connection', async () => {
    const answer = await send('GET', '/v1/bookings/bkg_reset', {}, true);
    expect(answer.status).toBe(502);
    expect(answer.body.error).toEqual({ code: 'UPSTREAM_UNAVAILABLE', message: 'The booking partner could not be reached or sent an invalid response', details: {} });
    expect(h.logs.at(-1)).toMatch(/^booking upstream GET \/v1\/bookings\/bkg_reset failed: /);
  });
});

describe('proxy mode against a broken upstream', () => {
  it('answers 502 when nothing listens upstream', async () => {
    const closed = net.createServer();
    const port = await listen(closed);
    closed.close();
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY });
    try {
      const answer = await request(proxy.url, 'GET', '/v1/activities');
      expect(answer.status).toBe(502);
      expect(answer.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(proxy.logs.at(-1)).toMatch(/ECONNREFUSED/);
      expect(proxy.logs.join('\n')).not.toContain(API_KEY);
    } finally {
      await proxy.stop();
    }
  });

  it('answers 502 when the upstream does not speak HTTP', async () => {
    const garbage = net.createServer((socket) => socket.on('data', () => socket.end('garbage\r\n\r\n')));
    const port = await listen(garbage);
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY });
    try {
      const answer = await request(proxy.url, 'POST', '/v1/reservations', { body: { slotId: '1-20261122-0900', quantity: 1 } });
      expect(answer.status).toBe(502);
      expect(answer.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      await proxy.stop();
      garbage.close();
    }
  });
});
