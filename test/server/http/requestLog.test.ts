import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import { hashQuery } from '../../../server/http/graphql/persistedQueries.ts';
import type { HttpOptions } from '../../../server/http/httpOptions.ts';
import { createHttpService, type HttpService } from '../../../server/http/server.ts';
import { MAX_OPERATION_NAMES, type IsTrustedOperation } from '../../../server/ops/graphqlCounters.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { createMetrics } from '../../../server/ops/metrics.ts';
import { createSizeTally } from '../../../server/snapshot/answerSizes.ts';

const sdl = /* GraphQL */ `
  type Query {
    greeting: String!
    slice(limit: Int!): [Int!]!
    items(limit: Int = 10): [Item!]!
  }

  type Item {
    id: Int!
    name: String!
    related: [Item!]!
  }
`;

const schema = makeExecutableSchema({
  typeDefs: sdl,
  resolvers: {
    Query: {
      greeting: () => 'Grüezi',
      slice: (_root, args: { limit: number }) => {
        if (args.limit < 0) throw new GraphQLError(`limit must be at least 0, got ${args.limit}`, { extensions: { code: 'BAD_USER_INPUT' } });
        return [1, 2, 3].slice(0, args.limit);
      },
      items: (_root, args: { limit: number }) => Array.from({ length: args.limit }, (_, id) => ({ id, name: `item ${id}`, related: [] })),
    },
  },
});

const served = { version: 'v1', context: {}, sizes: createSizeTally().sizes(), expiresAtMs: null, lastSyncMs: {} };
const snapshot = () => served;

const LIMITS = { MAX_DEPTH: '2', MAX_ALIASES: '2', MAX_DIRECTIVES: '2', MAX_TOKENS: '60', MAX_COST: '100', MAX_BODY_BYTES: '2048' };

/** A service over the schema above with its own metrics, whose log lines land in `lines`. */
async function startService(isTrustedOperation?: IsTrustedOperation) {
  const lines: Record<string, any>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  const options: HttpOptions = {
    schema,
    sdl,
    snapshot,
    sampleQueries: () => [],
    status: { report: () => ({}), page: () => ({ html: '', contentSecurityPolicy: "default-src 'none'" }) },
    config: readConfig(LIMITS),
    logger: createLogger('info', logStream),
    metrics: createMetrics(snapshot, { isTrustedOperation }),
  };
  const service: HttpService = createHttpService(options);
  service.server.listen(0, '127.0.0.1');
  await once(service.server, 'listening');
  const url = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;

  /** Sends a request and returns its status, its body and its log line (written once its response closed). */
  async function send(path: string, init: RequestInit = {}) {
    const response = await fetch(url + path, init);
    const body = await response.text();
    const reqId = response.headers.get('x-request-id');
    const line = await vi.waitFor(() => {
      const found = lines.find((entry) => entry.reqId === reqId);
      if (!found) throw new Error(`no log line for ${reqId}`);
      return found;
    });
    return { status: response.status, body, line };
  }

  /** The value of one series of /metrics, 0 when absent. */
  async function counter(series: string): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  }

  return { url, send, counter, close: () => service.server.close() };
}

function post(body: unknown, accept = 'application/graphql-response+json'): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

type Service = Awaited<ReturnType<typeof startService>>;

describe('refusals in the request log and the metrics', () => {
  let service: Service;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.close());

  const unknownHash = 'ab'.repeat(32);
  const longName = 'N'.repeat(300);
  const cases = [
    {
      limit: 'depth',
      body: { query: '# a comment first\nquery Deep { items { related { id } } }' },
      code: 'QUERY_TOO_COMPLEX',
      operationName: 'Deep',
    },
    { limit: 'cost', body: { query: 'query Costly { items(limit: 60) { id name } }' }, code: 'QUERY_TOO_COMPLEX', operationName: 'Costly' },
    { limit: 'aliases', body: { query: 'query Aliased { a: greeting b: greeting c: greeting }' }, code: 'QUERY_TOO_COMPLEX', operationName: 'Aliased' },
    {
      limit: 'directives',
      body: { query: 'query Directed { greeting @include(if: true) a: greeting @skip(if: false) b: greeting @include(if: true) }' },
      code: 'QUERY_TOO_COMPLEX',
      operationName: 'Directed',
    },
    { limit: 'tokens', body: { query: `query Wordy { ${'greeting '.repeat(60)}}` }, code: 'QUERY_TOO_COMPLEX', operationName: 'Wordy' },
    { limit: 'operationName length', body: { query: '{ greeting }', operationName: longName }, code: 'BAD_REQUEST', operationName: 'N'.repeat(100) },
    {
      limit: 'unknown persisted query',
      body: { operationName: 'Remembered', extensions: { persistedQuery: { version: 1, sha256Hash: unknownHash } } },
      code: 'PERSISTED_QUERY_NOT_FOUND',
      operationName: 'Remembered',
      documentHash: unknownHash,
    },
    { limit: 'argument check', body: { query: 'query Negative { slice(limit: -1) }' }, code: 'BAD_USER_INPUT', operationName: 'Negative', outcome: 'error', expectedStatus: 200 },
    { limit: 'validation', body: { query: 'query Unknown { nope }' }, code: 'GRAPHQL_VALIDATION_FAILED', operationName: 'Unknown' },
    { limit: 'variable coercion', body: { query: 'query Typed($n: Int!) { slice(limit: $n) }', variables: { n: 'x' } }, code: 'BAD_USER_INPUT', operationName: 'Typed' },
  ];

  for (const { limit, body, code, operationName, documentHash, outcome = 'refused', expectedStatus = 400 } of cases) {
    it(`logs and counts a request refused for its ${limit} with its status, code, operation name and document hash`, async () => {
      const label = outcome === 'error' ? operationName : 'other';
      const requestsBefore = await service.counter(`graphql_requests_total{operation="${label}",outcome="${outcome}"}`);
      const errorsBefore = await service.counter(`graphql_errors_total{code="${code}"}`);

      const { status, body: answer, line } = await service.send('/api/graphql', post(body));
      expect(status).toBe(expectedStatus);

      expect(JSON.parse(answer).errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([code]);
      const query = (body as { query?: string }).query;
      expect(line).toMatchObject({
        msg: 'request',
        status,
        codes: [code],
        outcome,
        operationName,
        documentHash: documentHash ?? hashQuery(query!),
      });
      expect(await service.counter(`graphql_requests_total{operation="${label}",outcome="${outcome}"}`)).toBe(requestsBefore + 1);
      expect(await service.counter(`graphql_errors_total{code="${code}"}`)).toBe(errorsBefore + 1);
    });
  }

  it('logs the status the client got: 200 for a refusal asked for as application/json, with its code', async () => {
    const query = 'query Deep { items { related { id } } }';
    const { status, line } = await service.send('/api/graphql', post({ query }, 'application/json'));
    expect(status).toBe(200);
    expect(line).toMatchObject({ status: 200, codes: ['QUERY_TOO_COMPLEX'], outcome: 'refused', operationName: 'Deep', documentHash: hashQuery(query) });
  });

  it('logs and counts a body over MAX_BODY_BYTES as 413 PAYLOAD_TOO_LARGE, without a document', async () => {
    const before = await service.counter('graphql_requests_total{operation="anonymous",outcome="refused"}');
    const { status, line } = await service.send('/api/graphql', post({ query: '{ greeting }', padding: 'x'.repeat(3000) }));
    expect(status).toBe(413);
    expect(line).toMatchObject({ status: 413, codes: ['PAYLOAD_TOO_LARGE'], outcome: 'refused' });
    expect(line).not.toHaveProperty('documentHash');
    expect(await service.counter('graphql_requests_total{operation="anonymous",outcome="refused"}')).toBe(before + 1);
    expect(await service.counter('graphql_errors_total{code="PAYLOAD_TOO_LARGE"}')).toBeGreaterThan(0);
  });

  it('logs the code of a 404 and of a 405, which are no GraphQL requests', async () => {
    expect((await service.send('/nowhere')).line).toMatchObject({ status: 404, codes: ['NOT_FOUND'] });
    const refused = await service.send('/api/graphql', { method: 'PUT', body: '{}' });
    expect(refused.line).toMatchObject({ status: 405, codes: ['METHOD_NOT_ALLOWED'] });
    expect(refused.line).not.toHaveProperty('outcome');
  });

  it('counts a refusal under the name of an operation that passed the checks before', async () => {
    const query = 'query Listing($limit: Int!) { items(limit: $limit) { id } }';
    expect((await service.send('/api/graphql', post({ query, variables: { limit: 1 } }))).line).toMatchObject({ status: 200, outcome: 'ok', operationName: 'Listing' });
    const { line } = await service.send('/api/graphql', post({ query, variables: { limit: 200 } }));
    expect(line).toMatchObject({ status: 400, codes: ['QUERY_TOO_COMPLEX'], outcome: 'refused', operationName: 'Listing', documentHash: hashQuery(query) });
    expect(await service.counter('graphql_requests_total{operation="Listing",outcome="ok"}')).toBe(1);
    expect(await service.counter('graphql_requests_total{operation="Listing",outcome="refused"}')).toBe(1);
  });

  it('logs and counts an answer from the response cache, and a 304 of one, with its operation and hash', async () => {
    const query = 'query Hello { greeting }';
    const first = await service.send('/api/graphql', post({ query }));
    expect(first.line).toMatchObject({ status: 200, outcome: 'ok', operationName: 'Hello', documentHash: hashQuery(query) });
    expect(first.line).not.toHaveProperty('cache');
    const again = await service.send('/api/graphql', post({ query }));
    expect(again.line).toMatchObject({ status: 200, outcome: 'cache_hit', cache: 'hit', operationName: 'Hello', documentHash: hashQuery(query) });
    expect(again.line).not.toHaveProperty('codes');
    const etag = (await fetch(`${service.url}/api/graphql`, post({ query }))).headers.get('etag')!;
    const conditional = { ...post({ query }), headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'if-none-match': etag } };
    const notModified = await service.send('/api/graphql', conditional);
    expect(notModified.status).toBe(304);
    expect(notModified.line).toMatchObject({ status: 304, outcome: 'cache_hit', cache: 'hit', operationName: 'Hello', documentHash: hashQuery(query) });
    expect(await service.counter('graphql_requests_total{operation="Hello",outcome="cache_hit"}')).toBe(3);
    expect(await service.counter('graphql_requests_total{operation="Hello",outcome="ok"}')).toBe(1);
  });

  it('logs the hash of a persisted query found, as the client sent it', async () => {
    const query = 'query Stored { items(limit: 2) { id } }';
    const sha256Hash = hashQuery(query);
    await service.send('/api/graphql', post({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } }));
    const { line } = await service.send('/api/graphql', post({ extensions: { persistedQuery: { version: 1, sha256Hash } } }));
    expect(line).toMatchObject({ status: 200, operationName: 'Stored', documentHash: sha256Hash });
  });
});

describe('operation names as metric labels', () => {
  it(`labels the first ${MAX_OPERATION_NAMES} names of operations that passed the checks, and counts the rest as "other"`, async () => {
    const service = await startService();
    try {
      for (let i = 0; i < MAX_OPERATION_NAMES + 5; i++) {
        const { status } = await service.send('/api/graphql', post({ query: `query Op${i} { greeting }` }));
        expect(status).toBe(200);
      }
      await service.send('/api/graphql', post({ query: '{ greeting }' }));
      expect(await service.counter('graphql_requests_total{operation="Op0",outcome="ok"}')).toBe(1);
      expect(await service.counter(`graphql_requests_total{operation="Op${MAX_OPERATION_NAMES - 1}",outcome="ok"}`)).toBe(1);
      expect(await service.counter(`graphql_requests_total{operation="Op${MAX_OPERATION_NAMES}",outcome="ok"}`)).toBe(0);
      expect(await service.counter('graphql_requests_total{operation="other",outcome="ok"}')).toBe(5);
      expect(await service.counter('graphql_requests_total{operation="anonymous",outcome="ok"}')).toBe(1);
    } finally {
      service.close();
    }
  });

  it('never takes a label for the name of a refused operation', async () => {
    const service = await startService();
    try {
      await service.send('/api/graphql', post({ query: 'query MadeUp { nope }' }));
      await service.send('/api/graphql', post({ query: 'query MadeUp { greeting }' }));
      expect(await service.counter('graphql_requests_total{operation="other",outcome="refused"}')).toBe(1);
      expect(await service.counter('graphql_requests_total{operation="MadeUp",outcome="ok"}')).toBe(1);
    } finally {
      service.close();
    }
  });

  it('labels the names of trusted documents whatever the bound, without using it up', async () => {
    const service = await startService((name) => name.startsWith('Trusted'));
    try {
      await service.send('/api/graphql', post({ query: 'query TrustedRefused { nope }' }));
      expect(await service.counter('graphql_requests_total{operation="TrustedRefused",outcome="refused"}')).toBe(1);
      for (let i = 0; i < MAX_OPERATION_NAMES + 1; i++) await service.send('/api/graphql', post({ query: `query Trusted${i} { greeting }` }));
      expect(await service.counter(`graphql_requests_total{operation="Trusted${MAX_OPERATION_NAMES}",outcome="ok"}`)).toBe(1);
      await service.send('/api/graphql', post({ query: 'query Untrusted { greeting }' }));
      expect(await service.counter('graphql_requests_total{operation="Untrusted",outcome="ok"}')).toBe(1);
    } finally {
      service.close();
    }
  });
});
