import { isAscii } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeRecords } from '../../../sync/publish/write.ts';

describe('encodeRecords', () => {
  const records = [
    { id: 'a', name: 'Zürich – Üetliberg', abstract: 'Straße, œuvre, çà et là' },
    { id: 'b', name: 'Emoji 🏔️ and a line separator \u2028 inside', abstract: null },
  ];

  it('writes ASCII that parses back to the same records, accents, symbols and emoji included', () => {
    const text = gunzipSync(encodeRecords(records));
    expect(isAscii(text)).toBe(true);
    expect(JSON.parse(text.toString('latin1'))).toEqual(records);
  });

  it('keeps one record per line, readable with zcat', () => {
    const lines = gunzipSync(encodeRecords(records)).toString('latin1').trimEnd().split('\n');
    expect(lines).toEqual(['[', '{"id":"a","name":"Z\\u00fcrich \\u2013 \\u00dcetliberg","abstract":"Stra\\u00dfe, \\u0153uvre, \\u00e7\\u00e0 et l\\u00e0"},', expect.stringMatching(/^\{"id":"b","name":"Emoji \\ud83c\\udfd4\\ufe0f and/), ']']);
  });

  it('writes the same bytes for the same records', () => {
    expect(encodeRecords(records).equals(encodeRecords(structuredClone(records)))).toBe(true);
    expect(gunzipSync(encodeRecords([])).toString()).toBe('[]\n');
  });
});
