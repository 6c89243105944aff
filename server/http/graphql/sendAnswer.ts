/**
 * How the GraphQL route sends: a successful answer with its ETag and Cache-Control (a 304 when
 * the client has it), an answer with errors, and a refusal, never cached.
 */

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Response as GraphqlResponse } from 'graphql-http';
import type { Config } from '../../config/config.ts';
import { compress, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from '../compress.ts';
import { endAtEndOfTurn } from './endAtEndOfTurn.ts';
import { errorBody } from '../formatError.ts';
import { cacheControl, etagOf, matchesIfNoneMatch, NO_STORE } from '../httpCache.ts';
import { baseHeaders, setDeferredHeaders, type RequestState } from '../requestState.ts';
import { JSON_TYPE, sendText } from '../respond.ts';
import type { GraphqlMetrics } from './graphqlMetrics.ts';
import { memoize } from './mediaType.ts';
import { CODE_OF_STATUS, unsupportedMediaType } from './refusals.ts';
import { codesInBody } from './requestFacts.ts';
import type { CachedResponse } from './responseCache.ts';

/** The sending side of the route, bound to its settings and metrics. */
export interface AnswerSender {
  /**
   * Sends a successful answer with its ETag and Cache-Control, or a 304 when the client has it.
   * Resolves at once (returns nothing) unless the body has to be compressed first.
   * @param entry the response cache's entry of the answer, whose ETags and encodings it keeps
   */
  success(req: IncomingMessage, res: ServerResponse, state: RequestState, bytes: Buffer, contentType: string, entry?: CachedResponse): Promise<void> | void;
  /** Sends an answer with errors (200, as GraphQL over HTTP has it for an executed operation), never cached. */
  withErrors(req: IncomingMessage, res: ServerResponse, state: RequestState, bytes: Buffer, contentType: string): Promise<void>;
  /** Sends a refusal, graphql-http's or ours; a bodiless one gets the error body of its status. Never cached. */
  refusal(req: IncomingMessage, res: ServerResponse, state: RequestState, response: GraphqlResponse): Promise<void>;
}

/** Creates the route's sender. */
export function createAnswerSender(cache: Config['cache'], metrics: GraphqlMetrics): AnswerSender {
  const encodingOf = memoize(negotiateEncoding);
  return {
    success(req, res, state, bytes, contentType, entry) {
      const served = state.served!;
      const encoding = bytes.length >= MIN_COMPRESS_BYTES ? encodingOf(req.headers['accept-encoding']) : 'identity';
      const etag = entry ? entry.etag(contentType, encoding) : etagOf(served.version, contentType, bytes, encoding);
      const caching = cacheControl(cache, served.expiresAtMs, Date.now());
      const conditional = req.headers['if-none-match'];
      if (conditional !== undefined) {
        const hit = matchesIfNoneMatch(conditional, etag, req.method);
        metrics.observeCache('etag', hit);
        if (hit) return writeNotModified(res, state, etag, caching);
      }
      if (encoding === 'identity') return writeSuccess(res, state, contentType, etag, caching, encoding, bytes);
      const encoded = entry ? entry.encoded(encoding) : compress(bytes, encoding);
      if (Buffer.isBuffer(encoded)) return writeSuccess(res, state, contentType, etag, caching, encoding, encoded);
      return encoded.then((body) => writeSuccess(res, state, contentType, etag, caching, encoding, body));
    },
    async withErrors(req, res, state, bytes, contentType) {
      state.trace?.graphql().failed();
      setDeferredHeaders(res, state);
      await sendText(req, res, 200, bytes, contentType, { 'content-type': contentType, 'cache-control': NO_STORE });
    },
    async refusal(req, res, state, [body, init]) {
      state.trace?.graphql().failed();
      setDeferredHeaders(res, state);
      const headers: Record<string, string> = { ...init.headers };
      let text = body;
      if (text === null) {
        // graphql-http answers some refusals (405, 406, 415) without a body.
        const message = init.status === 415 ? unsupportedMediaType(req.headers['content-type']) : init.statusText;
        text = errorBody(CODE_OF_STATUS[init.status] ?? 'BAD_REQUEST', message);
        headers['content-type'] = JSON_TYPE;
      }
      headers['cache-control'] = NO_STORE;
      // An executed answer's codes are those of its errors, noted already; a refusal's are read back from it.
      state.codes ??= codesInBody(text);
      await sendText(req, res, init.status, text, headers['content-type'] ?? JSON_TYPE, headers);
    },
  };
}

/** A 304 carries the validators and caching headers a 200 would, and no body (RFC 9110 §15.4.5). */
function writeNotModified(res: ServerResponse, state: RequestState, etag: string, caching: string): void {
  if (state.headersSet) res.writeHead(304, { ETag: etag, 'Cache-Control': caching }).end();
  else res.writeHead(304, [...baseHeaders(state), 'ETag', etag, 'Cache-Control', caching]).end();
}

/** Writes the head and body of a successful GraphQL answer. */
function writeSuccess(res: ServerResponse, state: RequestState, contentType: string, etag: string, caching: string, encoding: Encoding, body: Buffer): void {
  if (state.headersSet) {
    const headers: OutgoingHttpHeaders = { 'content-type': contentType, etag, 'cache-control': caching };
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    headers['content-length'] = body.length;
    endAtEndOfTurn(res.writeHead(200, headers), body);
    return;
  }
  const headers = baseHeaders(state);
  headers.push('content-type', contentType, 'etag', etag, 'cache-control', caching);
  if (encoding !== 'identity') headers.push('content-encoding', encoding);
  headers.push('content-length', String(body.length));
  endAtEndOfTurn(res.writeHead(200, headers), body);
}
