import {
  execute,
  getIntrospectionQuery,
  getNamedType,
  isInterfaceType,
  isLeafType,
  isObjectType,
  isUnionType,
  parse,
  type ExecutionResult,
  type GraphQLNamedType,
} from 'graphql';
import { DEFAULT_SOURCE_TERMS } from '../../../server/config/sourceTerms.ts';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import { startDeadline, withDeadline, type Deadline } from '../../../server/execution/deadline.ts';
import { formatError } from '../../../server/http/formatError.ts';
import { createQueryChecker, type QueryChecker } from '../../../server/execution/limits.ts';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { createEngine, DOCUMENT_CHARS_PER_ENTRY, type EngineOptions, type PreparedRequest } from '../../../server/execution/engine.ts';
import { createRecordBytesCache } from '../../../server/execution/json/recordBytesCache.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { sampleQueries } from '../../../server/ops/sampleQueries.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { createStore, type Store } from '../../../server/snapshot/store.ts';
import { DATA_DIR } from '../../helpers/api.ts';

/** The day requests are answered on: the snapshot's, so that activities are served as stored. */
const TODAY = '2026-11-20';

const schema = createSchema(readSdl(), resolvers);
const executableSchema = withDeadline(schema);
const limits = readConfig({}).limits;

let store: Store;
beforeAll(async () => {
  store = createStore(await loadSnapshot(DATA_DIR, schema));
});

/** A checker that counts its calls. */
function countingChecker(maxCost = limits.maxCost): QueryChecker & { calls: number } {
  const check = createQueryChecker(schema, { ...limits, maxCost }, { introspection: true });
  const counting = Object.assign((request: Parameters<QueryChecker>[0]) => {
    counting.calls++;
    return check(request, store.sizes);
  }, { calls: 0 });
  return counting;
}

function cacheOf(overrides: Partial<EngineOptions> = {}) {
  const check = countingChecker();
  const cache = createEngine({ schema, executableSchema, check, limits, maxEntries: 100, jit: true, formatError, ...overrides });
  return { cache, check: (overrides.check as ReturnType<typeof countingChecker> | undefined) ?? check };
}

/**
 * A result as graphql-http sends it (errors through formatError), with `responseTimeMs` zeroed:
 * it is the one value that may differ between two executions.
 */
function sent(result: ExecutionResult): string {
  const body = result.errors ? { ...result, errors: result.errors.map(formatError) } : result;
  return steady(JSON.stringify(body));
}

function steady(text: string): string {
  return text.replace(/"responseTimeMs":\d+/g, '"responseTimeMs":0');
}

function plainGraphqlJs(query: string, variables: Record<string, unknown>, context: unknown, rootValue: Deadline): string {
  return sent(execute({ schema: executableSchema, document: parse(query), variableValues: variables, contextValue: context, rootValue }) as ExecutionResult);
}

function prepared(request: PreparedRequest) {
  if (request.errors) throw new Error(`refused: ${request.errors.map((error) => error.message).join('; ')}`);
  return request.operation;
}

/**
 * Answers through the cache three times executing (graphql-js first, then compiled), then three
 * times with the record bytes cache (written by server/execution/json/answerWriter.ts, or executed when it
 * gives up): six answers, each as sent.
 */
async function throughCache(query: string, variables: Record<string, unknown>, context: unknown, deadline: () => Deadline): Promise<string[]> {
  const results: string[] = [];
  for (const records of [null, createRecordBytesCache(1024 * 1024)]) {
    const { cache } = cacheOf();
    for (let i = 0; i < 3; i++) {
      const operation = prepared(cache.prepare({ query, variables }, store.sizes));
      const answer = await operation.answer(deadline(), context, variables, records);
      results.push(steady(answer.bytes.toString('utf8')));
    }
  }
  return results;
}

/** `expected` as each of the six answers of {@link throughCache}. */
function sixTimes(expected: string): string[] {
  return Array<string>(6).fill(expected);
}

describe('compiled and cached execution', () => {
  it('answers every sample query of /api/schema?format=queries as plain graphql-js does, compiled by graphql-jit or not', async () => {
    const samples = sampleQueries(store);
    expect(samples.length).toBeGreaterThanOrEqual(15);
    for (const sample of samples) {
      const context = { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS };
      const expected = plainGraphqlJs(sample.query, sample.variables, context, startDeadline(2000));
      expect(expected, sample.name).not.toContain('"errors"');

      const compiled = compileQuery(executableSchema, parse(sample.query));
      if (!isCompiledQuery(compiled)) throw new Error(`${sample.name} does not compile`);
      expect(sent(await compiled.query(startDeadline(2000), context, sample.variables)), `${sample.name} (jit)`).toBe(expected);

      expect(await throughCache(sample.query, sample.variables, context, () => startDeadline(2000)), `${sample.name} (cache)`).toEqual(sixTimes(expected));
    }
  });

  const errorCases: [string, string, Record<string, unknown>][] = [
    ['unknown ids answer null without an error', '{ activity(id: "nope") { id } tour(id: "nope") { id } snowdataStation(id: -1) { id } attraction(id: "nope") { id } }', {}],
    ['skip, include, fragments and __typename', 'query Q($s: Boolean!) { __typename tours(limit: 2) { ...T data { ... on Tour { id name @skip(if: $s) } } } } fragment T on ToursResult { total data { __typename id } }', { s: true }],
  ];

  for (const [name, query, variables] of errorCases) {
    it(`answers as plain graphql-js does: ${name}`, async () => {
      const expected = plainGraphqlJs(query, variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
      expect(await throughCache(query, variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, () => startDeadline(2000))).toEqual(sixTimes(expected));
    });
  }

  // graphql-js would run every other field first, and answer with their data or null.
  const argumentCases: [string, string, Record<string, unknown>][] = [
    ['an argument out of range', '{ activities(limit: 1000) { total } }', {}],
    ['two refused root fields', '{ a: tours(limit: -1) { total } b: tours(limit: -2) { total } }', {}],
    ['a refused argument in a variable', 'query Q($locale: String) { types(locale: $locale) { id } }', { locale: 'xx-CH' }],
    ['a refused argument of a nullable root field beside others', '{ types { id } activity(id: "x", locale: "xx") { id } }', {}],
  ];

  for (const [name, query, variables] of argumentCases) {
    it(`refuses before executing, first with the errors graphql-js would give, and no data: ${name}`, () => {
      const plain = JSON.parse(plainGraphqlJs(query, variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000))) as { errors: { message: string; locations: unknown }[] };
      const { cache } = cacheOf();
      for (let i = 0; i < 3; i++) {
        const refused = cache.prepare({ query, variables }, store.sizes);
        // graphql-js stops at the first error that nulls `data`; the check names every refused field.
        expect(refused.errors?.map((error) => ({ message: error.message, locations: error.locations, code: error.extensions.code })).slice(0, plain.errors.length)).toEqual(
          plain.errors.map(({ message, locations }) => ({ message, locations, code: 'BAD_USER_INPUT' })),
        );
      }
    });
  }

  it('answers as plain graphql-js does when a resolver throws something other than a GraphQLError', async () => {
    const broken = { store: { locales: {}, source: () => undefined }, today: TODAY };
    const query = '{ activity(id: "x") { id } types { id } }';
    const expected = plainGraphqlJs(query, {}, broken, startDeadline(2000));
    expect(JSON.parse(expected)).toEqual({
      errors: [
        { message: 'Internal server error', locations: [{ line: 1, column: 3 }], path: ['activity'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
        { message: 'Internal server error', locations: [{ line: 1, column: 28 }], path: ['types'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ],
      data: null,
    });
    expect(await throughCache(query, {}, broken, () => startDeadline(2000))).toEqual(sixTimes(expected));
  });

  it('needs graphql-js for errors that are not GraphQLErrors: graphql-jit alone drops their locations and orders data first', async () => {
    const broken = { store: { locales: {}, source: () => undefined }, today: TODAY };
    const compiled = compileQuery(executableSchema, parse('{ types { id } }'));
    if (!isCompiledQuery(compiled)) throw new Error('does not compile');
    expect(sent(await compiled.query(startDeadline(2000), broken, {}))).toBe(
      '{"data":null,"errors":[{"message":"Internal server error","path":["types"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}',
    );
  });

  it('stops at the deadline as plain graphql-js does, keeping the data of the fields that ran', async () => {
    const spent: Deadline = { atMs: -1, budgetMs: 5 };
    const query = '{ a: types(locale: "fr-CH") { id } b: activity(id: "x") { id } c: tour(id: "y") { id } }';
    const expectedSpent = plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, spent);
    expect(JSON.parse(expectedSpent)).toEqual({
      errors: [{ message: 'Execution time limit of 5 ms reached before this field started', locations: [{ line: 1, column: 3 }], path: ['a'], extensions: { code: 'EXECUTION_TIMEOUT' } }],
      data: null,
    });
    expect(await throughCache(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, () => spent)).toEqual(sixTimes(expectedSpent));

    // A deadline that passes after the first root field has started: `a` keeps its answer.
    const passesAfterFirst = (): Deadline => {
      let checks = 0;
      return {
        budgetMs: 5,
        get atMs() {
          return checks++ === 0 ? Infinity : -Infinity;
        },
      };
    };
    const expected = plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, passesAfterFirst());
    expect(JSON.parse(expected).data.a).toHaveLength(store.locales['fr-CH'].types.records.length);
    expect(JSON.parse(expected).errors.map((error: { path: string[] }) => error.path[0])).toEqual(['b', 'c']);
    expect(await throughCache(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, passesAfterFirst)).toEqual(sixTimes(expected));
  });

  it('has only leaves whose values compiled operations may copy unserialized: String, Int, Float, Boolean, JSON and an ID given as text', () => {
    // server/execution/engine.ts compiles with disableLeafSerialization. An enum, or an ID given
    // as a number, would be answered differently (an ID's number is serialized to a string): this
    // test names it. The one ID (SearchHit.id) is given as text by its resolver (resolvers/search.ts).
    const leaves = new Set<string>();
    const seen = new Set<string>();
    const visit = (type: GraphQLNamedType): void => {
      if (seen.has(type.name)) return;
      seen.add(type.name);
      if (isLeafType(type)) leaves.add(type.name);
      if (isObjectType(type) || isInterfaceType(type)) for (const field of Object.values(type.getFields())) visit(getNamedType(field.type));
      if (isUnionType(type)) type.getTypes().forEach(visit);
    };
    visit(schema.getQueryType()!);
    expect([...leaves].sort()).toEqual(['Boolean', 'Float', 'ID', 'Int', 'JSON', 'String']);
  });

  it('runs introspection on graphql-js, as plain graphql-js does', async () => {
    const query = getIntrospectionQuery();
    const expected = plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
    expect(await throughCache(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, () => startDeadline(2000))).toEqual(sixTimes(expected));
  });
});

describe('the limits through the cache', () => {
  const stations = 'query S($limit: Int) { snowdataStations(limit: $limit) { data { id name images { url } } } }';

  it('checks a document in full on its first two requests, keeping it from the second, and later ones only for their variables and cost', () => {
    const { cache, check } = cacheOf();
    for (const limit of [1, 2]) expect(prepared(cache.prepare({ query: stations, variables: { limit } }, store.sizes)).label).toBe('snowdataStations');
    expect(check.calls).toBe(2);
    const again = cache.prepare({ query: stations, variables: { limit: 3 } }, store.sizes);
    expect(again.errors).toBeUndefined();
    const plain = createQueryChecker(schema, limits, { introspection: true })({ query: stations, variables: { limit: 3 } }, store.sizes);
    expect(again.errors ? null : again.cost).toBe(plain.errors ? null : plain.cost);
    expect(check.calls).toBe(2);
  });

  it('answers the cost the checker counts for each variables, remembered by their text or not', () => {
    const { cache } = cacheOf();
    const plain = createQueryChecker(schema, limits, { introspection: true });
    const costOf = (variables: Record<string, unknown>) => {
      const outcome = cache.prepare({ query: stations, variables }, store.sizes);
      return outcome.errors ? outcome.errors : outcome.cost;
    };
    const expected = (variables: Record<string, unknown>) => {
      const outcome = plain({ query: stations, variables }, store.sizes);
      return outcome.errors ? outcome.errors : outcome.cost;
    };
    // More distinct variables than an operation remembers, each asked twice, in two rounds.
    const asked = Array.from({ length: 40 }, (_, i) => ({ limit: i + 1 }));
    for (let round = 0; round < 2; round++) {
      for (const variables of [...asked, ...asked]) expect(costOf(variables), JSON.stringify(variables)).toBe(expected(variables));
    }
    expect(expected({ limit: 40 })).not.toBe(expected({ limit: 1 }));
    // A variable the operation does not define changes the text, not the cost; a text too long to keep as a key is counted each time.
    for (const variables of [{ limit: 7, unused: 1 }, { unused: 1, limit: 7 }, { limit: 7, unused: 'x'.repeat(2000) }]) {
      expect(costOf(variables)).toBe(expected({ limit: 7 }));
      expect(costOf(variables)).toBe(expected({ limit: 7 }));
    }
  });

  it('refuses a known document with bad variables or too high a cost exactly as the checker does', () => {
    const check = countingChecker(1000);
    const { cache } = cacheOf({ check, limits: { ...limits, maxCost: 1000 } });
    const plain = createQueryChecker(schema, { ...limits, maxCost: 1000 }, { introspection: true });
    cache.prepare({ query: stations, variables: { limit: 2 } }, store.sizes);
    for (const variables of [{ limit: 'ten' }, { limit: 500 }, { limit: 2 ** 40 }]) {
      const refused = cache.prepare({ query: stations, variables }, store.sizes);
      expect(refused.errors, JSON.stringify(variables)).toBeDefined();
      expect(refused.errors).toEqual(plain({ query: stations, variables }, store.sizes).errors);
    }
    expect(prepared(cache.prepare({ query: stations, variables: { limit: 2 } }, store.sizes)).label).toBe('snowdataStations');
  });

  it('keeps parse, validation and operation-name refusals, and checks limit refusals every time', () => {
    const { cache, check } = cacheOf();
    const refusals = [
      { query: '{ types { id }' },
      { query: '{ types { nothing } }' },
      { query: 'query A { types { id } } query B { types { id } }', operationName: 'C' },
    ];
    for (const request of refusals) {
      const first = cache.prepare(request, store.sizes);
      expect(first.errors?.length).toBeGreaterThan(0);
      expect(cache.prepare(request, store.sizes)).toEqual(first);
      expect(cache.prepare(request, store.sizes)).toEqual(first);
    }
    // Each checked on its first two requests, as any document.
    expect(check.calls).toBe(6);

    const tooDeep = `{ ${'__typename a: types { '.repeat(11)}id${' }'.repeat(11)} }`;
    expect(cache.prepare({ query: tooDeep }, store.sizes).errors?.[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    cache.prepare({ query: tooDeep }, store.sizes);
    cache.prepare({ query: tooDeep }, store.sizes);
    expect(check.calls).toBe(9);
  });

  it('tells operations of one document apart by operation name', () => {
    const { cache } = cacheOf();
    const query = 'query A { types { id } } query B { tours { total } }';
    expect(prepared(cache.prepare({ query, operationName: 'A' }, store.sizes)).label).toBe('types');
    expect(prepared(cache.prepare({ query, operationName: 'B' }, store.sizes)).label).toBe('tours');
    expect(cache.prepare({ query }, store.sizes).errors?.[0]?.message).toBe('The document holds several operations; choose one with operationName');
  });

  it('labels an operation by its root field, multiple, or introspection', () => {
    const { cache } = cacheOf();
    expect(prepared(cache.prepare({ query: '{ __typename types { id } }' }, store.sizes)).label).toBe('types');
    expect(prepared(cache.prepare({ query: '{ types { id } tours { total } }' }, store.sizes)).label).toBe('multiple');
    expect(prepared(cache.prepare({ query: '{ ... on Query { types { id } } }' }, store.sizes)).label).toBe('multiple');
    expect(prepared(cache.prepare({ query: '{ __schema { queryType { name } } }' }, store.sizes)).label).toBe('introspection');
  });
});

describe('the bounds of the cache', () => {
  it('drops the least recently used entry past its size', () => {
    const { cache, check } = cacheOf({ maxEntries: 2 });
    const [a, b, c] = ['{ types { id } }', '{ types { title } }', '{ types { slug } }'];
    // Each document is kept from its second request on.
    const twice = (query: string) => [0, 1].forEach(() => cache.prepare({ query }, store.sizes));
    twice(a);
    twice(b);
    cache.prepare({ query: a }, store.sizes);
    twice(c);
    expect(cache.size).toBe(2);
    expect(check.calls).toBe(6);
    cache.prepare({ query: a }, store.sizes);
    expect(check.calls).toBe(6);
    cache.prepare({ query: b }, store.sizes);
    expect(check.calls).toBe(7);
  });

  it('keeps a document only from its second request, so that documents sent once do not push out those used again', () => {
    const { cache, check } = cacheOf({ maxEntries: 10 });
    const hot = '{ types { id } }';
    cache.prepare({ query: hot }, store.sizes);
    cache.prepare({ query: hot }, store.sizes);
    expect(cache.size).toBe(1);
    // A query builder's flood: every document different, far more than the cache keeps.
    const fields = ['id', 'title', 'slug'];
    for (let i = 0; i < 100; i++) cache.prepare({ query: `{ t${i}: types { ${fields[i % 3]} } }` }, store.sizes);
    expect(cache.size).toBe(1);
    const calls = check.calls;
    cache.prepare({ query: hot }, store.sizes);
    expect(check.calls).toBe(calls);
  });

  it('bounds the document text it holds, so large documents cannot fill memory', () => {
    const { cache, check } = cacheOf({ maxEntries: 2 });
    const large = `{ types { id ${' '.repeat(2 * DOCUMENT_CHARS_PER_ENTRY)}} }`;
    cache.prepare({ query: large }, store.sizes);
    cache.prepare({ query: large }, store.sizes);
    expect(check.calls).toBe(2);
    expect(cache.size).toBe(0);
    const half = (field: string) => `{ types { ${field} ${' '.repeat(DOCUMENT_CHARS_PER_ENTRY)}} }`;
    for (const field of ['id', 'id', 'title', 'title']) cache.prepare({ query: half(field) }, store.sizes);
    expect(cache.size).toBe(1);
  });

  it('keeps nothing with size 0, checking every request in full', async () => {
    const { cache, check } = cacheOf({ maxEntries: 0 });
    for (let i = 0; i < 3; i++) {
      const operation = prepared(cache.prepare({ query: '{ types(locale: "it-CH") { id } }' }, store.sizes));
      // Without the record bytes cache, an answer is always executed (then written as bytes).
      const answer = await operation.answer(startDeadline(2000), { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, {}, null);
      expect(JSON.parse(String(answer.bytes)).data.types).toHaveLength(store.locales['it-CH'].types.records.length);
    }
    expect(check.calls).toBe(3);
    expect(cache.size).toBe(0);
  });
});

describe('the variables of the request that prepared an operation', () => {
  it('keep the cost the checks counted, and other variables are counted by the operation', () => {
    // A checker that marks its cost: a figure counted again would be measureCost's own.
    const real = createQueryChecker(schema, limits, { introspection: true });
    const costOf = (query: string, variables: Record<string, unknown>) => {
      const checked = real({ query, variables }, store.sizes);
      if (checked.errors) throw checked.errors[0];
      return checked.cost;
    };
    const marking: QueryChecker = (request, sizes) => {
      const checked = real(request, sizes);
      return checked.errors ? checked : { ...checked, cost: checked.cost + 1000 };
    };
    const withVariable = 'query Q($limit: Int) { tours(limit: $limit) { total data { id } } }';
    const without = '{ tours(limit: 7) { total data { id } } }';
    for (const query of [withVariable, without]) {
      const { cache } = cacheOf({ check: marking });
      const variables = query === withVariable ? { limit: 7 } : {};
      // Checked on the first two requests (kept from the second on), then found in the cache.
      const costs = [0, 1, 2].map(() => cache.prepare({ query, variables }, store.sizes)).map((outcome) => (outcome.errors ? null : outcome.cost));
      expect(costs, query).toEqual(Array(3).fill(costOf(query, variables) + 1000));
    }
    // Other variables are coerced and counted by the operation itself.
    const { cache } = cacheOf({ check: marking });
    for (let i = 0; i < 2; i++) cache.prepare({ query: withVariable, variables: { limit: 7 } }, store.sizes);
    const other = cache.prepare({ query: withVariable, variables: { limit: 3 } }, store.sizes);
    expect(other.errors ? null : other.cost).toBe(costOf(withVariable, { limit: 3 }));
  });
});

describe('the record bytes an operation keeps', () => {
  it('are kept from its second answer on: from the third request of a document, kept since its second', async () => {
    const { cache } = cacheOf();
    const records = createRecordBytesCache(1024 * 1024);
    const query = '{ tours(locale: "fr-CH", limit: 5) { data { id name difficulty } } }';
    const expected = plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
    const sizes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await prepared(cache.prepare({ query }, store.sizes)).answer(startDeadline(2000), { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, {}, records);
      expect(answer.errors ? null : steady(answer.bytes.toString('utf8'))).toBe(expected);
      sizes.push(records.bytes);
    }
    // Neither the one-off operation of the first request nor the first answer of the one kept
    // leave anything; the third request keeps the five tours, the fourth copies them.
    expect(sizes.slice(0, 2)).toEqual([0, 0]);
    expect(sizes[2]).toBeGreaterThan(0);
    expect(sizes[3]).toBe(sizes[2]);
  });
});

describe('documents that differ only in their literals', () => {
  /** A map client's request: the point and page written into the document. */
  const hikesNear = (lat: number | string, lng: number | string, limit: number | string = 5) =>
    `query Near { tours(routeType: "hike", nearLat: ${lat}, nearLng: ${lng}, radiusKm: 30, limit: ${limit}) { total data { id name distance_km } } }`;

  /** The answer through the cache, with the record bytes cache when `records` is given. */
  async function answerOf(cache: ReturnType<typeof cacheOf>['cache'], query: string, records: ReturnType<typeof createRecordBytesCache> | null, variables: Record<string, unknown> = {}) {
    const operation = prepared(cache.prepare({ query, variables }, store.sizes));
    const answer = await operation.answer(startDeadline(2000), { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, variables, records);
    return steady(answer.bytes.toString('utf8'));
  }

  it('checks their template once and answers each document as plain graphql-js answers it', async () => {
    for (const records of [null, createRecordBytesCache(1024 * 1024)]) {
      const { cache, check } = cacheOf();
      const points = Array.from({ length: 30 }, (_, i) => [46.5 + i * 0.013, 7.5 + ((i * 7) % 30) * 0.021, 1 + (i % 9)] as const);
      for (const [lat, lng, limit] of points) {
        const query = hikesNear(lat.toFixed(4), lng.toFixed(3), limit);
        const expected = plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
        expect(expected).not.toContain('"errors"');
        expect(await answerOf(cache, query, records), query).toBe(expected);
      }
      // The first document, then the template of the second: every later one is parsed only.
      expect(check.calls).toBe(2);
      // The template alone: no document was requested twice.
      expect(cache.size).toBe(1);
    }
  });

  it('keeps a document requested again under its text, unless a template built from others answers it', () => {
    const { cache, check } = cacheOf();
    // The same document again and again: checked on its first two requests, then found by its text.
    for (let i = 0; i < 4; i++) expect(prepared(cache.prepare({ query: hikesNear(46.6, 7.8) }, store.sizes)).label).toBe('tours');
    expect(check.calls).toBe(2);
    // Its template is built from the next document of it; from then on, documents requested
    // again, as a map client's come back to a point, are answered from it without a check.
    const others = [hikesNear(46.7, 7.9), hikesNear(46.71, 7.91), hikesNear(46.72, 7.92)];
    for (const query of [...others, ...others, ...others]) expect(prepared(cache.prepare({ query }, store.sizes)).label).toBe('tours');
    expect(check.calls).toBe(3);
  });

  it('gives each document its own cost, from the limit written into it', () => {
    const { cache } = cacheOf();
    const plain = createQueryChecker(schema, limits, { introspection: true });
    for (const limit of [3, 4, 5, 50, 5]) {
      const outcome = cache.prepare({ query: hikesNear(46.6, 7.8, limit) }, store.sizes);
      const expected = plain({ query: hikesNear(46.6, 7.8, limit) }, store.sizes);
      expect(outcome.errors ? null : outcome.cost).toBe(expected.errors ? null : expected.cost);
    }
  });

  it('answers an error with the locations of the document sent, whose literals are longer than the template\'s first', async () => {
    const { cache } = cacheOf();
    await answerOf(cache, hikesNear(46.6, 7.8), null);
    await answerOf(cache, hikesNear(46.61, 7.81), null);
    // The template passes; the argument check refuses the limit, and the error points into the text sent.
    const refused = (okLimit: number, lat: string, limit: number) =>
      `query Near { ok: tours(routeType: "hike", limit: ${okLimit}) { total } tours(routeType: "hike", nearLat: ${lat}, nearLng: 7.8, radiusKm: 30, limit: ${limit}) { total } }`;
    const queries = [refused(1, '46.6', -1), refused(10, '46.612345', -10), refused(100, '46.61', -100), refused(1, '46.6', -2)];
    for (const query of queries) {
      const expected = JSON.parse(plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000))).errors[0];
      expect(expected.extensions.code).toBe('BAD_USER_INPUT');
      const error = cache.prepare({ query }, store.sizes).errors?.[0];
      expect({ message: error?.message, locations: error?.locations }).toEqual({ message: expected.message, locations: expected.locations });
    }
    const [first, second] = queries.slice(0, 2).map((query) => JSON.parse(plainGraphqlJs(query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000))).errors[0].locations[0].column);
    expect(first).not.toBe(second);
  });

  it('refuses a literal of the wrong type exactly as the checker does', () => {
    const { cache } = cacheOf();
    const plain = createQueryChecker(schema, limits, { introspection: true });
    cache.prepare({ query: hikesNear(46.6, 7.8) }, store.sizes);
    cache.prepare({ query: hikesNear(46.7, 7.9) }, store.sizes);
    for (const query of [hikesNear('"north"', 7.8), hikesNear(46.6, 7.8, 2.5), hikesNear(46.6, 7.8, 2 ** 40), hikesNear(46.6, 7.8, 'true')]) {
      const refused = cache.prepare({ query }, store.sizes);
      expect(refused.errors?.[0]?.extensions.code, query).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(refused.errors).toEqual(plain({ query }, store.sizes).errors);
    }
    expect(prepared(cache.prepare({ query: hikesNear(46.8, 7.7) }, store.sizes)).label).toBe('tours');
  });

  it('refuses a document past the token limit, whose template holds more tokens still, and answers one within it', () => {
    const query = hikesNear(46.6, 7.8);
    const tokens = [...query.matchAll(/[A-Za-z_][\w]*|-?\d+(\.\d+)?|"[^"]*"|[{}():,]/g)].filter((m) => m[0] !== ',').length;
    const check = createQueryChecker(schema, { ...limits, maxTokens: tokens }, { introspection: true });
    const { cache } = cacheOf({ check, limits: { ...limits, maxTokens: tokens } });
    for (const [lat, lng] of [[46.6, 7.8], [46.7, 7.9], [46.8, 7.7]]) expect(prepared(cache.prepare({ query: hikesNear(lat!, lng!) }, store.sizes)).label).toBe('tours');
    const longer = `query Near { tours(routeType: "hike", nearLat: 46.6, nearLng: 7.8, radiusKm: 30, limit: 5) { total data { id name distance_km difficulty } } }`;
    expect(cache.prepare({ query: longer }, store.sizes).errors?.[0]?.message).toBe(`Query has more than ${tokens} tokens, the limit`);
  });

  it('answers fields that merge only with equal literals, which their template would not merge', async () => {
    const { cache, check } = cacheOf();
    const twice = (limit: number) => `{ tours(limit: ${limit}) { total } tours(limit: ${limit}) { data { id } } }`;
    for (const limit of [1, 2, 3, 4]) {
      const expected = plainGraphqlJs(twice(limit), {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
      expect(expected).not.toContain('"errors"');
      expect(await answerOf(cache, twice(limit), null)).toBe(expected);
    }
    // The template was tried once and is not used: each document is checked in full.
    expect(check.calls).toBe(5);
  });

  it('keeps in the text what a variable would not mean the same as: directives, enums, lists and null', async () => {
    const { cache } = cacheOf();
    const queries = [
      '{ tours(limit: 1) { total data { id @include(if: true) } } }',
      '{ tours(limit: 2) { total data { id @include(if: false) } } }',
      '{ tours(limit: 3, routeType: null) { total } }',
      '{ tours(limit: 4, routeType: "hike") { total } }',
      'query Q($l: Int) { tours(limit: $l, offset: 1) { total data { id } } }',
      'query Q($l: Int) { tours(limit: $l, offset: 2) { total data { id } } }',
      '{ shorthand: tours(limit: 5) { total } }',
      'query { keyword: tours(limit: 6) { total } }',
      'query Named { tours(limit: 7) { total } }',
    ];
    for (const query of [...queries, ...queries]) {
      const variables = query.includes('$l') ? { l: 2 } : {};
      const expected = plainGraphqlJs(query, variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, startDeadline(2000));
      expect(await answerOf(cache, query, createRecordBytesCache(1024 * 1024), variables), query).toBe(expected);
    }
  });
});
