import { execute, getVariableValues, GraphQLScalarType, parse, validate, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { DEFAULT_SOURCE_TERMS } from '../../../../server/config/sourceTerms.ts';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileAnswerWriter } from '../../../../server/execution/json/answerWriter.ts';
import { startDeadline, withDeadline } from '../../../../server/execution/deadline.ts';
import { loadSnapshot } from '../../../../server/snapshot/load.ts';
import { createRecordBytesCache, type PartWithHoles, type RecordBytesCache } from '../../../../server/execution/json/recordBytesCache.ts';
import { resolvers } from '../../../../server/resolvers/index.ts';
import { sampleQueries } from '../../../../server/ops/sampleQueries.ts';
import { createSchema, readSdl } from '../../../../server/execution/schema.ts';
import { compileWithDistance } from '../../../../server/snapshot/withDistance.ts';
import { JsonWriter } from '../../../../server/execution/json/jsonWriter.ts';
import { createStore, type Store } from '../../../../server/snapshot/store.ts';
import { DATA_DIR } from '../../../helpers/api.ts';

/** The day requests are answered on: the snapshot's, so that activities are served as stored. */
const TODAY = '2026-11-20';

const schema = withDeadline(createSchema(readSdl(), resolvers));

let store: Store;
beforeAll(async () => {
  store = createStore(await loadSnapshot(DATA_DIR, schema));
});

/** `responseTimeMs` is the one value that may differ between two executions. */
function steady(text: string): string {
  return text.replace(/"responseTimeMs":\d+/g, '"responseTimeMs":0');
}

function operationOf(query: string): { document: ReturnType<typeof parse>; operation: OperationDefinitionNode } {
  const document = parse(query);
  return { document, operation: document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')! };
}

/** The writer of an operation, giving text (null when it leaves the answer to execution). */
function writerOf(on: GraphQLSchema, query: string) {
  const { document, operation } = operationOf(query);
  const invalid = validate(on, document);
  if (invalid.length > 0) throw invalid[0];
  const writer = compileAnswerWriter(on, document, operation, new JsonWriter());
  if (!writer) throw new Error('the writer does not take this operation');
  return (variables: Record<string, unknown>, context: unknown, cache: RecordBytesCache | null): string | null => {
    const coerced = getVariableValues(on, operation.variableDefinitions ?? [], variables);
    if (coerced.errors) throw coerced.errors[0];
    return writer.write(startDeadline(2000), context, coerced.coerced, cache, Infinity)?.toString('utf8') ?? null;
  };
}

/** What the writer gives for one request. */
function written(on: GraphQLSchema, query: string, variables: Record<string, unknown>, context: unknown, cache: RecordBytesCache): string | null {
  return writerOf(on, query)(variables, context, cache);
}

/** What graphql-js executes, as JSON.stringify writes it. */
function executed(on: GraphQLSchema, query: string, variables: Record<string, unknown>, context: unknown): ExecutionResult {
  return execute({ schema: on, document: parse(query), variableValues: variables, contextValue: context, rootValue: startDeadline(2000) }) as ExecutionResult;
}

/**
 * The sample queries the writer takes: all but those asking a list's `facets` or a tour's line
 * fields, which have resolvers of their own and are left to execution.
 */
function writableSamples() {
  return sampleQueries(store).filter((sample) => !sample.query.includes('facets(') && !LINE_FIELDS.test(sample.query));
}

/** A tour's line fields, which have resolvers of their own. */
const LINE_FIELDS = /\b(?:geometry|bounds|elevationProfile)\b/;

describe('the answer writer', () => {
  it('leaves an operation asking facets to execution', () => {
    const asking = sampleQueries(store).filter((sample) => sample.query.includes('facets('));
    expect(asking.length).toBeGreaterThan(0);
    for (const sample of asking) {
      const { document, operation } = operationOf(sample.query);
      expect(compileAnswerWriter(schema, document, operation, new JsonWriter()), sample.name).toBeNull();
    }
  });

  it('leaves an operation asking a tour\'s line fields to execution', () => {
    const asking = sampleQueries(store).filter((sample) => LINE_FIELDS.test(sample.query));
    expect(asking.length).toBeGreaterThan(0);
    for (const sample of asking) {
      const { document, operation } = operationOf(sample.query);
      expect(compileAnswerWriter(schema, document, operation, new JsonWriter()), sample.name).toBeNull();
    }
  });

  it('writes every sample query as graphql-js answers it, with the cache empty and then full', () => {
    const cache = createRecordBytesCache(64 * 1024 * 1024);
    for (const sample of writableSamples()) {
      const expected = steady(JSON.stringify(executed(schema, sample.query, sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS })));
      const write = writerOf(schema, sample.query);
      const first = write(sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache);
      const bytesAfterFirst = cache.bytes;
      const second = write(sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache);
      expect(first === null ? null : steady(first), `${sample.name} (cache empty)`).toBe(expected);
      expect(second === null ? null : steady(second), `${sample.name} (cache full)`).toBe(expected);
      // The second answer copied every record's part: nothing new was kept.
      expect(cache.bytes, sample.name).toBe(bytesAfterFirst);
    }
    expect(cache.bytes).toBeGreaterThan(0);
  });

  it('writes the same bytes without a cache, near-me items included', () => {
    for (const sample of writableSamples()) {
      const expected = steady(JSON.stringify(executed(schema, sample.query, sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS })));
      const answer = writerOf(schema, sample.query)(sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, null);
      expect(answer === null ? null : steady(answer), sample.name).toBe(expected);
    }
    expect(sampleQueries(store).some((sample) => sample.query.includes('nearLat'))).toBe(true);
  });

  it('copies what it keeps: answers written in between leave the kept parts as they were', () => {
    const cache = createRecordBytesCache(64 * 1024 * 1024);
    const samples = writableSamples();
    const writers = samples.map((sample) => writerOf(schema, sample.query));
    const firsts = samples.map((sample, i) => steady(writers[i]!(sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache)!));
    // Every answer again, now from what was kept while the others were written.
    samples.forEach((sample, i) => expect(steady(writers[i]!(sample.variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache)!), sample.name).toBe(firsts[i]));
  });

  it('writes near-me copies from what it kept of their records, with each request\'s distance', () => {
    const query = `query Near($lat: Float!, $lng: Float!) {
      tours(nearLat: $lat, nearLng: $lng, radiusKm: 50, limit: 5) { data { id name distance_km startPoint landscapes } }
    }`;
    const cache = createRecordBytesCache(1024 * 1024);
    const write = writerOf(schema, query);
    const sizes: number[] = [];
    for (const [lat, lng] of [[46.6863, 7.8632], [46.7, 7.9], [46.6863, 7.8632]]) {
      const variables = { lat, lng };
      const answer = write(variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache);
      expect(answer).toBe(JSON.stringify(executed(schema, query, variables, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS })));
      expect(JSON.parse(answer!).data.tours.data.length).toBeGreaterThan(0);
      sizes.push(cache.bytes);
    }
    // The third request met the records of the first again: nothing new was kept.
    expect(sizes[0]).toBeGreaterThan(0);
    expect(sizes[2]).toBe(sizes[1]);
  });

  it('writes copies of a record from what it kept, with the replaced field\'s value of each, wherever the selection puts it', () => {
    const record = Object.freeze({ s: 'record', i: 1, n: 'record' });
    const copyOf = (replaced: 'n' | 's', value: string) => compileWithDistance<typeof record>(Object.keys(record), replaced)(record, value as unknown as number);
    const variants = [copyOf('n', 'copy'), copyOf('n', 'another "copy"'), copyOf('s', 'copy of s'), copyOf('n', 'record')];
    const copies = makeExecutableSchema({
      typeDefs: 'type Item { s: String i: Int n: String! } type Query { copy(variant: Int!): Item! }',
      resolvers: { Query: { copy: (_: unknown, { variant }: { variant: number }) => variants[variant] } },
    });
    for (const query of ['query Q($variant: Int!) { copy(variant: $variant) { i n s again: n } }', 'query Q($variant: Int!) { copy(variant: $variant) { i } }']) {
      const write = writerOf(copies, query);
      const cache = createRecordBytesCache(65_536);
      for (const variant of [0, 1, 2, 3, 0]) {
        expect(write({ variant }, {}, cache), `${query}, variant ${variant}`).toBe(JSON.stringify(executed(copies, query, { variant }, {})));
      }
    }
  });

  it('keeps nothing of an object that is not frozen, nor of a copy of one, which may change between answers', () => {
    const record = { s: 'before', i: 1, n: 'record' };
    const copy = compileWithDistance<typeof record>(Object.keys(record), 'n')(record, 'copy' as unknown as number);
    const items = makeExecutableSchema({
      typeDefs: 'type Item { s: String i: Int n: String! } type Query { record: Item! copy: Item! }',
      resolvers: { Query: { record: () => record, copy: () => copy } },
    });
    const query = '{ record { s n } copy { s n } }';
    const write = writerOf(items, query);
    const cache = createRecordBytesCache(65_536);
    expect(write({}, {}, cache)).toBe('{"data":{"record":{"s":"before","n":"record"},"copy":{"s":"before","n":"copy"}}}');
    // The copy reads the record's fields: it changes with it.
    record.s = 'after';
    expect(write({}, {}, cache)).toBe('{"data":{"record":{"s":"after","n":"record"},"copy":{"s":"after","n":"copy"}}}');
    expect(cache.bytes).toBe(0);
  });

  it('merges aliases, repeated fields, fragments and __typename as graphql-js does', () => {
    const query = `query Mixed {
      __typename
      first: activities(limit: 2) { ...Page data { title id } }
      second: activities(limit: 2, offset: 1) { total data { ... on Activity { __typename id } ...Titles } }
      one: activity(id: "${store.locales['de-CH'].activities.records[0]!.id}") { id name: title summary { startingPrice { formatted } } }
    }
    fragment Page on ActivitiesResult { total data { id isBookable } }
    fragment Titles on Activity { title id }`;
    const cache = createRecordBytesCache(1024 * 1024);
    const write = writerOf(schema, query);
    const expected = JSON.stringify(executed(schema, query, {}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }));
    expect(write({}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache)).toBe(expected);
    expect(cache.bytes).toBeGreaterThan(0);
    expect(write({}, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, cache)).toBe(expected);
  });

  it('takes no operation with a directive or an introspection field', () => {
    for (const query of ['query Q($s: Boolean!) { types @skip(if: $s) { id } }', '{ __schema { queryType { name } } }', '{ __type(name: "Activity") { name } }']) {
      const { document, operation } = operationOf(query);
      expect(compileAnswerWriter(schema, document, operation, new JsonWriter()), query).toBeNull();
    }
  });

  it('leaves to execution an answer with an error: a refused argument, a deadline passed', () => {
    const cache = createRecordBytesCache(1024 * 1024);
    const { document, operation } = operationOf('{ activities(limit: 1000) { total } }');
    expect(compileAnswerWriter(schema, document, operation, new JsonWriter())!.write(startDeadline(2000), { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, {}, cache, Infinity)).toBeNull();
    const types = operationOf('{ types { id } }');
    expect(compileAnswerWriter(schema, types.document, types.operation, new JsonWriter())!.write({ atMs: -1, budgetMs: 5 }, { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS }, {}, cache, Infinity)).toBeNull();
  });

  describe('on values graphql-js serializes or refuses', () => {
    // A schema of its own, whose resolvers return what no validated snapshot holds.
    const odd = makeExecutableSchema({
      typeDefs: `
        enum Size { SMALL LARGE }
        type Item { s: String i: Int f: Float b: Boolean n: String! size: Size raw: JSON child: Item list: [Int!] }
        scalar JSON
        type Query { item(name: String!): Item items: [Item!]! }`,
      resolvers: {
        JSON: new GraphQLScalarType({ name: 'JSON', serialize: (value) => value }),
        Query: {
          item: (_: unknown, { name }: { name: string }) => ODD_ITEMS[name],
          items: () => Object.values(ODD_ITEMS),
        },
      },
    });
    const ODD_ITEMS: Record<string, unknown> = {
      plain: Object.freeze({ s: 'Zürich "HB"\n', i: 7, f: 1.5, b: true, n: 'x', size: 'SMALL', raw: { a: [1, null, 'b'] }, list: [1, 2] }),
      coerced: Object.freeze({ s: 42, i: 3.0, f: 2, b: false, n: true, size: 'LARGE' }),
      nested: Object.freeze({ n: 'parent', child: Object.freeze({ n: 'child', s: 'inner' }) }),
      intTooLarge: Object.freeze({ n: 'x', i: 2 ** 40 }),
      intFraction: Object.freeze({ n: 'x', i: 1.5 }),
      floatNaN: Object.freeze({ n: 'x', f: Number.NaN }),
      nullInNonNull: Object.freeze({ n: null }),
      nullInList: Object.freeze({ n: 'x', list: [1, null] }),
      unknownEnum: Object.freeze({ n: 'x', size: 'HUGE' }),
      rawDate: Object.freeze({ n: 'x', raw: new Date(0) }),
      method: Object.freeze({ n: 'x', s: () => 'called' }),
      notAList: Object.freeze({ n: 'x', list: 5 }),
    };
    const selection = '{ s i f b n size raw list child { n s } }';
    // Written: graphql-js answers without an error, and exactly so here. Left to execution: an
    // error, or a value only graphql-js writes (a method it calls, a Date JSON.stringify turns into text).
    const WRITTEN = ['plain', 'coerced', 'nested'];

    for (const name of Object.keys(ODD_ITEMS)) {
      it(`${name}: ${WRITTEN.includes(name) ? "the bytes of graphql-js's answer" : 'left to execution'}`, () => {
        const query = `{ item(name: "${name}") ${selection} }`;
        const answer = written(odd, query, {}, {}, createRecordBytesCache(65_536));
        expect(answer).toBe(WRITTEN.includes(name) ? JSON.stringify(executed(odd, query, {}, {})) : null);
      });
    }

    it('writes a list of records as graphql-js does, or leaves all of it when one item has an error', () => {
      const query = `{ items ${selection} }`;
      expect(executed(odd, query, {}, {}).errors).toBeDefined();
      expect(written(odd, query, {}, {}, createRecordBytesCache(65_536))).toBeNull();
    });
  });
});

describe('the record bytes cache', () => {
  const selection = {};
  const record = (n: number) => Object.freeze({ n });

  it('keeps bytes per selection and record', () => {
    const cache = createRecordBytesCache(65_536);
    const [a, b] = [record(1), record(2)];
    const other = {};
    cache.set(selection, a, Buffer.from('{"n":1}'));
    expect(Buffer.from(cache.get(selection, a) as Uint8Array).toString()).toBe('{"n":1}');
    expect(cache.get(selection, b)).toBeUndefined();
    expect(cache.get(other, a)).toBeUndefined();
    expect(cache.bytes).toBeGreaterThan(7);
  });

  it('keeps a copy of the bytes it is given, which may be written over afterwards', () => {
    const cache = createRecordBytesCache(1024 * 1024);
    const scratch = Buffer.alloc(100_000);
    const [plain, holed, long] = [record(1), record(2), record(3)];
    scratch.write('{"n":1}');
    cache.set(selection, plain, scratch.subarray(0, 7));
    scratch.write('{"n":2,"d":');
    scratch.write('}', 20);
    cache.set(selection, holed, { replaced: 'd', segments: [scratch.subarray(0, 11), scratch.subarray(20, 21)] });
    // Longer than a chunk of the cache: it gets one of its own.
    scratch.fill('x');
    cache.set(selection, long, scratch);
    scratch.fill(0);
    expect(Buffer.from(cache.get(selection, plain) as Uint8Array).toString()).toBe('{"n":1}');
    const kept = cache.get(selection, holed) as PartWithHoles;
    expect(kept.replaced).toBe('d');
    expect(kept.segments.map((segment) => Buffer.from(segment).toString())).toEqual(['{"n":2,"d":', '}']);
    expect(Buffer.from(cache.get(selection, long) as Uint8Array).toString()).toBe('x'.repeat(100_000));
  });

  it('forgets everything once its budget is spent, and keeps what came last', () => {
    const cache = createRecordBytesCache(65_536);
    const records = Array.from({ length: 100 }, (_, i) => record(i));
    for (const r of records) cache.set(selection, r, new Uint8Array(1000));
    expect(cache.bytes).toBeLessThanOrEqual(65_536);
    expect(cache.get(selection, records[0]!)).toBeUndefined();
    expect(cache.get(selection, records[99]!)).toBeDefined();
  });

  it('keeps nothing larger than its whole budget', () => {
    const cache = createRecordBytesCache(65_536);
    const large = record(1);
    cache.set(selection, large, new Uint8Array(70_000));
    expect(cache.get(selection, large)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('is emptied when another snapshot is served', () => {
    const cache = createRecordBytesCache(65_536);
    const [first, second] = [{}, {}];
    const r = record(1);
    cache.use(first);
    cache.set(selection, r, Buffer.from('1'));
    cache.use(first);
    expect(cache.get(selection, r)).toBeDefined();
    cache.use(second);
    expect(cache.get(selection, r)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
