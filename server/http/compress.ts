/**
 * Content codings of responses: brotli or gzip when the client accepts one (RFC 9110 §12.5.3),
 * run on libuv's thread pool so a large answer does not hold up the event loop.
 */

import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** A content coding the server sends. */
export type Encoding = 'br' | 'gzip' | 'identity';

/** Bodies smaller than this go uncompressed: the saving would not pay for the work (bytes). */
export const MIN_COMPRESS_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Picks the coding for an `Accept-Encoding` header: the accepted one with the highest q-value,
 * brotli before gzip on a tie (smaller at the same speed); identity when neither is accepted.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  let br = 0;
  let gz = 0;
  let any = 0;
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.find((param) => param.trim().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.trim().slice(2));
    if (!Number.isFinite(q)) continue;
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gz = q;
    else if (name === '*') any = q;
  }
  // `*` covers the codings not named (RFC 9110 §12.5.3).
  if (!/\bbr\b/i.test(acceptEncoding)) br = any;
  if (!/\b(x-)?gzip\b/i.test(acceptEncoding)) gz = any;
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}

/**
 * Compresses a body with a coding.
 *
 * @param quality `fast` for answers made per request (brotli 4, gzip 6), `best` for static files
 *   compressed once (brotli 9, gzip 9; brotli 11 would keep the first request for GraphiQL's bundle waiting)
 */
export async function compress(body: Buffer, encoding: Exclude<Encoding, 'identity'>, quality: 'fast' | 'best' = 'fast'): Promise<Buffer> {
  if (encoding === 'br') {
    return brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality === 'best' ? 9 : 4,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    });
  }
  return gzipAsync(body, { level: quality === 'best' ? 9 : 6 });
}
