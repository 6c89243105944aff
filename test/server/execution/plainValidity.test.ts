import { getIntrospectionQuery, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resolvers } from '../../../server/resolvers/index.ts';
import { NoIntrospectionAliasesRule } from '../../../server/execution/limits.ts';
import { plainShape } from '../../../server/execution/plainValidity.ts';
import { createShapeCheck } from '../../../server/execution/shapeLimits.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';

const schema = createSchema(readSdl(), resolvers);
// The checker's rules with introspection turned off: the stricter of its two sets.
const rules = [...specifiedRules, NoIntrospectionAliasesRule, NoSchemaIntrospectionCustomRule];

const errorsOf = (source: string) => validate(schema, parse(source), rules);
const proven = (source: string) => plainShape(schema, parse(source)) !== null;

// Plain documents graphql-js finds valid: one query, fields, scalar arguments, variables.
const PLAIN_VALID = [
  '{ tours { total } }',
  '{ tours(limit: 2) { total data { id name distance_km } } }',
  'query ToursPicked($locale: String) { tours(locale: $locale, limit: 10) { total data { id name abstract ascent } } }',
  'query Q($l: String!, $n: Int!) { tours(locale: $l, limit: $n) { total } a: tours(limit: 1) { data { id } } }',
  'query { tours(nearLat: 46.6, nearLng: 7, radiusKm: 30, q: "see", routeType: null) { __typename total } }',
  'query Q($id: String!) { tour(id: $id) { id name t: __typename } }',
  '{ t1: tours { total } t2: tours { total } }',
  '{ a: tours { b: total c: data { d: id e: name } } f: tour(id: "x") { g: id } }',
];

// Plain-looking documents that break a rule, each a different one.
const PLAIN_INVALID = [
  '{ tours { data { nope } } }',
  '{ nope }',
  '{ tours }',
  '{ tours { total { x } } }',
  '{ tours(limit: "two") { total } }',
  '{ tours(limit: 1.5) { total } }',
  '{ tours(limit: 99999999999) { total } }',
  '{ tours(nope: 1) { total } }',
  '{ tours(limit: 1, limit: 2) { total } }',
  '{ tour { id } }',
  '{ tour(id: null) { id } }',
  '{ tours { data { id: name id } } }',
  '{ tours { total } tours(limit: 1) { total } }',
  'query Q($unused: Int) { tours { total } }',
  'query Q { tours(limit: $undefined) { total } }',
  'query Q($l: String) { tours(limit: $l) { total } }',
  'query Q($i: Int, $i: Int) { tours(limit: $i) { total } }',
  'query Q($x: NoSuchType) { tours(limit: $x) { total } }',
  'query Q($x: ToursResult) { tours { total } }',
  'query Q($id: String) { tour(id: $id) { id } }',
  '{ tours { __typename(x: 1) } }',
  '{ tours { __typename { x } } }',
];

// Valid documents that are not plain: the proof leaves them to graphql-js.
const NOT_PLAIN = [
  getIntrospectionQuery(),
  '{ __schema { queryType { name } } }',
  'fragment F on Tour { id } { tours { data { ...F } } }',
  '{ tours { data { ... on Tour { id } } } }',
  'query Q($b: Boolean!) { tours { total @include(if: $b) } }',
  'query Q($n: Int = 3) { tours(limit: $n) { total } }',
  'query Q($id: String = "x") { tour(id: $id) { id } }',
  '{ tours { total } } query Other { tours { total } }',
  '{ tours { total total } }',
];

describe('plainShape', () => {
  it.each(PLAIN_VALID)('proves a plain valid document valid: %s', (source) => {
    expect(errorsOf(source)).toEqual([]);
    expect(proven(source)).toBe(true);
  });

  it.each(PLAIN_VALID)('counts depth and aliases as graphql-armor does, at and past the limits: %s', (source) => {
    const document = parse(source);
    const shape = plainShape(schema, document)!;
    const atLimits = { maxDepth: shape.depth, maxAliases: shape.aliases, maxDirectives: 0 };
    expect(createShapeCheck(schema, atLimits)(document)).toBeUndefined();
    expect(createShapeCheck(schema, { ...atLimits, maxDepth: shape.depth - 1 })(document)?.message).toMatch(/levels deep/);
    if (shape.aliases > 0) expect(createShapeCheck(schema, { ...atLimits, maxAliases: shape.aliases - 1 })(document)?.message).toMatch(/aliases/);
  });

  it.each(PLAIN_INVALID)('does not prove a document that breaks a rule: %s', (source) => {
    expect(errorsOf(source)).not.toEqual([]);
    expect(proven(source)).toBe(false);
  });

  it.each(NOT_PLAIN)('leaves a document that is not plain to graphql-js: %s', (source) => {
    expect(proven(source)).toBe(false);
  });

  it('proves nothing graphql-js refuses, over every selection of tour fields with each kind of argument', () => {
    const fields = ['id', 'name', 'abstract', 'ascent', 'nope', 'data', '__typename', 'total'];
    const argumentsTried = ['', '(limit: 3)', '(limit: $n)', '(locale: $n)', '(limit: "3")', '(q: null)', '(radiusKm: 2.5)', '(limit: 1, limit: 1)'];
    let provenCount = 0;
    for (let mask = 1; mask < 1 << fields.length; mask += 3) {
      const picked = fields.filter((_, i) => mask & (1 << i)).join(' ');
      for (const args of argumentsTried) {
        const source = `query Q${args.includes('$n') ? '($n: Int)' : ''} { tours${args} { total data { ${picked} } } }`;
        if (!proven(source)) continue;
        provenCount++;
        expect(errorsOf(source), source).toEqual([]);
      }
    }
    expect(provenCount).toBeGreaterThan(50);
  });
});
