import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnswerTooLargeError, JsonWriter } from '../../../../server/execution/json/jsonWriter.ts';
import { DEFAULT_SAMPLES_DIR, listSampleJson, readSampleJson } from '../../../../sync/fixtures/samplesDir.ts';

/** One writer for every test, as the engine keeps one for every answer. */
const writer = new JsonWriter();
const jsonBytes = (value: object, limit?: number) => writer.bytesOf(value, limit);

/** What bytesOf promises: the bytes of JSON.stringify's text. */
function expectStringifyBytes(value: object): void {
  const expected = Buffer.from(JSON.stringify(value));
  const bytes = jsonBytes(value);
  if (bytes.equals(expected)) return;
  // Where they differ, rather than two whole texts of up to megabytes.
  let at = 0;
  while (bytes[at] === expected[at]) at++;
  const around = (of: Buffer) => of.subarray(Math.max(0, at - 40), at + 40).toString('utf8');
  expect({ at, length: bytes.length, around: around(bytes) }).toEqual({ at, length: expected.length, around: around(expected) });
}

/** A deterministic sequence of numbers in [0, 1) (mulberry32). */
function randomNumbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('JsonWriter.bytesOf', () => {
  const strings: [string, string][] = [
    ['empty', ''],
    ['ASCII', 'act-1'],
    ['Latin-1', 'Zürich, Genève, Château'],
    ['two-byte (a dash above U+00FF)', 'Paragliding – Interlaken, CHF 120.–'],
    ['astral (surrogate pairs)', 'Snow ❄️ and mountains 🏔️ 𝄞'],
    ['a lone high surrogate', 'before \ud83c after'],
    ['a lone high surrogate at the end', 'end \ud83c'],
    ['a lone low surrogate', '\udfd4 start'],
    ['two high surrogates and a low one', '\ud83c\ud83c\udfd4'],
    ['quotes and backslashes', 'say "hi" \\ C:\\path\\'],
    ['every control character, NUL and DEL', Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f'],
    ['line and paragraph separators', 'a\u2028b\u2029c'],
  ];
  it.each(strings)('writes a string as JSON.stringify does: %s', (_name, text) => {
    expectStringifyBytes({ [text]: text, list: [text] });
  });

  it('writes numbers, booleans and null as JSON.stringify does, non-finite numbers as null', () => {
    expectStringifyBytes([0, -0, 1, -1, 1.5, 0.1 + 0.2, 1e21, 1e-7, 123456789012345680000, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity]);
    expectStringifyBytes({ yes: true, no: false, nothing: null });
  });

  it('writes numbers of up to three decimals, and those around them, as JSON.stringify does', () => {
    // Whole numbers of thousandths are written digit by digit below 2^31 thousandths.
    expectStringifyBytes([0.001, -0.001, 0.01, 0.1, 0.5, 1.005, 7.07, 9.999, 10, 100.1, 12.345, 123456.789, 2147483.647, -2147483.647, 2147483.648, 2147483.649, 5e-4, 0.0015, 2 ** 31, -(2 ** 31)]);
    const random = randomNumbers(5);
    const numbers: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      numbers.push(Math.round((random() - 0.5) * 4.4e9) / 1000, Math.round(random() * 3e4) / 1000, Math.round(random() * 1e6) / 100, (random() - 0.5) * 10 ** Math.floor(random() * 12));
    }
    expectStringifyBytes(numbers);
  });

  it('leaves out undefined values of objects and writes those of arrays and holes as null', () => {
    // eslint-disable-next-line no-sparse-arrays
    const value = { a: undefined, b: [undefined, , 1], c: 2 };
    expectStringifyBytes(value);
    expect(jsonBytes(value).toString()).toBe('{"b":[null,null,1],"c":2}');
  });

  it('writes keys in the order of JSON.stringify, integer-like keys first', () => {
    expectStringifyBytes({ b: 1, 2: 'two', a: 3, 1: 'one', '': 'empty', 'x"y': 'quoted' });
  });

  it('writes objects without a prototype, as graphql-js builds its results', () => {
    const data = Object.assign(Object.create(null) as object, { id: 'a', nested: Object.assign(Object.create(null) as object, { n: 1 }) });
    expectStringifyBytes({ data });
  });

  it('writes empty and deeply nested objects and arrays', () => {
    expectStringifyBytes({ a: {}, b: [], c: [[[]]], d: [{}] });
    let deep: object = { leaf: 'ü' };
    for (let i = 0; i < 150; i++) deep = i % 2 ? { next: deep } : [deep];
    expectStringifyBytes(deep);
  });

  it('leaves to JSON.stringify what has toJSON, a class or a function in it', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
      get sum(): number {
        return this.x + this.y;
      }
    }
    expectStringifyBytes({ when: new Date(Date.UTC(2026, 10, 25)), custom: { toJSON: () => 'custom' }, point: new Point(1, 2) });
    expectStringifyBytes({ map: new Map([[1, 2]]), fn: () => 1, sym: Symbol('s'), list: [() => 1, Symbol('t')] });
    expectStringifyBytes({ boxed: [new String('s'), new Number(1), new Boolean(false)] });
  });

  it('throws as JSON.stringify throws on a cycle or a bigint', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { again: cycle };
    expect(() => jsonBytes(cycle)).toThrow(TypeError);
    expect(() => jsonBytes({ big: 1n })).toThrow(TypeError);
  });

  it('writes answers larger than its scratch buffer, past the size it keeps, and small ones after them', () => {
    // Control characters take six bytes each: 40,000 of them outgrow 64 KiB several times.
    expectStringifyBytes({ escapes: '\u0001'.repeat(40_000) });
    expectStringifyBytes({ escapes: '\u0001'.repeat(40_000), more: ['€'.repeat(400_000)] });
    expectStringifyBytes({ small: 'ü' });
  });

  it('refuses bytes longer than the limit it is given, stopping early in a large answer, and writes the next answer whole', () => {
    const value = { items: Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `item ${i}` })) };
    const exact = Buffer.byteLength(JSON.stringify(value));
    expect(jsonBytes(value, exact).length).toBe(exact);
    expect(() => jsonBytes(value, exact - 1)).toThrow(AnswerTooLargeError);
    expect(() => jsonBytes(value, 1000)).toThrow(new AnswerTooLargeError(1000));
    // One string far past the limit is refused once written.
    expect(() => jsonBytes({ text: 'x'.repeat(200_000) }, 1000)).toThrow(AnswerTooLargeError);
    expectStringifyBytes({ small: 'ü' });
  });

  it('returns bytes of their own, which a later call does not overwrite', () => {
    const first = jsonBytes({ text: 'first – answer' });
    const second = jsonBytes({ text: 'SECOND – ANSWER, longer than the first' });
    expect(first.toString()).toBe('{"text":"first – answer"}');
    expect(second.toString()).toBe('{"text":"SECOND – ANSWER, longer than the first"}');
  });

  it('writes strings of random UTF-16 code units, surrogates and escapes among them, as JSON.stringify does', () => {
    const random = randomNumbers(5);
    // Weighted towards the ranges whose encoding differs: controls, ASCII, two and three bytes, surrogates.
    const ranges = [
      [0, 0x20],
      [0x20, 0x80],
      [0x80, 0x800],
      [0x800, 0xd800],
      [0xd800, 0xdc00],
      [0xdc00, 0xe000],
      [0xe000, 0x10000],
    ];
    const strings = Array.from({ length: 2_000 }, () =>
      String.fromCharCode(
        ...Array.from({ length: Math.floor(random() * 12) }, () => {
          const [low, high] = ranges[Math.floor(random() * ranges.length)]!;
          return low! + Math.floor(random() * (high! - low!));
        }),
      ),
    );
    expectStringifyBytes({ strings, keyed: Object.fromEntries(strings.map((text, i) => [text, i])) });
  });

  it('writes real MySwitzerland records as JSON.stringify does', () => {
    const dir = join(DEFAULT_SAMPLES_DIR, 'myswitzerland', 'attractions-by-city');
    const files = listSampleJson(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expectStringifyBytes(readSampleJson(file) as object);
  });
});
