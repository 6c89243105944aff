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
      if (path === '/bookings/bkg_conflict') {
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
      } else if (path === '/bookings/bkg_slow') {
        // Never answers.
      } else if (path === '/bookings/bkg_stall') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      } else if (path === '/bookings/bkg_reset') {
        req.socket.destroy();
      } else if (path === '/bookings/bkg_unauthorized') {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"message":"invalid key"}');
      } else {
        // Echo, credential included, as a careless upstream might.
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'x-echo-authorization': req.headers.authorization ?? '' });
        res.end(JSON.stringify({ method: req.method, url: req.url, authorization: req.headers.authorization, body }));
      }
    });
  });
  upstreamUrl = `http://127.0.0.1:${await listen(upstream)}/partner`;
  h = await startBooking({ mode: 'proxy', upstreamUrl, apiKey: API_KEY, authHeader: 'Authorization', upstreamTimeoutMs: 300 });
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
    expect(call!.url).toBe('/partner/bookings/bkg_1');
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

  it('forwards the body and the Idempotency-Key of a POST unchanged, as JSON', async () => {
    const body = '{"activityId":4711,"availabilityId":"4711-20261122-0900","selection":[{"ticketCategoryId":471101,"numGuests":2}]}';
    const answer = await send('POST', '/v1/reservations', { body, headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json; charset=utf-8' } });
    expect(answer.status).toBe(201);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/partner/reservations', body });
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers['idempotency-key']).toBe('k-1');
  });

  it('sends a PATCH body as merge-patch JSON, as the partner takes it, whichever JSON type the client used', async () => {
    const body = '{"user":{"givenName":"Anna","familyName":"Muster","email":"anna@example.ch"}}';
    await send('PATCH', '/v1/carts/cart_1/check_out', { body, headers: { 'content-type': 'application/json' } });
    await send('PATCH', '/v1/carts/cart_1/check_out', { body, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(received.map((call) => [call.method, call.url, call.headers['content-type'], call.body])).toEqual([
      ['PATCH', '/partner/carts/cart_1/check_out', 'application/merge-patch+json', body],
      ['PATCH', '/partner/carts/cart_1/check_out', 'application/merge-patch+json', body],
    ]);
  });

  it('answers a retry under the same Idempotency-Key itself, calling the upstream once', async () => {
    const options = { body: { paymentMethod: 'invoice' }, headers: { 'idempotency-key': 'pay-once' } };
    const first = await send('POST', '/v1/bookings/bkg_2/payment_attempts', options);
    const retry = await send('POST', '/v1/bookings/bkg_2/payment_attempts', options);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(received).toHaveLength(1);
  });

  it('writes the locale in the underscore form upstream, and refuses an unknown one itself', async () => {
    await send('GET', '/v1/activities?locale=fr-CH');
    expect(received[0]!.url).toBe('/partner/activities/summaries?locale=fr_CH');
    expect((await send('GET', '/v1/activities?locale=xx', {}, true)).status).toBe(400);
    expect(received).toHaveLength(1);
  });

  it('refuses a query parameter given twice or not UTF-8 itself, and passes an unknown one on unchanged', async () => {
    expect(await send('GET', '/v1/activities/9/availabilities?limit=1&limit=500', {}, true)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: 'Query parameter limit is given more than once; give each at most once', details: { field: 'limit' } } },
    });
    expect(await send('GET', '/v1/activities?locale=de-CH&q=%E2%82', {}, true)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: 'Parameter "q" is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX', details: { field: 'q' } } },
    });
    expect(received).toHaveLength(0);
    await send('GET', '/v1/activities/9/availabilities?limit=1&partnerOnly=x');
    expect(received[0]!.url).toBe('/partner/activities/9/availabilities?limit=1&partnerOnly=x');
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
    expect(h.logs.at(-1)).toBe('booking upstream GET /v1/bookings/bkg_unauthorized answered 401: the partner refused the credential; check BOOKING_API_KEY and SWISSACTIVITIES_AUTH_HEADER');
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
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, authHeader: 'Authorization' });
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
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, authHeader: 'Authorization' });
    try {
      const answer = await request(proxy.url, 'POST', '/v1/reservations', { body: { activityId: 1, availabilityId: '1-20261122-0900', selection: [{ ticketCategoryId: 101, numGuests: 1 }] } });
      expect(answer.status).toBe(502);
      expect(answer.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      await proxy.stop();
      garbage.close();
    }
  });
});

/**
 * A loopback stand-in for Swiss Activities' booking API: it answers only the partner's paths
 * (no /v1), with the credential in the configured header and each body in the shape the partner
 * takes, and says what was wrong otherwise (as a 400 the proxy passes through).
 */
function startPartner(authHeader: string, credential: string): Promise<{ url: string; calls: string[]; close: () => void }> {
  const calls: string[] = [];
  const keys = (value: unknown) => (typeof value === 'object' && value !== null ? Object.keys(value).sort().join(',') : typeof value);
  const contract: { method: string; path: RegExp; contentType?: string; body?: (body: Record<string, any>) => boolean; answer: unknown }[] = [
    { method: 'GET', path: /^\/activities\/summaries\?locale=en_CH$/, answer: [{ activityId: 41014, startingPrice: { amount: '237.00', currency: 'CHF', formatted: 'CHF 237.00' } }] },
    {
      method: 'GET',
      path: /^\/activities\/41014\/availabilities\?startsAfter=2026-11-23&untilEndOfDay=2026-11-23&limit=50&locale=en_CH$/,
      answer: [{ offerId: 7, availabilities: [{ availabilityId: 5501, ticketCategoryIds: [3] }], ticketCategories: [{ ticketCategoryId: 3 }] }],
    },
    {
      method: 'POST',
      path: /^\/reservations$/,
      contentType: 'application/json',
      body: (b) => keys(b) === 'activityId,availabilityId,doCreateCart,locale,selection' && keys(b.selection[0]) === 'numGuests,ticketCategoryId',
      answer: { reservationId: 'r-1', cart: { cartId: 'c-1' } },
    },
    {
      method: 'PATCH',
      path: /^\/carts\/c-1\/check_out$/,
      contentType: 'application/merge-patch+json',
      body: (b) => keys(b) === 'user' && keys(b.user) === 'countryCode,email,familyName,givenName,phone',
      answer: { bookingId: 'b-1' },
    },
    {
      method: 'POST',
      path: /^\/bookings\/b-1\/payment_attempts$/,
      contentType: 'application/json',
      body: (b) => keys(b) === 'failureReturnUrl,language,paymentMethod,successReturnUrl',
      answer: { paymentAttemptId: 'p-1', redirectUrl: 'https://pay.partner.example/p-1' },
    },
    { method: 'GET', path: /^\/bookings\/b-1$/, answer: { bookingId: 'b-1', paymentStatus: 'paid' } },
    { method: 'PATCH', path: /^\/booking_items\/i-1\/cancel$/, answer: { bookingItemId: 'i-1' } },
  ];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const path = req.url!.replace(/^\/partner/, '');
      calls.push(`${req.method} ${path}`);
      const refuse = (why: string) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ why }));
      if (req.headers[authHeader.toLowerCase()] !== credential) return refuse(`no credential in ${authHeader}`);
      if (authHeader.toLowerCase() !== 'authorization' && req.headers.authorization !== undefined) return refuse('an Authorization header besides the credential');
      const call = contract.find((candidate) => candidate.method === req.method && candidate.path.test(path));
      if (call === undefined) return refuse(`not a partner call: ${req.method} ${path}`);
      if (call.contentType !== undefined && req.headers['content-type'] !== call.contentType) return refuse(`content type ${req.headers['content-type']}`);
      if (call.body !== undefined && !call.body(JSON.parse(raw))) return refuse(`body ${raw}`);
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(call.answer));
    });
  });
  return listen(server).then((port) => ({ url: `http://127.0.0.1:${port}/partner`, calls, close: () => server.close() }));
}

describe('proxy mode against the partner contract', () => {
  it("walks a whole booking through the partner's paths with its bodies, passing its answers on", async () => {
    const partner = await startPartner('Authorization', `Bearer ${API_KEY}`);
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: partner.url, apiKey: API_KEY });
    const via = (method: string, target: string, body?: unknown, contentType = 'application/json') =>
      request(proxy.url, method, target, { body, headers: body === undefined ? {} : { 'content-type': contentType }, unchecked: true });
    try {
      const steps = [
        await via('GET', '/v1/activities?locale=en-CH'),
        await via('GET', '/v1/activities/41014/availabilities?startsAfter=2026-11-23&untilEndOfDay=2026-11-23&limit=50&locale=en_CH'),
        await via('POST', '/v1/reservations', { activityId: 41014, availabilityId: 5501, selection: [{ ticketCategoryId: 3, numGuests: 2 }], locale: 'en_CH', doCreateCart: true }),
        await via('PATCH', '/v1/carts/c-1/check_out', { user: { givenName: 'Anna', familyName: 'Muster', email: 'anna@example.ch', phone: '+41791234567', countryCode: 'CH' } }),
        await via('POST', '/v1/bookings/b-1/payment_attempts', { paymentMethod: 'card', successReturnUrl: 'https://shop.example/ok', failureReturnUrl: 'https://shop.example/ko', language: 'en_CH' }),
        await via('GET', '/v1/bookings/b-1'),
        await via('PATCH', '/v1/booking_items/i-1/cancel', undefined),
      ];
      expect(steps.map((step) => [step.status, step.body])).toEqual([
        [200, [{ activityId: 41014, startingPrice: { amount: '237.00', currency: 'CHF', formatted: 'CHF 237.00' } }]],
        [200, [{ offerId: 7, availabilities: [{ availabilityId: 5501, ticketCategoryIds: [3] }], ticketCategories: [{ ticketCategoryId: 3 }] }]],
        [201, { reservationId: 'r-1', cart: { cartId: 'c-1' } }],
        [200, { bookingId: 'b-1' }],
        [201, { paymentAttemptId: 'p-1', redirectUrl: 'https://pay.partner.example/p-1' }],
        [200, { bookingId: 'b-1', paymentStatus: 'paid' }],
        [200, { bookingItemId: 'i-1' }],
      ]);
      expect(partner.calls).toEqual([
        'GET /activities/summaries?locale=en_CH',
        'GET /activities/41014/availabilities?startsAfter=2026-11-23&untilEndOfDay=2026-11-23&limit=50&locale=en_CH',
        'POST /reservations',
        'PATCH /carts/c-1/check_out',
        'POST /bookings/b-1/payment_attempts',
        'GET /bookings/b-1',
        'PATCH /booking_items/i-1/cancel',
      ]);
    } finally {
      await proxy.stop();
      partner.close();
    }
  });

  it('sends the bare key in another header when SWISSACTIVITIES_AUTH_HEADER names one, and no Authorization', async () => {
    const partner = await startPartner('X-Api-Key', API_KEY);
    const proxy = await startBooking({ mode: 'proxy', upstreamUrl: partner.url, apiKey: API_KEY, authHeader: 'X-Api-Key' });
    try {
      const answer = await request(proxy.url, 'GET', '/v1/bookings/b-1', { headers: { authorization: 'Bearer client-token' }, unchecked: true });
      expect([answer.status, answer.body]).toEqual([200, { bookingId: 'b-1', paymentStatus: 'paid' }]);
    } finally {
      await proxy.stop();
      partner.close();
    }
  });
});
