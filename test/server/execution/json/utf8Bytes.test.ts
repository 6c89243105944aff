import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../../../server/execution/json/utf8Bytes.ts';

describe('utf8Bytes', () => {
  const texts: [string, string][] = [
    ['empty', ''],
    ['ASCII', '{"data":{"id":"act-1"}}'],
    ['Latin-1 (one byte per character in V8)', 'Zürich, Genève, Château'],
    ['two-byte (a dash above U+00FF)', '{"title":"Paragliding – Interlaken","price":"CHF 120.–"}'],
    ['astral (surrogate pairs)', 'Snow ❄️ and mountains 🏔️ 𝄞'],
    ['a lone high surrogate', 'before \ud83c after'],
    ['a lone low surrogate at the end', 'end \udfd4'],
    ['control characters and NUL', 'a\u0000b\u001fc\u007fd'],
  ];
  it.each(texts)('writes the bytes Buffer.from writes: %s', (_name, text) => {
    expect(utf8Bytes(text).equals(Buffer.from(text))).toBe(true);
  });

  it('writes long texts of three-byte characters, at and past the length the scratch buffer holds', () => {
    for (const length of [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 200_000]) {
      const text = '€'.repeat(length);
      const bytes = utf8Bytes(text);
      expect(bytes.length).toBe(length * 3);
      expect(bytes.equals(Buffer.from(text))).toBe(true);
    }
  });

  it('returns bytes of their own, which a later call does not overwrite', () => {
    const first = utf8Bytes('first – answer');
    const second = utf8Bytes('SECOND – ANSWER, longer than the first');
    expect(first.toString('utf8')).toBe('first – answer');
    expect(second.toString('utf8')).toBe('SECOND – ANSWER, longer than the first');
    expect(first.buffer === second.buffer && first.byteOffset === second.byteOffset).toBe(false);
  });
});
