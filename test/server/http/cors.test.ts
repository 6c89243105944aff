import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCors } from '../../../server/http/cors.ts';

/** What browser GraphQL clients add to their requests: Apollo's, OpenTelemetry's, Sentry's. */
const CLIENT_HEADERS = [
  'apollographql-client-name',
  'apollographql-client-version',
  'apollo-require-preflight',
  'traceparent',
  'tracestate',
  'baggage',
  'sentry-trace',
];

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const cors = createCors(['https://tourism.example', 'HTTPS://Partner.Example:8443/']);
  // A policy that names its headers, as the booking interface's does.
  const listed = createCors(['https://tourism.example'], { methods: 'GET, OPTIONS', requestHeaders: new Set(['x-request-id']) });
  server = createServer((req, res) => {
    if (!(req.url === '/listed' ? listed : cors)(req, res)) res.end('served');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

/** The CORS-relevant response headers, plus status and body. */
async function send(headers: Record<string, string>, method = 'GET', path = '/api/graphql') {
  const response = await fetch(`${baseUrl}${path}`, { method, headers });
  const picked: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (name.startsWith('access-control-') || name === 'vary') picked[name] = value;
  }
  return { status: response.status, headers: picked, body: await response.text() };
}

describe('createCors', () => {
  it('grants an origin on the allow-list and echoes it', async () => {
    expect(await send({ origin: 'https://tourism.example' })).toMatchInlineSnapshot(`
      {
        "body": "served",
        "headers": {
          "access-control-allow-origin": "https://tourism.example",
          "vary": "Origin",
        },
        "status": 200,
      }
    `);
  });

  it('reads allow-list entries as origins, whatever their case or trailing slash', async () => {
    const { headers } = await send({ origin: 'https://partner.example:8443' });
    expect(headers['access-control-allow-origin']).toBe('https://partner.example:8443');
  });

  it.each([
    'http://localhost:5173',
    'http://localhost',
    'https://localhost:8443',
    'http://127.0.0.1:8080',
    'http://[::1]:3000',
  ])('grants the loopback origin %s', async (origin) => {
    const { headers } = await send({ origin });
    expect(headers['access-control-allow-origin']).toBe(origin);
  });

  it.each([
    'https://evil.example',
    'https://tourism.example.evil.example',
    'http://localhost.evil.example',
    'http://127.0.0.1.nip.io',
    'ftp://localhost',
    'http://localhost:5173/',
    'null',
  ])('grants nothing to the origin %s but still serves the request', async (origin) => {
    expect(await send({ origin })).toEqual({ status: 200, headers: { vary: 'Origin' }, body: 'served' });
  });

  it('serves a request without Origin with Vary: Origin and no CORS headers', async () => {
    expect(await send({})).toEqual({ status: 200, headers: { vary: 'Origin' }, body: 'served' });
  });

  it('answers a preflight from a granted origin with 204 and the grant of the request headers it asks for', async () => {
    const preflight = await send(
      {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Content-Type, X-Request-Id, Authorization',
      },
      'OPTIONS',
    );
    expect(preflight).toMatchInlineSnapshot(`
      {
        "body": "",
        "headers": {
          "access-control-allow-headers": "content-type, x-request-id, authorization",
          "access-control-allow-methods": "GET, POST, OPTIONS",
          "access-control-allow-origin": "http://localhost:5173",
          "access-control-max-age": "7200",
          "vary": "Origin, Access-Control-Request-Headers",
        },
        "status": 204,
      }
    `);
  });

  it("grants the headers of Apollo's client awareness, OpenTelemetry and Sentry, with a max age", async () => {
    const { status, headers } = await send(
      { origin: 'https://tourism.example', 'access-control-request-method': 'POST', 'access-control-request-headers': ['content-type', ...CLIENT_HEADERS].join(',') },
      'OPTIONS',
    );
    expect(status).toBe(204);
    expect(headers['access-control-allow-headers']?.split(', ')).toEqual(['content-type', ...CLIENT_HEADERS]);
    expect(headers['access-control-max-age']).toBe('7200');
  });

  it('grants no name that is not a header name, and at most 64 names', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `x-h${i}`);
    const { headers } = await send(
      { origin: 'https://tourism.example', 'access-control-request-method': 'POST', 'access-control-request-headers': ['x-ok', 'bad name', 'x"quote', ...many].join(',') },
      'OPTIONS',
    );
    const granted = headers['access-control-allow-headers']!.split(', ');
    expect(granted.slice(0, 3)).toEqual(['content-type', 'x-ok', 'x-h0']);
    expect(granted).toHaveLength(64);
  });

  it('keeps to its list of request headers under a policy that names them', async () => {
    const { headers } = await send(
      { origin: 'https://tourism.example', 'access-control-request-method': 'GET', 'access-control-request-headers': ['x-request-id', ...CLIENT_HEADERS].join(',') },
      'OPTIONS',
      '/listed',
    );
    expect(headers['access-control-allow-headers']).toBe('content-type, x-request-id');
    expect(headers['access-control-allow-methods']).toBe('GET, OPTIONS');
  });

  it('grants content-type in a preflight that asks for no headers', async () => {
    const { headers } = await send({ origin: 'https://tourism.example', 'access-control-request-method': 'GET' }, 'OPTIONS');
    expect(headers['access-control-allow-headers']).toBe('content-type');
  });

  it('answers a preflight from a foreign origin with 204 and no grant', async () => {
    const preflight = await send(
      { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      'OPTIONS',
    );
    expect(preflight).toEqual({ status: 204, headers: { vary: 'Origin, Access-Control-Request-Headers' }, body: '' });
  });

  it('leaves an OPTIONS request that is no preflight to the caller', async () => {
    expect(await send({ origin: 'https://tourism.example' }, 'OPTIONS')).toMatchObject({ status: 200, body: 'served' });
  });

  it.each(['*', 'tourism.example', 'https://tourism.example/app', 'https://tourism.example?x=1', 'file:///tmp', ''])(
    'refuses the allow-list entry %j',
    (entry) => {
      expect(() => createCors([entry])).toThrow(`Allowed origin ${JSON.stringify(entry)} is not an origin; expected e.g. "https://example.com"`);
    },
  );
});
