/** Answers sent in one piece: a text body (compressed when large enough and accepted) or an error body. */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { compress, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from './compress.ts';
import { errorBody, type ErrorCode } from './formatError.ts';
import { NO_STORE } from './httpCache.ts';

/** The content type of our JSON bodies other than GraphQL answers (errors, status, health). */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a text body (or its UTF-8 bytes), compressed when it is large enough and the client accepts a coding. */
export async function sendText(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const encoding = bytes.length >= MIN_COMPRESS_BYTES ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
  await sendBytes(res, status, bytes, encoding, { ...headers, 'content-type': contentType });
}

/**
 * Sends one of the service's HTML pages built once at start (the playground, the booking docs,
 * the map) under its own Content-Security-Policy, revalidated on each visit so that a new
 * deployment's page, whose asset paths hold new hashes, is never mixed with an old one's.
 */
export function sendPage(req: IncomingMessage, res: ServerResponse, html: string, contentSecurityPolicy: string): Promise<void> {
  return sendText(req, res, 200, html, 'text/html; charset=utf-8', {
    'Content-Security-Policy': contentSecurityPolicy,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
}

async function sendBytes(res: ServerResponse, status: number, bytes: Buffer, encoding: Encoding, headers: Record<string, string>): Promise<void> {
  const body = encoding === 'identity' ? bytes : await compress(bytes, encoding);
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  if (bytes.length >= MIN_COMPRESS_BYTES && !hasVary(res, 'Accept-Encoding')) res.appendHeader('Vary', 'Accept-Encoding');
  res.writeHead(status, { ...headers, 'content-length': String(body.length) }).end(body);
}

/** Whether the response's Vary header names `name` already. */
function hasVary(res: ServerResponse, name: string): boolean {
  const vary = res.getHeader('Vary');
  const values = Array.isArray(vary) ? vary : vary === undefined ? [] : [String(vary)];
  return values.some((value) => value.split(',').some((item) => item.trim().toLowerCase() === name.toLowerCase()));
}

/** Sends the error body of the query interface, `{ errors: [{ message, extensions: { code } }] }`, never cached. */
export function sendError(res: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  const body = errorBody(code, message);
  res
    .writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': NO_STORE })
    .end(body);
}
