/**
 * Hostile and malformed requests against the real server over the committed fixture snapshot:
 * each is refused with a clear error, and the server answers a normal query right after. Refusals
 * under load, and what they cost, are the load test's (test/load/load.ts), not a timed assertion here.
 */

import { getIntrospectionQuery } from 'graphql';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { createLogger } from '../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import { DATA_DIR, IN_PROCESS, tempStateDir } from '../helpers/api.ts';

let running: RunningServer;

beforeAll(async () => {
  running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir() }), createLogger('silent'));
});

afterAll(() => running.close());

interface Answer {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function post(body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await request(`${running.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: JSON.parse(text) };
}

const query = (text: string, variables?: Record<string, unknown>) => post(JSON.stringify({ query: text, variables }));

/** The first error's code and message. */
const refusal = (answer: Answer) => [answer.status, answer.body.errors?.[0]?.extensions?.code, answer.body.errors?.[0]?.message];

async function expectStillServing() {
  const answer = await query('{ types(locale: "fr-CH") { id } }');
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  expect((answer.body.data as { types: unknown[] }).types.length).toBeGreaterThan(0);
}

const ATTRACTION_FIELDS =
  'id name abstract description url latitude longitude locality postalCode contactName contactPhone contactEmail contactUrl touristType seasons sportTypes neededTime childrenAges difficulty natureTypes experienceTypes views isAccessibleForFree isWheelchairAccessible isIndoor isOutdoor suitableFor seasonStart seasonEnd imageUrl images destinationId lastUpdated distance_km';

describe('hostile requests', () => {
  const cases: [string, () => Promise<Answer>, unknown[]][] = [
    [
      'a body over 100 KB',
      () => post(JSON.stringify({ query: '{ types { id } }', variables: { pad: 'x'.repeat(110_000) } })),
      [413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the limit of 102400 bytes'],
    ],
    ['malformed JSON', () => post('{"query": "{ types { id } }",}'), [400, 'BAD_REQUEST', expect.stringMatching(/^Malformed JSON body/)]],
    ['a body without query', () => post('{"operationName":"Q"}'), [400, 'BAD_REQUEST', 'Missing query']],
    [
      'a batch of 100 operations',
      () => post(JSON.stringify(Array.from({ length: 100 }, () => ({ query: '{ types { id } }' })))),
      [400, 'BAD_REQUEST', 'Batched requests are not supported: send one operation per request, as a JSON object'],
    ],
    [
      'a document of 5,000 tokens',
      () => query(`{ ${Array.from({ length: 2500 }, () => '__typename').join(' ')} }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query has more than 2000 tokens, the limit'],
    ],
    [
      'a field repeated 1,500 times (quadratic field merging)',
      () => query(`{ types { ${'id '.repeat(1500)} } }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query repeats or overlaps fields too often to be validated; validation aborted'],
    ],
    [
      'a list argument nested 1,000 deep',
      () => query(`{ types(locale: ${'['.repeat(1000)}"de-CH"${']'.repeat(1000)}) { id } }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query has more than 2000 tokens, the limit'],
    ],
    [
      'a fragment that spreads itself',
      () => query('{ ...A } fragment A on Query { types { id } ...A }'),
      [400, 'GRAPHQL_VALIDATION_FAILED', 'Cannot spread fragment "A" within itself.'],
    ],
    [
      'attractions(limit: 500) with every field under 10 aliases',
      () => query(`{ ${Array.from({ length: 10 }, (_, i) => `a${i}: attractions(limit: 500) { data { ${ATTRACTION_FIELDS} } }`).join(' ')} }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query cost is 170,020; the limit is 25,000 (each field counts 1, once per list item)'],
    ],
    [
      'the same hidden in fragments named __schema and __type',
      () =>
        query(`query { ...__schema b: attractions(limit: 500) { ...__type } }
          fragment __schema on Query { a: attractions(limit: 500) { ...__type } }
          fragment __type on AttractionsResult { data { ${ATTRACTION_FIELDS} } }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query cost is 34,004; the limit is 25,000 (each field counts 1, once per list item)'],
    ],
    [
      '40 aliases',
      () => query(`{ ${Array.from({ length: 40 }, (_, i) => `t${i}: __typename`).join(' ')} }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query has 40 aliases (fragments expanded); the limit is 30'],
    ],
    [
      '25 directives',
      () => query(`{ types { ${Array.from({ length: 25 }, () => 'id @include(if: true)').join(' ')} } }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query has 25 directives; the limit is 20'],
    ],
    [
      'a selection 300 levels deep',
      () => query(`{ ${'types { '.repeat(300)}id${' }'.repeat(300)} }`),
      [400, 'QUERY_TOO_COMPLEX', 'Query is 301 levels deep; the limit is 10'],
    ],
    [
      'introspection recursing through fields and types',
      () => query('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }'),
      [400, 'QUERY_TOO_COMPLEX', 'Maximum introspection depth exceeded'],
    ],
    [
      'introspection multiplied by aliases',
      () => query(`{ __schema { ${Array.from({ length: 20 }, (_, i) => `t${i}: types { fields { name } }`).join(' ')} } }`),
      [400, 'QUERY_TOO_COMPLEX', 'Aliases are not allowed in introspection (__schema, __type)'],
    ],
    ['an unknown operation name', () => post(JSON.stringify({ query: 'query A { types { id } }', operationName: 'B' })), [400, 'OPERATION_RESOLUTION_FAILURE', 'Unknown operation named "B"']],
    ['a limit above the maximum', () => query('{ tours(limit: 100000) { total } }'), [400, 'BAD_USER_INPUT', 'limit: 100000 is out of range; allowed: 0 to 500']],
    [
      'variables nested 3,000 arrays deep (a 6 KB body)',
      () => post(`{"query":"{ types { id } }","variables":{"a":${'['.repeat(3000)}${']'.repeat(3000)}}}`),
      [400, 'BAD_REQUEST', 'Variables nest arrays and objects more than 64 levels deep, the limit'],
    ],
    [
      'an operationName of 50 KB, without sending it back',
      () => post(JSON.stringify({ query: '{ types { id } }', operationName: 'x'.repeat(50_000) })),
      [400, 'BAD_REQUEST', 'operationName is 50,000 characters long; the limit is 256'],
    ],
    ['a mutation', () => query('mutation { x }'), [400, 'GRAPHQL_VALIDATION_FAILED', 'The mutation operation is not supported by the schema.']],
    ['a subscription', () => query('subscription { x }'), [400, 'GRAPHQL_VALIDATION_FAILED', 'The subscription operation is not supported by the schema.']],
  ];

  for (const [name, send, expected] of cases) {
    it(`refuses ${name} and keeps serving`, async () => {
      const answer = await send();
      expect(refusal(answer)).toEqual(expected);
      await expectStillServing();
    });
  }
});

describe('what a normal client sends', () => {
  it('runs every sample query of /api/schema?format=queries over HTTP without errors', async () => {
    const samples = (await (await fetch(`${running.url}/api/schema?format=queries`)).json()) as { name: string; query: string; variables: Record<string, unknown> }[];
    expect(samples.length).toBeGreaterThanOrEqual(15);
    for (const sample of samples) {
      const answer = await query(sample.query, sample.variables);
      expect([answer.status, answer.body.errors], sample.name).toEqual([200, undefined]);
    }
  });

  it('runs GraphiQL’s introspection query', async () => {
    const answer = await query(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true }));
    expect(answer.body.errors).toBeUndefined();
    expect((answer.body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(50);
  });

  it('gets one full page of 500 attractions with every field', async () => {
    const answer = await query(`{ attractions(limit: 500) { total data { ${ATTRACTION_FIELDS} } } }`);
    expect(answer.body.errors).toBeUndefined();
    expect((answer.body.data as { attractions: { data: unknown[] } }).attractions.data).toHaveLength(500);
  });
});
