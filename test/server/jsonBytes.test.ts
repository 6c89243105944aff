import { execute, parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { beforeAll, describe, expect, it } from 'vitest';
import { startDeadline, withDeadline } from '../../server/deadline.ts';
import { jsonBytes } from '../../server/jsonBytes.ts';
import { loadSnapshot } from '../../server/load.ts';
import { LOCALES } from '../../server/locales.ts';
import { resolvers } from '../../server/resolvers/index.ts';
import { sampleQueries } from '../../server/sampleQueries.ts';
import { createSchema, readSdl } from '../../server/schema.ts';
import { createStore, type Store } from '../../server/store.ts';
import { DATA_DIR } from '../helpers/api.ts';

/** What jsonBytes must equal, byte for byte. */
function expected(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function expectSameBytes(value: unknown): void {
  const actual = jsonBytes(value);
  const wanted = expected(value);
  // Compared as text first, for a readable failure; then as bytes, which is what counts.
  expect(actual.toString('latin1')).toBe(wanted.toString('latin1'));
  expect(actual.equals(wanted)).toBe(true);
}

/** A seeded generator of numbers in [0, 1) (mulberry32), so a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code units of every kind the encoder tells apart. */
const UNITS = [
  ...Array.from({ length: 0x20 }, (_, unit) => unit), // control characters: \b \t \n \f \r and \u00XX
  0x20, 0x21, 0x22, 0x2f, 0x41, 0x5c, 0x7e, 0x7f, // space, quote, slash, backslash, DEL
  0x80, 0xe9, 0xff, 0x100, 0x7ff, // two bytes
  0x800, 0x2013, 0x2028, 0x2029, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xffff, // three bytes
  0xd800, 0xdbff, 0xdc00, 0xdfff, // surrogates: paired or lone
];

function randomString(next: () => number): string {
  const length = Math.floor(next() * 12);
  let text = '';
  for (let i = 0; i < length; i++) {
    const choice = next();
    if (choice < 0.1) text += '😀'; // a well-formed pair
    else if (choice < 0.5) text += String.fromCharCode(0x61 + Math.floor(next() * 26));
    else text += String.fromCharCode(UNITS[Math.floor(next() * UNITS.length)]!);
  }
  return text;
}

const NUMBERS = [
  0, -0, 1, -1, 7, 9, 10, 99, 100, 12345, -987654, 2147483647, -2147483647, -2147483648, 2147483648, -2147483649,
  4294967296, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1e21, 1e-7, 123e-20, 0.1, -0.5, 46.47108, 7.48969,
  Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, NaN, Infinity, -Infinity,
];

function randomNumber(next: () => number): number {
  const choice = next();
  if (choice < 0.4) return NUMBERS[Math.floor(next() * NUMBERS.length)]!;
  if (choice < 0.7) return Math.floor((next() - 0.5) * 2 ** (1 + Math.floor(next() * 40)));
  return (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
}

/** A value of the shapes GraphQL results have, plus what JSON.stringify leaves out. */
function randomValue(next: () => number, depth: number): unknown {
  const choice = next();
  if (depth > 3 || choice < 0.35) {
    const leaf = next();
    if (leaf < 0.4) return randomString(next);
    if (leaf < 0.75) return randomNumber(next);
    if (leaf < 0.85) return next() < 0.5;
    if (leaf < 0.95) return null;
    return [undefined, () => 1, Symbol('s')][Math.floor(next() * 3)];
  }
  if (choice < 0.6) return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = next() < 0.2 ? Object.create(null) : {};
  const size = Math.floor(next() * 6);
  for (let i = 0; i < size; i++) {
    // Integer-like keys come first in JSON.stringify's order, whatever the order they were set in.
    const key = next() < 0.2 ? String(Math.floor(next() * 20)) : randomString(next);
    object[key] = randomValue(next, depth + 1);
  }
  return object;
}

describe('jsonBytes', () => {
  it('writes what JSON.stringify writes for every kind of code unit, alone and in context', () => {
    for (const unit of UNITS) {
      const char = String.fromCharCode(unit);
      for (const text of [char, `a${char}b`, `${char}${char}`, `\ud83d${char}`, `${char}\ude00`]) expectSameBytes({ [text]: text });
    }
    expectSameBytes('');
    expectSameBytes('Weindegustation im Rebberg bei Montreux – Halbtag');
  });

  it('writes numbers as JSON.stringify does, non-finite ones as null', () => {
    for (const number of NUMBERS) expectSameBytes([number, { number }]);
  });

  it('leaves out undefined, functions and symbols in objects and writes them as null in arrays', () => {
    expectSameBytes({ a: undefined, b: () => 1, c: Symbol('c'), d: 1 });
    expectSameBytes([undefined, () => 1, Symbol('c'), 1]);
    // A hole reads as undefined.
    // eslint-disable-next-line no-sparse-arrays
    expectSameBytes([1, , 3]);
    expectSameBytes({ a: undefined });
  });

  it('writes the generated values JSON.stringify writes (2,000 seeded values)', () => {
    const next = seededRandom(20261122);
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(next, 0);
      if (JSON.stringify(value) === undefined) expect(() => jsonBytes(value)).toThrow(TypeError);
      else expectSameBytes(value);
    }
  });

  it("leaves what it does not write itself to JSON.stringify: toJSON, class instances, boxed values", () => {
    class Point {
      constructor(
        readonly lng: number,
        readonly lat: number,
      ) {}
    }
    expectSameBytes({ when: new Date(Date.UTC(2026, 10, 22)), nested: [{ toJSON: (key: string) => `key ${key}` }] });
    expectSameBytes({ point: new Point(7.5, 46.9) });
    expectSameBytes([new String('boxed'), new Number(4), new Boolean(false)]);
    expectSameBytes(new Map([['a', 1]]));
    // A field called toJSON whose value is not a function is an ordinary field.
    expectSameBytes({ toJSON: 'not a method' });
  });

  it('throws what JSON.stringify throws', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(() => jsonBytes(cyclic)).toThrow(TypeError);
    expect(() => jsonBytes({ big: 1n })).toThrow(TypeError);
  });

  it('writes answers larger than its scratch space, and small ones after them', () => {
    const large = { data: Array.from({ length: 5000 }, (_, i) => ({ id: String(i), title: `Titel – ${i} "quoted"`, score: i / 7 })) };
    expectSameBytes(large);
    expectSameBytes({ data: { small: true } });
    expectSameBytes(large);
  });

  describe('on the answers to the sample queries', () => {
    const schema = withDeadline(createSchema(readSdl(), resolvers));
    let store: Store;
    beforeAll(async () => {
      store = createStore(await loadSnapshot(DATA_DIR, schema));
    });

    it('writes the bytes JSON.stringify writes for every sample query (each locale as $locale where it takes one), from graphql-js and graphql-jit', () => {
      let compared = 0;
      for (const sample of sampleQueries(store)) {
        const document = parse(sample.query);
        const compiled = compileQuery(schema, document, undefined);
        if (!isCompiledQuery(compiled)) throw new Error(`${sample.name} did not compile`);
        for (const locale of LOCALES) {
          const variables = { ...sample.variables, locale };
          const results = [
            execute({ schema, document, variableValues: variables, contextValue: { store }, rootValue: startDeadline(5000) }) as ExecutionResult,
            compiled.query(startDeadline(5000), { store }, variables) as ExecutionResult,
          ];
          for (const result of results) {
            expect(result.errors, `${sample.name} ${locale}`).toBeUndefined();
            expectSameBytes(result);
            compared++;
          }
        }
      }
      expect(compared).toBe(sampleQueries(store).length * LOCALES.length * 2);
    });
  });
});
