import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compress, negotiateEncoding } from '../../../server/http/compress.ts';

describe('negotiateEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['deflate, identity', 'identity'],
  ])('picks %s → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('compress', () => {
  const body = Buffer.from(JSON.stringify({ data: { tours: Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'Höhenweg Grindelwald–Männlichen' })) } }));

  it('round-trips through brotli and gzip, at either quality', async () => {
    for (const quality of ['fast', 'best'] as const) {
      expect(brotliDecompressSync(await compress(body, 'br', quality)).equals(body)).toBe(true);
      expect(gunzipSync(await compress(body, 'gzip', quality)).equals(body)).toBe(true);
    }
  });
});
