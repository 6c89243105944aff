import { describe, expect, it } from 'vitest';
import { canonicalJson, JsonTooDeepError, MAX_JSON_DEPTH } from '../../../../server/http/graphql/canonicalJson.ts';

describe('canonicalJson', () => {
  it('writes canonical JSON as JSON.stringify would, keys sorted', () => {
    const value = { z: 'ü"\n', a: [true, null, 1.5, { y: [], x: {} }] };
    expect(canonicalJson(value)).toBe('{"a":[true,null,1.5,{"x":{},"y":[]}],"z":"ü\\"\\n"}');
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('gives equal values one text, whatever the order of their keys', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 3, e: 4 }] } })).toBe(canonicalJson({ a: { c: [{ e: 4, f: 3 }], d: 2 }, b: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });

  it('gives numbers JSON cannot write texts of their own, apart from null and 0', () => {
    const texts = [null, 0, -0, Infinity, -Infinity, NaN].map((value) => canonicalJson({ a: [value] }));
    expect(texts).toEqual(['{"a":[null]}', '{"a":[0]}', '{"a":[-0]}', '{"a":[Infinity]}', '{"a":[-Infinity]}', '{"a":[NaN]}']);
  });

  it(`writes values nested ${MAX_JSON_DEPTH} levels deep and refuses deeper ones with JsonTooDeepError`, () => {
    const nested = (depth: number) => JSON.parse(`${'[{"a":'.repeat(depth / 2)}1${'}]'.repeat(depth / 2)}`);
    expect(canonicalJson(nested(MAX_JSON_DEPTH))).toBe(JSON.stringify(nested(MAX_JSON_DEPTH)));
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH + 2))).toThrow(JsonTooDeepError);
    expect(() => canonicalJson(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toThrow(JsonTooDeepError);
  });
});
