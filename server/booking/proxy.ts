/**
 * Proxy mode: forwards each of the seven booking calls to the partner's booking interface and
 * adds the contract's credential on the way, so front ends can book without ever holding it.
 *
 * - Only calls routes.ts has matched reach this module: one of the seven paths, a checked id,
 *   a checked locale. Each goes to its partner path (operations.ts: `/v1/reservations` to
 *   `/reservations` under the base URL); nothing else is ever sent upstream.
 * - Bodies pass unchanged: the sandbox takes and answers the partner's own bodies, so there is
 *   nothing to translate. A PATCH body goes up as `application/merge-patch+json`, the type the
 *   partner expects, whichever JSON type the client sent.
 * - The credential is sent in the configured header (`Authorization: Bearer <key>` by default,
 *   the bare key in any other header). It never appears in a response (the upstream's answer is
 *   scrubbed of it) nor in a log line.
 * - Only the request headers in {@link FORWARDED_REQUEST_HEADERS} are passed on; the client's own
 *   Authorization and cookies never are. The upstream's status and body are passed through, its
 *   headers without hop-by-hop ones (RFC 9110, section 7.6.1), cookies and CORS headers (ours apply).
 * - One deadline covers connecting, the headers and the body: past it the client gets a 504;
 *   a refused or broken connection or an invalid HTTP answer is a 502.
 */

import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import { Agent, request } from 'undici';
import { BookingError } from './errors.ts';
import { BODY_MEDIA_TYPES, type BookingBackend, type BookingLogger, upstreamPathOf } from './operations.ts';

/**
 * Request headers passed on to the upstream (lower case); every other header stays here. The
 * content type is not among them: the proxy sets the one the partner expects.
 */
export const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'idempotency-key', 'user-agent', 'x-request-id'] as const;

/** Hop-by-hop headers: they describe one connection, never the message (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Upstream response headers never passed to the client besides hop-by-hop ones. */
const DROPPED_RESPONSE_HEADERS = new Set(['content-length', 'set-cookie', 'set-cookie2', 'date']);

/** The largest upstream response body passed through, in bytes; a larger one is a 502. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Upstream errors that mean "no answer in time". */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const REDACTED = '[redacted]';

export interface ProxyOptions {
  /** Base URL; the partner path of a call (`/reservations`, ...) is appended to its path. */
  upstreamUrl: string;
  /** The credential; sent upstream only. */
  apiKey: string;
  /** The header that carries it: `Authorization` as `Bearer <key>`, any other as the bare key. */
  authHeader: string;
  /** Deadline of one upstream call (connect, headers, body), in ms. */
  timeoutMs: number;
  logger: BookingLogger;
  /**
   * When tracing is on: each call is a client span (HTTP semantic conventions), child of the
   * active span, and the partner gets its `traceparent`.
   */
  tracer?: Tracer | undefined;
}

/** Creates the proxy. Connections to the upstream are pooled and kept alive. */
export function createProxy(options: ProxyOptions): BookingBackend {
  const { apiKey, timeoutMs, logger, tracer } = options;
  const authHeader = options.authHeader.toLowerCase();
  const credential = authHeader === 'authorization' ? `Bearer ${apiKey}` : apiKey;
  const base = new URL(options.upstreamUrl);
  const basePath = base.pathname.replace(/\/$/, '');
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, maxResponseSize: MAX_RESPONSE_BYTES });
  const secret = Buffer.from(apiKey);
  /** Whatever is logged or answered passes through here first. */
  const scrub = (text: string) => text.replaceAll(apiKey, REDACTED);

  return {
    async execute(call) {
      const method = call.operation.method;
      const url = new URL(base);
      url.pathname = basePath + upstreamPathOf(call.operation, call.id);
      url.search = call.query.toString();
      const headers: Record<string, string> = {};
      for (const name of FORWARDED_REQUEST_HEADERS) {
        const value = call.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      if (method !== 'GET' && call.body.length > 0) headers['content-type'] = BODY_MEDIA_TYPES[method][0];
      headers[authHeader] = credential;
      const target = `${method} ${call.path}`;
      const span = tracer && startClientSpan(tracer, method, url, headers);

      let status: number;
      let upstreamHeaders: Record<string, string | string[] | undefined>;
      let body: Buffer;
      try {
        const response = await request(url, {
          method,
          headers,
          body: method === 'GET' ? null : call.body,
          dispatcher: agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.statusCode;
        upstreamHeaders = response.headers;
        body = Buffer.from(await response.body.arrayBuffer());
      } catch (error) {
        const err = error as Error & { code?: unknown };
        const timedOut = err.name === 'TimeoutError' || TIMEOUT_CODES.has(String(err.code));
        if (span) endClientSpan(span, undefined, timedOut ? 'timeout' : String(err.code ?? err.name));
        logger.warn(scrub(`booking upstream ${target} failed: ${err.name}${err.code === undefined ? '' : ` ${String(err.code)}`}: ${err.message}`));
        if (timedOut) {
          throw new BookingError('UPSTREAM_TIMEOUT', `The booking partner did not answer within ${timeoutMs} ms`, { timeoutMs });
        }
        throw new BookingError('UPSTREAM_UNAVAILABLE', 'The booking partner could not be reached or sent an invalid response', {});
      }

      if (span) endClientSpan(span, status, status >= 400 ? String(status) : undefined);
      if (status === 401 || status === 403) logger.warn(`booking upstream ${target} answered ${status}: the partner refused the credential; check BOOKING_API_KEY and SWISSACTIVITIES_AUTH_HEADER`);
      return { status, headers: responseHeaders(upstreamHeaders, scrub), body: body.includes(secret) ? Buffer.from(scrub(body.toString('latin1')), 'latin1') : body };
    },
    close: () => agent.close(),
  };
}

/**
 * Starts the client span of a partner call under the active span, and adds its `traceparent`
 * (and `tracestate`) to the call's headers. The URL is recorded without its query.
 */
function startClientSpan(tracer: Tracer, method: string, url: URL, headers: Record<string, string>): Span {
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_FULL]: `${url.origin}${url.pathname}`,
      [ATTR_SERVER_ADDRESS]: url.hostname,
      [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    },
  });
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return span;
}

/** Ends a partner call's span with the partner's status, or with the error that stopped the call. */
function endClientSpan(span: Span, status: number | undefined, errorType: string | undefined): void {
  if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The upstream's headers a client may see, scrubbed of the credential. */
function responseHeaders(upstream: Record<string, string | string[] | undefined>, scrub: (text: string) => string): Record<string, string> {
  const connectionTokens = new Set(
    String(upstream.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connectionTokens.has(name) || DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-')) continue;
    headers[name] = scrub(Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
