import { execute, getIntrospectionQuery, parse, getOperationAST } from 'graphql';
import { DEFAULT_SOURCE_TERMS } from '../../../server/config/sourceTerms.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import type { AnswerSizes } from '../../../server/snapshot/answerSizes.ts';
import { costVariables, createQueryChecker, estimateAnswerBytes, measureCost, SEARCH_COST_PER_CHARACTER_AND_AREA, type CheckedQuery, type QueryChecker } from '../../../server/execution/limits.ts';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { sampleQueries } from '../../../server/ops/sampleQueries.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { createStore, type Store } from '../../../server/snapshot/store.ts';
import { DATA_DIR } from '../../helpers/api.ts';

/** The day requests are answered on: the snapshot's, so that activities are served as stored. */
const TODAY = '2026-11-20';

const schema = createSchema(readSdl(), resolvers);
const defaults = readConfig({}).limits;

let store: Store;
/** The sizes of the fixture snapshot's answers. */
let sizes: AnswerSizes;
beforeAll(async () => {
  store = createStore(await loadSnapshot(DATA_DIR, schema));
  sizes = store.sizes;
});

/** A checker of the fixture snapshot's requests. */
function withSizes(checker: QueryChecker): (request: Parameters<QueryChecker>[0]) => CheckedQuery {
  return (request) => checker(request, sizes);
}

const check = withSizes(createQueryChecker(schema, defaults, { introspection: true }));

/** The messages and codes of a refusal, or the cost of an accepted query. */
function outcome(result: CheckedQuery) {
  return result.errors ? result.errors.map((error) => `${error.extensions.code}: ${error.message}`) : { cost: result.cost };
}

/** Every field of a type, nested objects expanded (lists of objects included). */
function allFields(typeName: string): string {
  const type = schema.getType(typeName) as import('graphql').GraphQLObjectType;
  return Object.values(type.getFields())
    .map((field) => {
      let inner = field.type as { ofType?: unknown; name?: string };
      while (inner.ofType) inner = inner.ofType as typeof inner;
      const named = schema.getType(inner.name!);
      return named && 'getFields' in named ? `${field.name} { ${allFields(named.name)} }` : field.name;
    })
    .join(' ');
}

describe('the default limits', () => {
  it('let every sample query of /api/schema?format=queries pass', () => {
    const samples = sampleQueries(store);
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) {
      expect(outcome(check({ query: sample.query, variables: sample.variables })), sample.name).toEqual({ cost: expect.any(Number) });
    }
  });

  it('let GraphiQL’s introspection query pass, with every option on', () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(outcome(check({ query }))).toEqual({ cost: 1 });
  });

  it('let one page of 500 attractions with every field pass', () => {
    const query = `{ attractions(limit: 500) { total data { ${allFields('Attraction')} } } }`;
    expect(outcome(check({ query }))).toEqual({ cost: 18_003 });
  });

  it('let 50 stations with every section and list pass, and refuse 500 of them', () => {
    const selection = `total data { ${allFields('SnowdataStation')} }`;
    expect(outcome(check({ query: `{ snowdataStations { ${selection} } }` }))).toEqual({ cost: 21_303 });
    expect(outcome(check({ query: `{ snowdataStations(limit: 500) { ${selection} } }` }))).toEqual([
      'QUERY_TOO_COMPLEX: Query cost is 213,003; the limit is 25,000 (each field counts 1, once per list item)',
    ]);
  });
});

describe('cost', () => {
  const attractionFields = allFields('Attraction');

  it('refuses attractions(limit: 500) with every field under many aliases, before execution', () => {
    const aliases = Array.from({ length: 10 }, (_, i) => `a${i}: attractions(limit: 500) { data { ${attractionFields} } }`).join('\n');
    expect(outcome(check({ query: `{ ${aliases} }` }))).toEqual([
      'QUERY_TOO_COMPLEX: Query cost is 180,020; the limit is 25,000 (each field counts 1, once per list item)',
    ]);
  });

  it('counts a search by the length of its q and the areas it searches, in literals and variables alike', () => {
    const costOf = (query: string, variables: Record<string, unknown> = {}) => {
      const document = parse(query);
      return measureCost(schema, document, getOperationAST(document)!, variables);
    };
    const fields = 'costOf: search(q: $q, areas: $areas) { total }';
    const base = costOf('{ search(q: "", areas: ["tours"]) { total } }');
    expect(costOf('{ search(q: "alpen", areas: ["tours"]) { total } }') - base).toBe(5 * SEARCH_COST_PER_CHARACTER_AND_AREA);
    expect(costOf('{ search(q: "alpen", areas: ["tours", "attractions"]) { total } }') - base).toBe(10 * SEARCH_COST_PER_CHARACTER_AND_AREA);
    // Every area when none are named.
    expect(costOf('{ search(q: "alpen") { total } }') - base).toBe(25 * SEARCH_COST_PER_CHARACTER_AND_AREA);
    expect(costOf(`query ($q: String!, $areas: [String!]) { ${fields} }`, { q: 'alpen', areas: ['tours'] }) - base).toBe(5 * SEARCH_COST_PER_CHARACTER_AND_AREA);
    expect(costVariables(parse(`query ($q: String!, $areas: [String!]) { ${fields} }`)).sort()).toEqual(['areas', 'q']);
  });

  it('refuses thirty aliased searches of 200 letters each before any runs', () => {
    const q = 'x'.repeat(200);
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `s${i}: search(q: "${q}", limit: 5) { total }`).join(' ')} }`;
    expect(outcome(check({ query }))).toEqual([expect.stringMatching(/^QUERY_TOO_COMPLEX: Query cost is [\d,]+; the limit is 25,000/)]);
  });

  it('counts the limit given in a variable', () => {
    const query = `query Page($n: Int) { a: attractions(limit: $n) { data { ${attractionFields} } } b: attractions(limit: $n) { data { ${attractionFields} } } c: attractions(limit: $n) { data { ${attractionFields} } } }`;
    expect(outcome(check({ query, variables: { n: 100 } }))).toEqual({ cost: 10_806 });
    expect(outcome(check({ query, variables: { n: 500 } }))).toEqual([
      'QUERY_TOO_COMPLEX: Query cost is 54,006; the limit is 25,000 (each field counts 1, once per list item)',
    ]);
  });

  it('reads the variables only where they are a limit: the same limits give the same cost, whatever the others', () => {
    const query = `query Near($lat: Float, $lng: Float, $n: Int, $m: Int = 3, $type: String) {
      tours(nearLat: $lat, nearLng: $lng, routeType: $type, limit: $n) { data { ...T } }
      more: tours(limit: 4) { data { ...T } }
    }
    fragment T on Tour { id name }
    query Other($k: Int) { attractions(limit: $k) { total } activities(offset: $m) { total } }`;
    const document = parse(query);
    expect(costVariables(document).sort()).toEqual(['k', 'n']);
    const operation = getOperationAST(document, 'Near')!;
    const costOf = (variables: Record<string, unknown>) => measureCost(schema, document, operation, variables);
    const base = costOf({ lat: 46.6, lng: 7.8, n: 5, type: 'hike' });
    expect(costOf({ lat: 45.9, lng: 9.1, n: 5 })).toBe(base);
    expect(costOf({ n: 5, type: 'bike' })).toBe(base);
    expect(costOf({ lat: 46.6, lng: 7.8, n: 6, type: 'hike' })).toBeGreaterThan(base);
  });

  it('counts a list at its default limit when none is given', () => {
    // activities: default 20 items of 2 fields, plus `data` and `activities`.
    expect(outcome(check({ query: '{ activities { data { id title } } }' }))).toEqual({ cost: 42 });
  });

  it('counts fragments by their definitions, whatever their names: the __schema fragment bypass does not work', () => {
    const query = `
      query Bypass { ...__schema b: attractions(limit: 500) { ...__type } c: attractions(limit: 500) { ... on AttractionsResult { data { ${attractionFields} } } } }
      fragment __schema on Query { a: attractions(limit: 500) { data { ${attractionFields} } } }
      fragment __type on AttractionsResult { data { ${attractionFields} } }
    `;
    expect(outcome(check({ query }))).toEqual([
      'QUERY_TOO_COMPLEX: Query cost is 54,006; the limit is 25,000 (each field counts 1, once per list item)',
    ]);
  });

  it('measures a document whose fragments double at every level quickly, and refuses it', () => {
    const levels = 40;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const query = `query Q { ...F0 }\n${fragments}\nfragment F${levels} on Query { types { id } }`;
    const startedAt = performance.now();
    const result = outcome(check({ query }));
    expect(performance.now() - startedAt).toBeLessThan(200);
    expect(result).toEqual(['QUERY_TOO_COMPLEX: Query cost is more than 1,000,000,000,000; the limit is 25,000 (each field counts 1, once per list item)']);
  });

  it('clamps a limit above the largest any list accepts', () => {
    const document = parse('{ attractions(limit: 100000) { data { id } } }');
    expect(measureCost(schema, document, getOperationAST(document)!, {})).toBe(1002);
  });

  it("refuses an argument its field's resolver refuses before measuring anything, naming the argument", () => {
    const refused = check({ query: '{ types { id } attractions(limit: 100000) { data { id } } }' });
    expect(refused.errors?.map((error) => [error.message, error.extensions.code, error.locations])).toEqual([
      ['limit: 100000 is out of range; allowed: 0 to 500', 'BAD_USER_INPUT', [{ line: 1, column: 16 }]],
    ]);
  });

  it('measures nested lists inside records at the default list size', () => {
    const document = parse('{ snowdataStation(id: 1) { images { url } hiking { routes { title status } } } }');
    const operation = getOperationAST(document)!;
    // 1 station + images (1 + 10 × 1) + hiking (1 + routes (1 + 10 × 2))
    expect(measureCost(schema, document, operation, {})).toBe(1 + 11 + 22);
  });
});

describe('the estimated size of an answer', () => {
  /** The estimate of a query's answer, and the bytes of its answer from the fixture snapshot. */
  async function estimateAndAnswer(query: string): Promise<[number, number]> {
    const document = parse(query);
    const estimate = estimateAnswerBytes(schema, document, getOperationAST(document)!, {}, sizes);
    const result = await execute({ schema, document, contextValue: { store, today: TODAY, terms: DEFAULT_SOURCE_TERMS } });
    expect(result.errors).toBeUndefined();
    return [estimate, Buffer.byteLength(JSON.stringify(result))];
  }

  it("counts a station's raw JSON by its measured size: a whole list is estimated within a tenth of its bytes", async () => {
    const [estimate, bytes] = await estimateAndAnswer('{ snowdataStations(limit: 500) { data { id raw } } }');
    expect(bytes).toBeGreaterThan(100 * store.locales['de-CH'].stations.records.length);
    expect(Math.abs(estimate - bytes) / bytes).toBeLessThan(0.1);
  });

  it('counts a list by its limit, up to the records there are, and nested lists by their average items', async () => {
    for (const query of [
      '{ tours(limit: 30) { total data { id name abstract } } }',
      '{ attractions(limit: 500) { data { id name images seasons } } }',
      '{ snowdataStations(limit: 500) { data { name images { url type } webcams { url } } } }',
    ]) {
      const [estimate, bytes] = await estimateAndAnswer(query);
      expect(estimate / bytes, query).toBeGreaterThan(0.7);
      expect(estimate / bytes, query).toBeLessThan(1.5);
    }
  });

  it("counts the fields of a search hit's item as its record type's: a page of stations' raw JSON as the stations list's", () => {
    const estimate = (query: string) => {
      const document = parse(query);
      return estimateAnswerBytes(schema, document, getOperationAST(document)!, {}, sizes);
    };
    const hits = estimate('{ search(q: "a", limit: 50) { data { item { ... on SnowdataStation { raw } } } } }');
    const stations = estimate('{ snowdataStations(limit: 50) { data { raw } } }');
    expect(Math.abs(hits - stations) / stations).toBeLessThan(0.05);
    expect(hits).toBeGreaterThan(10 * estimate('{ search(q: "a", limit: 50) { data { id } } }'));
  });

  it('refuses an answer estimated above MAX_RESPONSE_BYTES after the cost, naming both sizes', () => {
    const small = withSizes(createQueryChecker(schema, { ...defaults, maxResponseBytes: 200_000 }, { introspection: true }));
    expect(outcome(small({ query: '{ snowdataStations(limit: 10) { data { raw } } }' }))).toEqual({ cost: expect.any(Number) });
    expect(outcome(small({ query: '{ snowdataStations(limit: 100) { data { raw } } }' }))).toEqual([
      expect.stringMatching(/^RESPONSE_TOO_LARGE: The answer would be about [\d,]+ bytes, more than the limit of 200,000 bytes \(MAX_RESPONSE_BYTES\)/),
    ]);
  });
});

describe('shape', () => {
  /** A checker of the fixture snapshot's requests with some limits changed. */
  const checkWith = (limits: Partial<typeof defaults>) => withSizes(createQueryChecker(schema, { ...defaults, ...limits }, { introspection: true }));

  it('measures depth from 1 at the root fields, and aliases with fragments expanded', () => {
    const query = `
      query Q { a: types { ...T } b: types { ...T } snowdataStation(id: 1) { hiking { routes { title } } } }
      fragment T on ActivityType { x: id y: title }
    `;
    expect(outcome(checkWith({ maxDepth: 4, maxAliases: 6 })({ query }))).toEqual({ cost: expect.any(Number) });
    expect(outcome(checkWith({ maxDepth: 3 })({ query }))).toEqual(['QUERY_TOO_COMPLEX: Query is 4 levels deep; the limit is 3']);
    expect(outcome(checkWith({ maxAliases: 5 })({ query }))).toEqual(['QUERY_TOO_COMPLEX: Query has 6 aliases (fragments expanded); the limit is 5']);
  });

  it('refuses a query deeper than the limit, naming the limit and the depth, at its operation', () => {
    const result = checkWith({ maxDepth: 3 })({ query: '{ snowdataStation(id: 1) { hiking { routes { title } } } }' });
    expect(outcome(result)).toEqual(['QUERY_TOO_COMPLEX: Query is 4 levels deep; the limit is 3']);
    expect(result.errors?.[0]?.locations).toEqual([{ line: 1, column: 1 }]);
  });

  it('sees depth through fragment spreads and inline fragments, which are no level of their own', () => {
    const query = `{ ...A }
      fragment A on Query { snowdataStation(id: 1) { ...B } }
      fragment B on SnowdataStation { ... on SnowdataStation { hiking { ...C } } }
      fragment C on SnowdataHiking { routes { ...D } }
      fragment D on SnowdataMobilityRoute { title }`;
    expect(outcome(checkWith({ maxDepth: 4 })({ query }))).toEqual({ cost: expect.any(Number) });
    expect(outcome(checkWith({ maxDepth: 3 })({ query }))).toEqual(['QUERY_TOO_COMPLEX: Query is 4 levels deep; the limit is 3']);
  });

  it('refuses a depth attack built from a chain of fragments before validating it', () => {
    const levels = 100;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { types { ...F${i + 1} } }`).join('\n');
    const query = `{ ...F0 }\n${fragments}\nfragment F${levels} on ActivityType { id }`;
    expect(outcome(check({ query }))).toEqual(['QUERY_TOO_COMPLEX: Query is 101 levels deep; the limit is 10']);
  });

  it('counts a fragment spread many times once per spread, and leaves a fragment within itself to validation', () => {
    const doubling = (levels: number) =>
      `query Q { ...F0 }\n${Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n')}\nfragment F${levels} on Query { a: __typename }`;
    expect(outcome(check({ query: doubling(40) }))).toEqual([`QUERY_TOO_COMPLEX: Query has ${2 ** 40} aliases (fragments expanded); the limit is 30`]);
    // 2^80 is written 1.2089258196146292e+24.
    expect(outcome(check({ query: doubling(80) }))).toEqual(['QUERY_TOO_COMPLEX: Query has more than 30 aliases (fragments expanded); the limit is 30']);
    expect(outcome(check({ query: '{ ...A } fragment A on Query { types { id } ...A }' }))).toEqual([
      'GRAPHQL_VALIDATION_FAILED: Cannot spread fragment "A" within itself.',
    ]);
  });

  it('refuses more aliases than the limit, counted through fragments, and allows as many as the limit', () => {
    const aliases = (typesAliases: number) => `{ ...A ...B }
      fragment A on Query { ${Array.from({ length: typesAliases }, (_, i) => `a${i}: types { id }`).join(' ')} }
      fragment B on Query { ${Array.from({ length: 15 }, (_, i) => `b${i}: __typename`).join(' ')} }`;
    expect(outcome(check({ query: aliases(16) }))).toEqual(['QUERY_TOO_COMPLEX: Query has 31 aliases (fragments expanded); the limit is 30']);
    expect(outcome(check({ query: aliases(15) }))).toEqual({ cost: expect.any(Number) });
  });

  it('refuses more directives than the limit, and allows as many as the limit', () => {
    const directives = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `t${i}: __typename @include(if: true)`).join(' ')} }`;
    const generous = checkWith({ maxAliases: 100 });
    expect(outcome(generous({ query: directives(21) }))).toEqual(['QUERY_TOO_COMPLEX: Query has 21 directives; the limit is 20']);
    expect(outcome(generous({ query: directives(20) }))).toEqual({ cost: expect.any(Number) });
  });

  it('counts the directives of a fragment once per spread', () => {
    const spreadTwice = `{ ...D ...D } fragment D on Query { ${Array.from({ length: 11 }, (_, i) => `t${i}: __typename @skip(if: false)`).join(' ')} }`;
    expect(outcome(checkWith({ maxAliases: 100 })({ query: spreadTwice }))).toEqual(['QUERY_TOO_COMPLEX: Query has 22 directives; the limit is 20']);
  });

  it('refuses a document of more tokens than the limit while parsing it, and allows as many as the limit', () => {
    const query = `{ types { ${'id '.repeat(2000)} } }`;
    expect(outcome(check({ query }))).toEqual(['QUERY_TOO_COMPLEX: Query has more than 2000 tokens, the limit']);
    // `{ types {`, the ids and `} }`: 5 tokens and one per id.
    const ids = (count: number) => `{ types { ${'id '.repeat(count)}} }`;
    expect(outcome(checkWith({ maxTokens: 20 })({ query: ids(15) }))).toEqual({ cost: expect.any(Number) });
    expect(outcome(checkWith({ maxTokens: 20 })({ query: ids(16) }))).toEqual(['QUERY_TOO_COMPLEX: Query has more than 20 tokens, the limit']);
  });
});

describe('introspection', () => {
  it('refuses recursion through fields and types beyond three levels', () => {
    const query = '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
    expect(outcome(check({ query }))).toEqual(['QUERY_TOO_COMPLEX: Maximum introspection depth exceeded']);
  });

  it('refuses aliases on and inside introspection, which would multiply its answer', () => {
    expect(outcome(check({ query: '{ a: __schema { types { name } } b: __schema { types { name } } }' }))).toEqual([
      'QUERY_TOO_COMPLEX: Aliases are not allowed in introspection (__schema, __type)',
      'QUERY_TOO_COMPLEX: Aliases are not allowed in introspection (__schema, __type)',
    ]);
    expect(outcome(check({ query: '{ __schema { t1: types { name } t2: types { fields { name } } } }' }))).toHaveLength(2);
    expect(outcome(check({ query: '{ __type(name: "Tour") { name } }' }))).toEqual({ cost: 1 });
  });

  it('hides a fragment named __schema from nothing: introspection is recognised by field, not by name', () => {
    const query = '{ ...__schema } fragment __schema on Query { __schema { types { n: name } } }';
    expect(outcome(check({ query }))).toEqual(['QUERY_TOO_COMPLEX: Aliases are not allowed in introspection (__schema, __type)']);
  });

  it('is refused when turned off, while __typename still works', () => {
    const closed = withSizes(createQueryChecker(schema, defaults, { introspection: false }));
    expect(outcome(closed({ query: '{ __schema { queryType { name } } }' }))).toEqual([
      'GRAPHQL_VALIDATION_FAILED: GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      'GRAPHQL_VALIDATION_FAILED: GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
    ]);
    expect(outcome(closed({ query: '{ __typename types { id } }' }))).toEqual({ cost: 102 });
  });
});

describe('other refusals', () => {
  it('codes a syntax error GRAPHQL_PARSE_FAILED with its location', () => {
    const result = check({ query: '{ types { id }' });
    expect(result.errors?.[0]?.toJSON()).toEqual({
      message: 'Syntax Error: Expected Name, found <EOF>.',
      locations: [{ line: 1, column: 15 }],
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  });

  it('codes an unknown field GRAPHQL_VALIDATION_FAILED', () => {
    expect(outcome(check({ query: '{ nothing }' }))).toEqual(['GRAPHQL_VALIDATION_FAILED: Cannot query field "nothing" on type "Query".']);
  });

  it('codes a bad variable BAD_USER_INPUT', () => {
    expect(outcome(check({ query: 'query Q($n: Int) { tours(limit: $n) { total } }', variables: { n: 'many' } }))).toEqual([
      'BAD_USER_INPUT: Variable "$n" got invalid value "many"; Int cannot represent non-integer value: "many"',
    ]);
  });

  it('codes an unknown operation name OPERATION_RESOLUTION_FAILURE', () => {
    expect(outcome(check({ query: 'query A { types { id } }', operationName: 'B' }))).toEqual([
      'OPERATION_RESOLUTION_FAILURE: Unknown operation named "B"',
    ]);
  });
});
