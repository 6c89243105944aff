/**
 * One GET from the snapshot origin (undici), under a total deadline: connecting, the headers and
 * the whole body must arrive within `deadlineMs`, so that an origin that trickles bytes cannot
 * hold a poll forever. A redirect is followed only within the origin (a CDN or bucket may
 * redirect a path to its canonical form); one to another origin fails, so that whoever controls
 * a redirect cannot point replicas at a host of their choosing. The body goes to `sink` chunk by
 * chunk, never held whole here, and is refused past `maxBytes`.
 */

import { type Dispatcher, request } from 'undici';
import { PullError } from './pullError.ts';

/** Redirects followed within the origin before giving up. */
const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface FetchOptions {
  dispatcher: Dispatcher;
  /** Total deadline of the request, redirects, headers and body included, in ms. */
  deadlineMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Sent as If-None-Match; a 304 then answers `notModified`. */
  etag?: string | null;
  /** Takes each chunk of a 200's body, in order; awaited before the next is read. */
  sink(chunk: Buffer): void | Promise<void>;
}

export type FetchResult = { notModified: true; etag: string | null } | { notModified: false; etag: string | null; bytes: number };

/**
 * GETs `url` into `options.sink`.
 *
 * @throws PullError: `unreachable`, `timeout`, `status` (anything but 200, or 304 when asked),
 *   `redirect` (to another origin, or too many), `too_large`, `truncated`
 */
export async function fetchFromOrigin(url: URL, options: FetchOptions): Promise<FetchResult> {
  const signal = AbortSignal.timeout(options.deadlineMs);
  let target = url;
  for (let redirects = 0; ; redirects++) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        dispatcher: options.dispatcher,
        signal,
        headers: { accept: '*/*', 'accept-encoding': 'identity', ...(options.etag ? { 'if-none-match': options.etag } : {}) },
      });
    } catch (error) {
      throw failure(signal, 'unreachable', target, causeOf(error), error, options.deadlineMs);
    }
    const { statusCode, headers, body } = response;
    const etag = typeof headers.etag === 'string' ? headers.etag : null;
    if (REDIRECT_STATUSES.has(statusCode)) {
      await body.dump().catch(() => {});
      const location = typeof headers.location === 'string' ? new URL(headers.location, target) : null;
      if (location === null) throw new PullError('status', `GET ${target}: ${statusCode} without a Location`);
      if (location.origin !== url.origin) throw new PullError('redirect', `GET ${target}: ${statusCode} to ${location.origin}, another origin; redirects are followed only within ${url.origin}`);
      if (redirects >= MAX_REDIRECTS) throw new PullError('redirect', `GET ${url}: more than ${MAX_REDIRECTS} redirects`);
      target = location;
      continue;
    }
    if (statusCode === 304 && options.etag) {
      await body.dump().catch(() => {});
      return { notModified: true, etag: etag ?? options.etag };
    }
    if (statusCode !== 200) {
      await body.dump().catch(() => {});
      throw new PullError('status', `GET ${target}: ${statusCode}, expected 200`);
    }
    const declared = typeof headers['content-length'] === 'string' ? Number(headers['content-length']) : null;
    if (declared !== null && declared > options.maxBytes) {
      discard(body);
      throw new PullError('too_large', `GET ${target}: ${declared} bytes, more than the bound of ${options.maxBytes}`);
    }
    let bytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) {
          discard(body);
          throw new PullError('too_large', `GET ${target}: more than the bound of ${options.maxBytes} bytes`);
        }
        await options.sink(chunk);
      }
    } catch (error) {
      if (error instanceof PullError) throw error;
      throw failure(signal, 'truncated', target, `the body broke off after ${bytes} bytes (${causeOf(error)})`, error, options.deadlineMs);
    }
    if (declared !== null && bytes !== declared) throw new PullError('truncated', `GET ${target}: ${bytes} bytes of the ${declared} its Content-Length gives`);
    return { notModified: false, etag, bytes };
  }
}

/** Drops a body not to be read; the abort it reports is expected. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

/** The deadline's error when it is what stopped the request, else `reason`'s. */
function failure(signal: AbortSignal, reason: 'unreachable' | 'truncated', target: URL, detail: string, cause: unknown, deadlineMs: number): PullError {
  if (cause instanceof PullError) return cause;
  if (signal.aborted) return new PullError('timeout', `GET ${target}: not answered whole within ${deadlineMs} ms (SNAPSHOT_FETCH_TIMEOUT_MS)`, { cause });
  return new PullError(reason, `GET ${target}: ${detail}`, { cause });
}

function causeOf(error: unknown): string {
  const err = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
