import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { serverAudits } from 'graphql-http';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSizeTally } from '../../../server/snapshot/answerSizes.ts';
import { readConfig } from '../../../server/config/config.ts';
import type { HttpOptions, ServedSnapshot } from '../../../server/http/httpOptions.ts';
import { createHttpService, type HttpService } from '../../../server/http/server.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { createMetrics } from '../../../server/ops/metrics.ts';
import { hashQuery } from '../../../server/http/graphql/persistedQueries.ts';

const sdl = /* GraphQL */ `
  scalar Code

  type Query {
    greeting(name: String! = "Zürich"): String!
    slice(limit: Int!): [Int!]!
    echo(code: Code!): String!
    broken: String
    "Busy for 30 ms, as a slow search would be."
    slow: String
    "A long text, to be compressed."
    long: String!
    items(limit: Int = 10): [Item!]!
    "Counts its executions: tells an answer from the response cache from a new one."
    tick: Int!
  }

  type Item {
    id: Int!
    name: String!
  }
`;

interface TestContext {
  salutation: string;
}

let ticks = 0;

const schema = makeExecutableSchema<TestContext>({
  typeDefs: sdl,
  resolvers: {
    Code: new GraphQLScalarType({
      name: 'Code',
      parseValue: (value) => {
        if (typeof value !== 'string') throw new TypeError(`a code is a string, got ${typeof value}`);
        return value;
      },
    }),
    Query: {
      greeting: (_root, args: { name: string }, context) => `${context.salutation}, ${args.name}!`,
      echo: (_root, args: { code: string }) => args.code,
      slice: (_root, args: { limit: number }) => {
        if (args.limit < 0) {
          throw new GraphQLError(`limit must be at least 0, got ${args.limit}`, { extensions: { code: 'BAD_USER_INPUT' } });
        }
        return [1, 2, 3].slice(0, args.limit);
      },
      broken: () => {
        throw new Error('connect ECONNREFUSED /var/run/secret.sock');
      },
      slow: () => {
        const until = performance.now() + 30;
        while (performance.now() < until);
        return 'done';
      },
      long: () => 'Grüezi mitenand! '.repeat(200),
      items: (_root, args: { limit: number }) => Array.from({ length: args.limit }, (_, id) => ({ id, name: `item ${id}` })),
      tick: () => ++ticks,
    },
  },
});

const sampleQueries = [
  { name: 'Greeting', query: 'query Greeting($name: String!) { greeting(name: $name) }', variables: { name: 'Genève' } },
  { name: 'DefaultGreeting', query: '{ greeting }', variables: {} },
];

let served: ServedSnapshot | (() => never);
const freshSnapshot = (): ServedSnapshot => ({
  version: 'v1',
  context: { salutation: 'Grüezi' },
  // A schema of no snapshot's records: every answer is estimated from the sizes of none.
  sizes: createSizeTally().sizes(),
  expiresAtMs: Date.now() + 3_600_000,
  lastSyncMs: { tours: Date.now() - 60_000 },
});

/** Log lines written by the service under test, parsed. */
let logLines: Record<string, any>[] = [];
const logStream = new Writable({
  write(chunk, _encoding, callback) {
    for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
    callback();
  },
});

function options(env: Record<string, string> = {}): HttpOptions {
  const snapshot = () => (typeof served === 'function' ? served() : served);
  return {
    schema,
    sdl,
    snapshot,
    sampleQueries: () => sampleQueries,
    status: {
      report: (ready) => ({ service: 'test', ready }),
      page: (ready) => ({ html: `<p>ready: ${ready}</p>`, contentSecurityPolicy: "default-src 'none'" }),
    },
    config: readConfig({ ALLOWED_ORIGINS: 'https://tourism.example', MAX_BODY_BYTES: '2048', EXECUTION_TIMEOUT_MS: '20', MAX_COST: '500', ...env }),
    logger: createLogger('debug', logStream),
    metrics: createMetrics(snapshot),
    bookingDocument: '/v1/openapi.json',
  };
}

async function listen(service: HttpService): Promise<string> {
  service.server.listen(0, '127.0.0.1');
  await once(service.server, 'listening');
  return `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
}

let service: HttpService;
let baseUrl: string;

beforeAll(async () => {
  service = createHttpService(options());
  baseUrl = await listen(service);
});

afterAll(() => {
  service.server.close();
});

beforeEach(() => {
  served = freshSnapshot();
  logLines = [];
});

/** Status, the headers that do not change between runs, and the body. */
async function send(path: string, init: RequestInit = {}) {
  const response = await fetch(baseUrl + path, init);
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id', 'etag'].includes(name)) headers[name] = value;
  }
  return { status: response.status, headers, body: await response.text(), etag: response.headers.get('etag'), requestId: response.headers.get('x-request-id') };
}

function postQuery(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
  return send('/api/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

describe('GraphQL over HTTP audits', () => {
  // Audits are listed at collection time; they read the URL when they run, after beforeAll.
  // The MAY audits are left out: they test optional behaviour we are free to change.
  for (const audit of serverAudits({ url: () => `${baseUrl}/api/graphql` })) {
    if (audit.name.startsWith('MAY')) continue;
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : result.reason).toBe('ok');
    });
  }
});

describe('GraphQL endpoint', () => {
  it('answers a GET query with an ETag and Cache-Control', async () => {
    const query = encodeURIComponent('{ greeting(name: "Sils/Segl") }');
    const response = await send(`/api/graphql?query=${query}`, { headers: { accept: 'application/graphql-response+json' } });
    expect(response).toMatchObject({
      status: 200,
      body: '{"data":{"greeting":"Grüezi, Sils/Segl!"}}',
      headers: {
        'content-length': '43',
        'content-type': 'application/graphql-response+json; charset=utf-8',
        'cache-control': 'public, max-age=300, stale-while-revalidate=60',
        vary: 'Origin, Accept, Accept-Encoding',
      },
    });
    expect(response.etag).toMatch(/^"[\w-]{8}[0-9a-z]{13}"$/);
  });

  // graphql-http refuses a GET target with a second `?`: so does every answer, the first or a repeat.
  it('refuses a GET whose target has a second "?", each time it is asked', async () => {
    const query = encodeURIComponent('query Hello($name: String!) { greeting(name: $name) }');
    const target = `/api/graphql?query=${query}&variables={"name":"wer?"}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await send(target, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ errors: [{ message: 'Unparsable URL', extensions: { code: 'BAD_REQUEST' } }] });
    }
    // Encoded, the same `?` is part of the value.
    const encoded = await send(`/api/graphql?query=${query}&variables=${encodeURIComponent('{"name":"wer?"}')}`, { headers: { accept: 'application/json' } });
    expect(JSON.parse(encoded.body)).toEqual({ data: { greeting: 'Grüezi, wer?!' } });
  });

  it('refuses a GET whose query string is not UTF-8 once percent-decoded with 400, naming the parameter', async () => {
    for (const target of [`/api/graphql?query=${encodeURIComponent('{ greeting(name: "')}%E2%82${encodeURIComponent('") }')}`, `/api/graphql?query=${encodeURIComponent('{ greeting }')}&operationName=%C3`]) {
      const response = await send(target, { headers: { accept: 'application/json' } });
      const name = target.includes('operationName') ? 'operationName' : 'query';
      expect({ status: response.status, body: JSON.parse(response.body) }, target).toEqual({
        status: 400,
        body: { errors: [{ message: `Parameter "${name}" is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX`, extensions: { code: 'BAD_REQUEST' } }] },
      });
    }
    // A well-formed escape of the same character, and a `%` that starts no escape, are read as they are.
    const euro = await send(`/api/graphql?query=${encodeURIComponent('{ greeting(name: "€") }')}`, { headers: { accept: 'application/json' } });
    expect(JSON.parse(euro.body)).toEqual({ data: { greeting: 'Grüezi, €!' } });
    const percent = await send(`/api/graphql?query=${encodeURIComponent('{ greeting(name: "')}50%${encodeURIComponent('") }')}`, { headers: { accept: 'application/json' } });
    expect(JSON.parse(percent.body)).toEqual({ data: { greeting: 'Grüezi, 50%!' } });
  });

  it('answers a POST query with variables in application/json', async () => {
    const response = await postQuery('query Slice($limit: Int!) { slice(limit: $limit) }', { limit: 2 }, { accept: 'application/json' });
    expect(response).toMatchObject({ status: 200, body: '{"data":{"slice":[1,2]}}', headers: { 'content-type': 'application/json; charset=utf-8' } });
  });

  it('takes the snapshot anew for every request', async () => {
    expect(JSON.parse((await postQuery('{ greeting }')).body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
    served = { ...freshSnapshot(), context: { salutation: 'Bonjour' } };
    expect(JSON.parse((await postQuery('{ greeting }')).body)).toEqual({ data: { greeting: 'Bonjour, Zürich!' } });
  });

  it('passes a GraphQLError thrown by a resolver through with its code, uncached', async () => {
    const response = await postQuery('{ slice(limit: -1) }');
    expect(JSON.parse(response.body)).toEqual({
      data: null,
      errors: [
        {
          message: 'limit must be at least 0, got -1',
          locations: [{ line: 1, column: 3 }],
          path: ['slice'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.etag).toBeNull();
  });

  it('hides an internal error from the client and logs it in full with the request id', async () => {
    const response = await postQuery('query Broken { greeting broken }', undefined, { 'x-request-id': 'trace-4711' });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      data: { greeting: 'Grüezi, Zürich!', broken: null },
      errors: [
        {
          message: 'Internal server error',
          locations: [{ line: 1, column: 25 }],
          path: ['broken'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    });
    expect(response.body).not.toMatch(/ECONNREFUSED|secret|\.ts|at /);
    expect(response.headers['cache-control']).toBe('no-store');
    const logged = logLines.find((line) => line.msg === 'internal error in a resolver');
    expect(logged).toMatchObject({
      level: 'error',
      reqId: 'trace-4711',
      operationName: 'Broken',
      path: 'broken',
      err: { message: 'connect ECONNREFUSED /var/run/secret.sock', stack: expect.stringContaining('server.test.ts') },
    });
  });

  it('codes an error a scalar throws on a bad variable as BAD_USER_INPUT', async () => {
    const response = await postQuery('query Echo($code: Code!) { echo(code: $code) }', { code: 5 }, { accept: 'application/json' });
    expect(JSON.parse(response.body)).toEqual({
      errors: [
        {
          message: 'Variable "$code" got invalid value 5; Expected type "Code". a code is a string, got number',
          locations: [{ line: 1, column: 12 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    expect(logLines.filter((line) => line.level === 'error')).toEqual([]);
  });

  // A POST is answered from the body's listener, a GET from the request's: both fail the same way.
  it.each([
    ['POST', () => postQuery('{ greeting }')],
    ['GET', () => send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}`)],
  ])('answers a %s with 500 without details when taking the snapshot fails, and logs the error', async (_method, request) => {
    served = () => {
      throw new Error('snapshot /data/v1 vanished');
    };
    const response = await request();
    expect(response).toMatchObject({
      status: 500,
      body: '{"errors":[{"message":"Internal server error","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}',
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
    expect(logLines.find((line) => line.msg === 'internal error')).toMatchObject({
      reqId: response.requestId,
      path: '/api/graphql',
      err: { message: 'snapshot /data/v1 vanished' },
    });
  });

  it('grants an allowed origin and a localhost origin', async () => {
    for (const origin of ['https://tourism.example', 'http://localhost:5173']) {
      const response = await postQuery('{ greeting }', undefined, { origin });
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers.vary).toBe('Origin, Accept, Accept-Encoding');
    }
  });

  it('serves a foreign origin without a grant', async () => {
    const response = await postQuery('{ greeting }', undefined, { origin: 'https://evil.example' });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight for a GraphQL POST from a localhost origin, granting the headers of Apollo, OpenTelemetry and Sentry', async () => {
    const asked = 'content-type,apollographql-client-name,apollographql-client-version,apollo-require-preflight,traceparent,tracestate,baggage,sentry-trace';
    const response = await send('/api/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'http://[::1]:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': asked },
    });
    expect(response).toMatchObject({
      status: 204,
      body: '',
      headers: {
        'access-control-allow-headers': asked.replaceAll(',', ', '),
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-origin': 'http://[::1]:5173',
        'access-control-max-age': '7200',
        vary: 'Origin, Access-Control-Request-Headers',
      },
    });
  });
});

describe('malformed and hostile requests', () => {
  async function expectStillServing() {
    expect(JSON.parse((await postQuery('{ greeting }')).body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
  }

  it('refuses a method other than GET and POST with 405 in the error format', async () => {
    expect(await send('/api/graphql', { method: 'PUT', body: '{}' })).toMatchObject({
      status: 405,
      body: '{"errors":[{"message":"/api/graphql answers GET, POST, OPTIONS, not PUT","extensions":{"code":"METHOD_NOT_ALLOWED"}}]}',
      headers: { allow: 'GET, POST, OPTIONS', 'content-type': 'application/json; charset=utf-8' },
    });
    await expectStillServing();
  });

  /** Writes raw bytes on a new connection and resolves with all the server sent before it closed. */
  async function rawExchange(bytes: string): Promise<string> {
    const socket = connect((service.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (data) => (answer += data));
    socket.on('error', () => {});
    socket.write(bytes);
    await once(socket, 'close');
    return answer;
  }

  it('refuses headers past the limit with 431 and a body in the error format, then closes', async () => {
    const answer = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'x'.repeat(20_000)}\r\n\r\n`);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    expect(head).toContain('Connection: close');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body!)}`);
    expect(JSON.parse(body!)).toEqual({
      errors: [{ message: 'The request line and headers exceed the limit of 16384 bytes; send fewer or shorter headers', extensions: { code: 'HEADERS_TOO_LARGE' } }],
    });
    await expectStillServing();
  });

  it('refuses bytes that are no HTTP with 400 and a body in the error format, naming the fault', async () => {
    const answer = await rawExchange('GET /healthz HTTP/1.1\r\nHost x\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(body!)).toEqual({ errors: [{ message: 'Malformed HTTP request: Invalid header token', extensions: { code: 'BAD_REQUEST' } }] });
    await expectStillServing();
  });

  it('refuses malformed JSON with 400 BAD_REQUEST', async () => {
    const response = await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": "{ greeting }"' });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      errors: [{ message: expect.stringMatching(/^Malformed JSON body: /), extensions: { code: 'BAD_REQUEST' } }],
    });
    await expectStillServing();
  });

  it('refuses a body without a query with 400 BAD_REQUEST', async () => {
    const response = await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"variables":{}}' });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ errors: [{ message: 'Missing query', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('refuses a batched body with 400 and a clear message', async () => {
    const response = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ greeting }' }, { query: '{ greeting }' }]),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      errors: [{ message: 'Batched requests are not supported: send one operation per request, as a JSON object', extensions: { code: 'BAD_REQUEST' } }],
    });
    await expectStillServing();
  });

  it('refuses a body above the limit by its Content-Length with 413, before reading it', async () => {
    const response = await request(`${baseUrl}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ greeting } # ${'x'.repeat(5000)}` }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(await response.body.json()).toEqual({
      errors: [{ message: 'Request body exceeds the limit of 2048 bytes', extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
    });
    await expectStillServing();
  });

  it('refuses a chunked body with 413 as soon as its bytes pass the limit', async () => {
    // No Content-Length: the body streams in chunks, and never ends on its own.
    const socket = connect((service.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = '{"query":"{ greeting }", "pad": "' + 'x'.repeat(1000);
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    let answer = '';
    socket.on('data', (data) => (answer += data));
    const closed = once(socket, 'close');
    for (let i = 0; i < 10 && !answer; i++) {
      const more = 'y'.repeat(1000);
      socket.write(`${more.length.toString(16)}\r\n${more}\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    await expectStillServing();
  });

  it('answers a body that arrives in several chunks as it answers the same bytes in one', async () => {
    const socket = connect((service.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (data) => (answer += data));
    const post = async (parts: string[]) => {
      answer = '';
      socket.write('POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      // Apart in time, so that the server reads them as separate chunks.
      for (const part of parts) {
        socket.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      socket.write('0\r\n\r\n');
      await vi.waitFor(() => expect(answer).toMatch(/\r\n\r\n\{.*\}$/s));
      return answer;
    };
    const first = await post(['{"query":', '"{ greeting }"', '}']);
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first).toMatch(/\r\n\r\n\{"data":\{"greeting":"[^"]+, Zürich!"\}\}$/);
    // The same bytes in one chunk are the same request, with the same answer.
    const second = await post(['{"query":"{ greeting }"}']);
    expect(second.slice(second.indexOf('\r\n\r\n'))).toBe(first.slice(first.indexOf('\r\n\r\n')));
    socket.destroy();
  });

  it('refuses a query over the cost limit before executing it', async () => {
    const response = await postQuery('{ items(limit: 300) { id name } }');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      errors: [
        {
          message: 'Query cost is 601; the limit is 500 (each field counts 1, once per list item)',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'QUERY_TOO_COMPLEX' },
        },
      ],
    });
    await expectStillServing();
  });

  it('stops starting root fields once the execution time limit is reached', async () => {
    const response = await postQuery('{ first: slow second: slow third: slow }');
    const timeout = (column: number, path: string) => ({
      message: 'Execution time limit of 20 ms reached before this field started',
      locations: [{ line: 1, column }],
      path: [path],
      extensions: { code: 'EXECUTION_TIMEOUT' },
    });
    expect(JSON.parse(response.body)).toEqual({
      data: { first: 'done', second: null, third: null },
      errors: [timeout(15, 'second'), timeout(28, 'third')],
    });
  });

  it('refuses a mutation and a subscription by POST as failing validation, with a code', async () => {
    const located = (message: string) => ({ errors: [{ message, locations: [{ line: 1, column: 1 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    for (const kind of ['mutation', 'subscription']) {
      const strict = await postQuery(`${kind} { greeting }`);
      expect([strict.status, JSON.parse(strict.body)]).toEqual([400, located(`The ${kind} operation is not supported by the schema.`)]);
      const plain = await postQuery(`${kind} Named { greeting }`, undefined, { accept: 'application/json' });
      expect([plain.status, JSON.parse(plain.body)]).toEqual([200, located(`The ${kind} operation is not supported by the schema.`)]);
      expect(plain.headers['cache-control']).toBe('no-store');
    }
    await expectStillServing();
  });

  it('refuses a mutation by GET with 405 and Allow: POST, whatever else the document holds', async () => {
    for (const search of [`query=${encodeURIComponent('mutation { greeting }')}`, `query=${encodeURIComponent('query Q { greeting } mutation M { greeting }')}&operationName=M`]) {
      expect(await send(`/api/graphql?${search}`)).toMatchObject({
        status: 405,
        body: '{"errors":[{"message":"A mutation cannot be sent by GET; this API has no mutations: it answers queries only","extensions":{"code":"METHOD_NOT_ALLOWED"}}]}',
        headers: { allow: 'POST', 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      });
    }
    const subscription = await send(`/api/graphql?query=${encodeURIComponent('subscription { greeting }')}`, { headers: { accept: 'application/json' } });
    expect(JSON.parse(subscription.body).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses an operationName over 256 characters without sending it back', async () => {
    // Within MAX_BODY_BYTES (2048 here) and the URL's limit; test/server/hostile.test.ts sends 50 KB.
    const operationName = 'Q'.repeat(5000);
    const expected = { errors: [{ message: 'operationName is 5,000 characters long; the limit is 256', extensions: { code: 'BAD_REQUEST' } }] };
    const posted = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ greeting }', operationName: operationName.slice(0, 1900) }),
    });
    expect([posted.status, JSON.parse(posted.body)]).toEqual([400, { errors: [{ ...expected.errors[0], message: 'operationName is 1,900 characters long; the limit is 256' }] }]);
    const got = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}&operationName=${operationName}`);
    expect([got.status, JSON.parse(got.body)]).toEqual([400, expected]);
    // An unknown name within the limit is quoted, as graphql-js quotes it.
    const unknown = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: 'query A { greeting }', operationName: 'B'.repeat(256) }),
    });
    expect(JSON.parse(unknown.body).errors[0]).toEqual({ message: `Unknown operation named "${'B'.repeat(256)}"`, extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } });
  });

  it('refuses an operationName over 256 characters whichever path answers the request: a document that does not parse, a mutation, a query string graphql-http reads to a second ?', async () => {
    const operationName = 'Q'.repeat(300);
    const expected = [400, { errors: [{ message: 'operationName is 300 characters long; the limit is 256', extensions: { code: 'BAD_REQUEST' } }] }];
    for (const query of ['query Q { greeting', 'mutation Q { greeting }']) {
      const posted = await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, operationName }) });
      expect([posted.status, JSON.parse(posted.body)], query).toEqual(expected);
    }
    const got = await send(`/api/graphql?operationName=${operationName}&query=${encodeURIComponent('query Q { greeting }')}&then=?`);
    expect([got.status, JSON.parse(got.body)]).toEqual(expected);
  });

  it('refuses variables nested 900 arrays deep with 400 BAD_REQUEST, by POST and by GET, without logging an error', async () => {
    const deep = `${'['.repeat(900)}${']'.repeat(900)}`;
    const expected = { errors: [{ message: 'Variables nest arrays and objects more than 64 levels deep, the limit', extensions: { code: 'BAD_REQUEST' } }] };
    const posted = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"query":"query Q($names: [String]) { greeting }","variables":{"names":${deep}}}`,
    });
    expect([posted.status, JSON.parse(posted.body), posted.headers['cache-control']]).toEqual([400, expected, 'no-store']);
    const got = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}&variables={"a":${'['.repeat(3000)}${']'.repeat(3000)}}`);
    expect([got.status, JSON.parse(got.body)]).toEqual([400, expected]);
    // 64 levels are still keyed and answered.
    const within = await postQuery('{ greeting }', { names: JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`) }, { accept: 'application/json' });
    expect(JSON.parse(within.body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
    await expectStillServing();
  });

  it('answers a 406 and a 415 with a body in the error format', async () => {
    const notAcceptable = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}`, { headers: { accept: 'text/csv' } });
    expect(notAcceptable).toMatchObject({ status: 406, body: '{"errors":[{"message":"Not Acceptable","extensions":{"code":"NOT_ACCEPTABLE"}}]}' });
    const unsupported = await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ greeting }' });
    expect([unsupported.status, JSON.parse(unsupported.body)]).toEqual([
      415,
      {
        errors: [
          {
            message: 'The body of a POST must be JSON sent as Content-Type: application/json (or application/json; charset=utf-8), not "text/plain"',
            extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
          },
        ],
      },
    ]);
  });

  it('names the media type a POST without Content-Type must be sent as', async () => {
    // fetch would send a string body as text/plain; undici's request sends no Content-Type unless told.
    const response = await request(`${baseUrl}/api/graphql`, { method: 'POST', headers: { accept: 'application/json' }, body: '{"query":"{ greeting }"}' });
    const answer = { status: response.statusCode, body: await response.body.text() };
    expect([answer.status, JSON.parse(answer.body).errors[0]]).toEqual([
      415,
      {
        message: 'The body of a POST must be JSON sent as Content-Type: application/json (or application/json; charset=utf-8), not without a Content-Type',
        extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
      },
    ]);
  });
});

describe('HTTP caching', () => {
  it('answers 304 to a GET whose If-None-Match holds the ETag', async () => {
    const path = `/api/graphql?query=${encodeURIComponent('{ greeting }')}`;
    const first = await send(path);
    const second = await send(path, { headers: { 'if-none-match': first.etag! } });
    expect(second).toMatchObject({ status: 304, body: '', etag: first.etag, headers: { 'cache-control': 'public, max-age=300, stale-while-revalidate=60' } });
  });

  it('answers 304 to a POST query whose If-None-Match holds the ETag, among others', async () => {
    const first = await postQuery('{ greeting }');
    const second = await postQuery('{ greeting }', undefined, { 'if-none-match': `"other", W/${first.etag}` });
    expect(second.status).toBe(304);
  });

  it('answers 304 to If-None-Match: * on a GET only; a POST gets its answer', async () => {
    const got = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}`, { headers: { 'if-none-match': '*' } });
    expect([got.status, got.body]).toEqual([304, '']);
    const posted = await postQuery('{ greeting }', undefined, { 'if-none-match': '*' });
    expect([posted.status, JSON.parse(posted.body)]).toEqual([200, { data: { greeting: 'Grüezi, Zürich!' } }]);
  });

  it('gives another ETag for another answer, another media type and another snapshot', async () => {
    const tags = new Set([
      (await postQuery('{ greeting }')).etag,
      (await postQuery('{ greeting(name: "Bern") }')).etag,
      (await postQuery('{ greeting }', undefined, { accept: 'application/json' })).etag,
    ]);
    served = { ...freshSnapshot(), version: 'v2' };
    tags.add((await postQuery('{ greeting }')).etag);
    expect(tags.size).toBe(4);
  });

  it('answers 200 with the new ETag once the snapshot changed', async () => {
    const first = await postQuery('{ greeting }');
    served = { ...freshSnapshot(), version: 'v2' };
    const second = await postQuery('{ greeting }', undefined, { 'if-none-match': first.etag! });
    expect(second.status).toBe(200);
    expect(second.etag).not.toBe(first.etag);
  });

  it('bounds max-age by the snapshot expiry and gives 0 once it has passed', async () => {
    served = { ...freshSnapshot(), expiresAtMs: Date.now() + 90_500 };
    expect((await postQuery('{ greeting }')).headers['cache-control']).toBe('public, max-age=90, stale-while-revalidate=60');
    served = { ...freshSnapshot(), expiresAtMs: Date.now() - 1000 };
    expect((await postQuery('{ greeting }')).headers['cache-control']).toBe('public, max-age=0, stale-while-revalidate=60');
  });

  it('never caches an error', async () => {
    const response = await send(`/api/graphql?query=${encodeURIComponent('{ nothing }')}`);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.etag).toBeNull();
  });
});

describe('compression', () => {
  it('compresses a large answer with brotli or gzip as accepted, with an ETag per coding', async () => {
    const path = `${baseUrl}/api/graphql?query=${encodeURIComponent('{ long }')}`;
    const plain = await request(path);
    const plainBody = await plain.body.text();
    const br = await request(path, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    const gzip = await request(path, { headers: { 'accept-encoding': 'gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const brBody = Buffer.from(await br.body.arrayBuffer());
    const gzipBody = Buffer.from(await gzip.body.arrayBuffer());
    expect(brotliDecompressSync(brBody).toString()).toBe(plainBody);
    expect(gunzipSync(gzipBody).toString()).toBe(plainBody);
    expect(brBody.length).toBeLessThan(plainBody.length / 10);
    expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    expect(gzip.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-gzip"`);
  });

  it('leaves a small answer and a refused coding uncompressed', async () => {
    const small = await request(`${baseUrl}/api/graphql?query=${encodeURIComponent('{ greeting }')}`, { headers: { 'accept-encoding': 'br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    await small.body.dump();
    const refused = await request(`${baseUrl}/api/graphql?query=${encodeURIComponent('{ long }')}`, { headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    await refused.body.dump();
  });
});

describe('automatic persisted queries', () => {
  const query = '{ greeting(name: "Luzern") }';
  const hash = hashQuery(query);
  const extensions = (sha256Hash: string) => JSON.stringify({ persistedQuery: { version: 1, sha256Hash } });

  it('answers PERSISTED_QUERY_NOT_FOUND for an unknown hash, then runs it once registered', async () => {
    const getPath = `/api/graphql?extensions=${encodeURIComponent(extensions(hash))}`;
    const unknown = await send(getPath, { headers: { accept: 'application/json' } });
    expect(JSON.parse(unknown.body)).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect(unknown.headers['cache-control']).toBe('no-store');

    const registered = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions: JSON.parse(extensions(hash)) }),
    });
    expect(JSON.parse(registered.body)).toEqual({ data: { greeting: 'Grüezi, Luzern!' } });

    const known = await send(getPath);
    expect(known).toMatchObject({ status: 200, body: '{"data":{"greeting":"Grüezi, Luzern!"}}', headers: { 'cache-control': expect.stringMatching(/^public/) } });
    expect(known.etag).toBe(registered.etag);
  });

  it('refuses a hash that does not match the query', async () => {
    const response = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ greeting }', extensions: JSON.parse(extensions(hash)) }),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      errors: [{ message: 'extensions.persistedQuery.sha256Hash does not match the sha256 of the query', extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it('does not register a query that fails the checks', async () => {
    const invalid = '{ nothing }';
    const body = (withQuery: boolean) =>
      JSON.stringify({ ...(withQuery ? { query: invalid } : {}), extensions: JSON.parse(extensions(hashQuery(invalid))) });
    await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(true) });
    const again = await send('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(false) });
    expect(JSON.parse(again.body).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses another protocol version', async () => {
    const response = await send(`/api/graphql?query=${encodeURIComponent(query)}&extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 2, sha256Hash: hash } }))}`);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).errors[0]).toEqual({
      message: 'extensions.persistedQuery.version 2 is not supported; expected 1',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('answers PERSISTED_QUERY_NOT_SUPPORTED when turned off', async () => {
    const off = createHttpService(options({ APQ_CACHE_BYTES: '0' }));
    const url = await listen(off);
    try {
      const response = await fetch(`${url}/api/graphql?extensions=${encodeURIComponent(extensions(hash))}`, { headers: { accept: 'application/json' } });
      expect(await response.json()).toEqual({ errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }] });
    } finally {
      off.server.close();
    }
  });
});

describe('response cache', () => {
  const tickOf = (response: { body: string }) => JSON.parse(response.body).data.tick as number;

  it('answers a repeated query from the cache, by GET and by POST alike, with the same ETag', async () => {
    const first = await postQuery('{ tick }');
    const again = await postQuery('{ tick }');
    const byGet = await send(`/api/graphql?query=${encodeURIComponent('{ tick }')}`, { headers: { accept: 'application/graphql-response+json' } });
    expect(tickOf(again)).toBe(tickOf(first));
    expect(byGet).toMatchObject({ status: 200, body: first.body, etag: first.etag, headers: { 'cache-control': 'public, max-age=300, stale-while-revalidate=60' } });
    expect(again.headers).toEqual(first.headers);
  });

  it('shares an entry between variables in any key order, and not between other variables', async () => {
    const query = 'query T($name: String!, $limit: Int!) { tick greeting(name: $name) slice(limit: $limit) }';
    const first = await postQuery(query, { name: 'Chur', limit: 1 });
    const reordered = await postQuery(query, { limit: 1, name: 'Chur' });
    const other = await postQuery(query, { name: 'Chur', limit: 2 });
    expect(tickOf(reordered)).toBe(tickOf(first));
    expect(tickOf(other)).not.toBe(tickOf(first));
  });

  it('serves a registered persisted query from the entry of its text', async () => {
    const query = '{ tick greeting(name: "Zug") }';
    const plain = await postQuery(query);
    const persistedQuery = { version: 1, sha256Hash: hashQuery(query) };
    const registered = await send('/api/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, extensions: { persistedQuery } }),
    });
    const byHash = await send(`/api/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery }))}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect([registered.body, byHash.body]).toEqual([plain.body, plain.body]);
  });

  it('never keeps an answer with errors', async () => {
    const first = await postQuery('{ tick broken }');
    const second = await postQuery('{ tick broken }');
    expect(JSON.parse(first.body).errors).toHaveLength(1);
    // Executed again (twice, even: graphql-jit's result with an internal error is executed again by graphql-js).
    expect(tickOf(second)).toBeGreaterThan(tickOf(first));
  });

  it('is emptied for a new snapshot', async () => {
    const first = await postQuery('{ tick }');
    served = freshSnapshot();
    expect(tickOf(await postQuery('{ tick }'))).toBe(tickOf(first) + 1);
  });

  it('answers 304 and compressed bodies from the cache, with the ETag of each coding', async () => {
    const path = `${baseUrl}/api/graphql?query=${encodeURIComponent('{ tick long }')}`;
    const plain = await request(path);
    const plainBody = await plain.body.text();
    const [br, brAgain] = await Promise.all([0, 1].map(() => request(path, { headers: { 'accept-encoding': 'br' } })));
    for (const response of [br!, brAgain!]) {
      expect(response.headers['content-encoding']).toBe('br');
      expect(response.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
      expect(brotliDecompressSync(Buffer.from(await response.body.arrayBuffer())).toString()).toBe(plainBody);
    }
    const notModified = await request(path, { headers: { 'accept-encoding': 'br', 'if-none-match': String(br!.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
    await notModified.body.dump();
  });

  it('counts its lookups in the metrics', async () => {
    await postQuery('{ tick greeting(name: "Sion") }');
    await postQuery('{ tick greeting(name: "Sion") }');
    const metrics = (await send('/metrics')).body;
    expect(metrics).toMatch(/^graphql_response_cache_lookups_total\{result="hit"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^graphql_response_cache_lookups_total\{result="miss"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^graphql_response_cache_bytes [1-9]\d*$/m);
    expect(metrics).toMatch(/^graphql_operation_cache_entries [1-9]\d*$/m);
  });

  it('is off with RESPONSE_CACHE=0', async () => {
    const off = createHttpService(options({ RESPONSE_CACHE: '0' }));
    const url = await listen(off);
    try {
      const tick = async () => ((await (await fetch(`${url}/api/graphql?query=${encodeURIComponent('{ tick }')}`)).json()) as { data: { tick: number } }).data.tick;
      const first = await tick();
      expect(await tick()).toBe(first + 1);
    } finally {
      off.server.close();
    }
  });
});

describe('known POST bodies', () => {
  // Without the response cache, so that every request is executed again.
  let off: HttpService;
  let url: string;
  beforeAll(async () => {
    off = createHttpService(options({ RESPONSE_CACHE: '0' }));
    url = await listen(off);
  });
  afterAll(() => off.server.close());

  const post = async (body: string) => {
    const response = await fetch(`${url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as any };
  };
  const knownBytes = async () => Number(/^graphql_known_bodies_bytes (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())![1]);

  it('executes a body sent again anew, from the parameters kept for its bytes', async () => {
    const body = JSON.stringify({ query: '{ tick }' });
    const before = await knownBytes();
    const first = (await post(body)).body.data.tick as number;
    expect(await knownBytes()).toBe(before + Buffer.byteLength(body));
    expect((await post(body)).body.data.tick).toBe(first + 1);
    expect(await knownBytes()).toBe(before + Buffer.byteLength(body));
  });

  it('answers each body with its own variables', async () => {
    const query = 'query Greet($name: String!) { greeting(name: $name) }';
    for (const round of [1, 2]) {
      for (const name of ['Bern', 'Chur', 'Bern']) {
        expect(await post(JSON.stringify({ query, variables: { name } })), `round ${round}`).toEqual({ status: 200, body: { data: { greeting: `Grüezi, ${name}!` } } });
      }
    }
    expect((await post(JSON.stringify({ query, variables: { name: 7 } }))).status).toBe(200);
    expect((await post(JSON.stringify({ query, variables: { name: 7 } }))).body.errors[0].message).toMatch(/\$name/);
  });

  it('keeps no body that was refused, nor one with a persisted query', async () => {
    const before = await knownBytes();
    const refused = JSON.stringify({ query: '{ nothing }' });
    expect((await post(refused)).body.errors[0].message).toMatch(/nothing/);
    const query = '{ greeting(name: "Aarau") }';
    const persisted = JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hashQuery(query) } } });
    expect((await post(persisted)).body).toEqual({ data: { greeting: 'Grüezi, Aarau!' } });
    expect((await post(persisted)).body).toEqual({ data: { greeting: 'Grüezi, Aarau!' } });
    expect(await knownBytes()).toBe(before);
  });
});

describe('request ids and logs', () => {
  it('echoes a sane x-request-id and logs the request with it, without query or variables', async () => {
    await send(`/api/graphql?query=${encodeURIComponent('query Hello($name: String!) { greeting(name: $name) }')}&variables=${encodeURIComponent('{"name":"secret-key-123"}')}`, {
      headers: { 'x-request-id': 'abc-123' },
    });
    const line = logLines.find((entry) => entry.msg === 'request');
    expect(line).toMatchObject({
      level: 'info',
      reqId: 'abc-123',
      method: 'GET',
      path: '/api/graphql',
      status: 200,
      rootField: 'greeting',
      operationName: 'Hello',
      snapshot: 'v1',
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(logLines)).not.toMatch(/secret-key-123|greeting\(/);
  });

  it("logs the socket's peer as the client, and ignores X-Forwarded-For unless TRUST_PROXY says so", async () => {
    await send('/api/schema', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(logLines.find((entry) => entry.msg === 'request')).toMatchObject({ client: '127.0.0.1', path: '/api/schema' });

    const proxied = createHttpService({ ...options(), trustedProxies: 1 });
    const proxiedUrl = await listen(proxied);
    try {
      logLines = [];
      await fetch(`${proxiedUrl}/api/schema`, { headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
      expect(logLines.find((entry) => entry.msg === 'request')).toMatchObject({ client: '203.0.113.9' });
    } finally {
      proxied.server.close();
    }
  });

  it('logs a request its client abandoned as 499, with the client it came from', async () => {
    // The body never arrives in full, so the request is still being read when the client leaves.
    const socket = connect((service.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":');
    await vi.waitFor(() => expect(service.inFlight).toBe(1));
    socket.destroy();
    await vi.waitFor(() => expect(logLines.find((entry) => entry.msg === 'request aborted')).toMatchObject({ status: 499, client: '127.0.0.1' }));
    // Nobody is left to answer, and nothing went wrong on our side.
    await sleep(50);
    expect(logLines.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('replaces an x-request-id that is not a short token', async () => {
    const response = await send('/healthz', { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    expect(response.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('generates a request id when none is sent', async () => {
    const [a, b] = await Promise.all([send('/healthz'), send('/healthz')]);
    expect(a.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.requestId).not.toBe(b.requestId);
  });
});

describe('playground', () => {
  const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

  async function openPlayground() {
    return send('/api/graphql', { headers: { accept: browserAccept } });
  }

  it('serves GraphiQL to a browser opening the endpoint', async () => {
    const { status, headers, body } = await openPlayground();
    expect(status).toBe(200);
    expect(headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      vary: 'Origin, Accept, Accept-Encoding',
    });
    expect(headers['content-security-policy']).toContain("script-src 'self';");
    expect(body).toContain('<div id="graphiql" data-endpoint="/api/graphql" data-tabs="');
  });

  it('opens the sample queries as tabs, each query pretty-printed, with its variables', async () => {
    const { body } = await openPlayground();
    const attribute = body.match(/data-tabs="([^"]*)"/)![1]!;
    const tabs = JSON.parse(attribute.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))));
    expect(tabs).toEqual([
      { query: 'query Greeting($name: String!) {\n  greeting(name: $name)\n}', variables: '{\n  "name": "Genève"\n}' },
      { query: '{\n  greeting\n}' },
    ]);
  });

  it('loads every script from a file, so the page runs under its CSP', async () => {
    const { body } = await openPlayground();
    expect(body.match(/<script src="\/api\/graphql\/assets\/[0-9a-f]{16}\/[\w.-]+\.js"><\/script>/g)).toHaveLength(4);
    expect(body.match(/<script/g)).toHaveLength(4);
    expect(body).not.toMatch(/\son\w+=/);
  });

  it('serves each asset of the page with its content type and a long cache', async () => {
    const { body } = await openPlayground();
    const paths = [...body.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);
    const served: Record<string, string | undefined> = {};
    for (const path of paths) {
      const asset = await send(path);
      expect(asset.status).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      served[path.replace(/\/[0-9a-f]{16}\//, '/<hash>/')] = asset.headers['content-type'];
    }
    expect(served).toMatchInlineSnapshot(`
      {
        "/api/graphql/assets/<hash>/graphiql.min.css": "text/css; charset=utf-8",
        "/api/graphql/assets/<hash>/graphiql.min.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/playground.css": "text/css; charset=utf-8",
        "/api/graphql/assets/<hash>/playground.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/react-dom.production.min.js": "text/javascript; charset=utf-8",
        "/api/graphql/assets/<hash>/react.production.min.js": "text/javascript; charset=utf-8",
      }
    `);
  });

  it('serves the bundles from node_modules byte for byte, compressed when accepted', async () => {
    const { body } = await openPlayground();
    const require = createRequire(import.meta.url);
    const bundles = {
      'react.production.min.js': join(dirname(require.resolve('react/package.json')), 'umd/react.production.min.js'),
      'react-dom.production.min.js': join(dirname(require.resolve('react-dom/package.json')), 'umd/react-dom.production.min.js'),
      'graphiql.min.js': join(dirname(require.resolve('graphiql/package.json')), 'graphiql.min.js'),
      'graphiql.min.css': join(dirname(require.resolve('graphiql/package.json')), 'graphiql.min.css'),
    };
    for (const [name, file] of Object.entries(bundles)) {
      const path = body.match(new RegExp(`"(/api/graphql/assets/[0-9a-f]{16}/${name.replaceAll('.', '\\.')})"`))![1]!;
      const plain = await request(baseUrl + path);
      expect(Buffer.from(await plain.body.arrayBuffer()).equals(readFileSync(file)), name).toBe(true);
      const compressed = await request(baseUrl + path, { headers: { 'accept-encoding': 'br' } });
      expect(compressed.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(Buffer.from(await compressed.body.arrayBuffer())).equals(readFileSync(file)), name).toBe(true);
    }
  });

  it('answers a browser GET that carries a query with JSON', async () => {
    const response = await send(`/api/graphql?query=${encodeURIComponent('{ greeting }')}`, { headers: { accept: browserAccept } });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ data: { greeting: 'Grüezi, Zürich!' } });
  });

  it('answers a GET without query and without text/html with a 400', async () => {
    const response = await send('/api/graphql', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ errors: [{ message: 'Missing query', extensions: { code: 'BAD_REQUEST' } }] });
  });
});

describe('booking docs', () => {
  it('serves Redoc rendering the booking document at /v1/docs, under a CSP that allows no other origin', async () => {
    const { status, headers, body } = await send('/v1/docs', { headers: { accept: 'text/html' } });
    expect(status).toBe(200);
    expect(headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    expect(headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; worker-src blob:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(body).toContain('<div id="redoc" data-document="/v1/openapi.json">');
    expect(body.match(/<script[^>]*>/g)).toEqual([expect.stringMatching(/^<script src="\/v1\/docs\/assets\/[0-9a-f]{16}\/redoc\.standalone\.js">$/), expect.stringMatching(/^<script src="\/v1\/docs\/assets\/[0-9a-f]{16}\/docs\.js">$/)]);
    expect(body).not.toMatch(/\son\w+=/);
  });

  it("serves Redoc's standalone bundle from node_modules, its CDN logo replaced, compressed when accepted, cached for good", async () => {
    const { body } = await send('/v1/docs');
    const path = body.match(/"(\/v1\/docs\/assets\/[0-9a-f]{16}\/redoc\.standalone\.js)"/)![1]!;
    const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles/redoc.standalone.js'), 'utf8');
    const compressed = await request(baseUrl + path, { headers: { 'accept-encoding': 'br' } });
    expect(compressed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(compressed.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const served = brotliDecompressSync(Buffer.from(await compressed.body.arrayBuffer())).toString('utf8');
    expect(bundle).toContain('"https://cdn.redoc.ly/redoc/logo-mini.svg"');
    expect(served).toBe(bundle.replaceAll('"https://cdn.redoc.ly/redoc/logo-mini.svg"', '"data:,"'));
  });

  it("logs a docs asset at debug level, as the playground's", async () => {
    const { body } = await send('/v1/docs');
    const path = body.match(/"(\/v1\/docs\/assets\/[0-9a-f]{16}\/docs\.js)"/)![1]!;
    logLines = [];
    await send(path);
    expect(logLines.find((line) => line.path === path)).toMatchObject({ level: 'debug', status: 200 });
  });
});

describe('/api/schema', () => {
  it('serves the SDL as plain text', async () => {
    const response = await send('/api/schema');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe(sdl);
  });

  it('serves the SDL for format=sdl', async () => {
    expect((await send('/api/schema?format=sdl')).body).toBe(sdl);
  });

  it('serves the sample queries as JSON for format=queries', async () => {
    const response = await send('/api/schema?format=queries');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual(sampleQueries);
  });

  it('refuses an unknown format with 400 naming the allowed values', async () => {
    expect(await send('/api/schema?format=graphql')).toMatchObject({
      status: 400,
      body: '{"errors":[{"message":"Unknown format \\"graphql\\"; allowed values: sdl, queries","extensions":{"code":"BAD_REQUEST"}}]}',
    });
  });
});

describe('operations endpoints', () => {
  it('answers /healthz and /readyz while serving', async () => {
    expect(await send('/healthz')).toMatchObject({ status: 200, body: '{"status":"ok"}', headers: { 'cache-control': 'no-store' } });
    expect(await send('/readyz')).toMatchObject({ status: 200, body: '{"status":"ready","snapshot":"v1"}' });
  });

  it('serves Prometheus metrics of requests, cost, cache and snapshot age', async () => {
    await postQuery('{ greeting }');
    const response = await send('/metrics');
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.body).toMatch(/^http_requests_total\{route="\/api\/graphql",root_field="greeting",operation="greeting",status="200"\} \d+$/m);
    expect(response.body).toMatch(/^http_request_duration_seconds_bucket\{le="0\.1",route="\/api\/graphql",root_field="greeting",operation="greeting",status="200"\} \d+$/m);
    expect(response.body).toMatch(/^graphql_query_cost_count \d+$/m);
    expect(response.body).toMatch(/^snapshot_age_seconds\{source="tours",fixture="false"\} 6\d(\.\d+)?$/m);
    expect(response.body).toMatch(/^snapshot_info\{version="v1"\} 1$/m);
    expect(response.body).toMatch(/^http_cache_hit_ratio\{cache="etag"\} [\d.]+$/m);
    expect(response.body).toMatch(/^process_resident_memory_bytes \d+$/m);
  });

  it('counts every request once when two scrapes are collected together', async () => {
    const scraped = createHttpService(options());
    const url = await listen(scraped);
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ greeting }"}' });
        expect(answer.status).toBe(200);
      }
      // As a cluster's primary asks a worker for two scrapes at once (server/ops/clusterMetrics.ts).
      const bodies = await Promise.all([scraped.metrics.registry.metrics(), scraped.metrics.registry.metrics()]);
      for (const body of bodies) expect(body).toMatch(/^http_requests_total\{route="\/api\/graphql",root_field="greeting",operation="greeting",status="200"\} 3$/m);
    } finally {
      scraped.server.close();
    }
  });

  it('fails readiness once draining, and closes connections after each answer', async () => {
    const draining = createHttpService(options());
    const url = await listen(draining);
    try {
      draining.drain();
      const response = await fetch(`${url}/readyz`);
      expect(response.status).toBe(503);
      expect(response.headers.get('connection')).toBe('close');
      expect(await response.json()).toEqual({ status: 'draining' });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      draining.server.close();
    }
  });
});

describe('routing', () => {
  it('answers an unknown path with a 404 in the error format', async () => {
    expect(await send('/graphql')).toMatchObject({
      status: 404,
      body: '{"errors":[{"message":"Nothing at /graphql; the API is at /api/graphql, its status at /","extensions":{"code":"NOT_FOUND"}}]}',
    });
  });

  it('answers an unknown asset with a 404', async () => {
    expect((await send('/api/graphql/assets/0000000000000000/graphiql.min.js')).status).toBe(404);
  });

  it('answers a plain OPTIONS request with the allowed methods', async () => {
    const response = await send('/api/schema', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('serves a request without Origin without CORS headers', async () => {
    const response = await postQuery('{ greeting }');
    expect(response.status).toBe(200);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('socket timeouts', () => {
  let slow: HttpService;
  let port: number;

  beforeAll(async () => {
    slow = createHttpService(options({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', KEEP_ALIVE_TIMEOUT_MS: '200' }));
    await listen(slow);
    port = (slow.server.address() as AddressInfo).port;
  });

  afterAll(() => {
    slow.server.close();
  });

  /** Opens a raw connection, runs `talk`, and resolves with what the server sent and when it closed. */
  async function converse(talk: (write: (text: string) => void) => Promise<void> | void) {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const openedAt = performance.now();
    let received = '';
    socket.on('data', (data) => (received += data));
    await talk((text) => socket.write(text));
    await once(socket, 'close');
    return { received, openMs: performance.now() - openedAt };
  }

  it('closes a connection whose headers do not arrive in time with 408', async () => {
    const { received, openMs } = await converse((write) => write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(JSON.parse(received.split('\r\n\r\n')[1]!)).toEqual({
      errors: [{ message: 'The request did not arrive within HEADERS_TIMEOUT_MS (its headers) or REQUEST_TIMEOUT_MS (all of it)', extensions: { code: 'REQUEST_TIMEOUT' } }],
    });
    expect(openMs).toBeGreaterThanOrEqual(290);
    expect(openMs).toBeLessThan(3000);
  });

  it('closes a connection whose body does not arrive in time with 408', async () => {
    const { received, openMs } = await converse((write) =>
      write('POST /api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":'),
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(openMs).toBeGreaterThanOrEqual(590);
    expect(openMs).toBeLessThan(3000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { received, openMs } = await converse((write) => write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toContain('Keep-Alive: timeout=0');
    expect(openMs).toBeLessThan(2000);
  });
});
