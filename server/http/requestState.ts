/**
 * What the HTTP layer keeps per request (for its log line, its metrics and what may be cached),
 * and the headers every answer carries because of it.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServedSnapshot } from './httpOptions.ts';
import type { RequestTrace } from './requestTracing.ts';

/** Per request: what the log line and the metrics report, and what decides caching. */
export interface RequestState {
  readonly id: string;
  /** The client's address (server/http/clientAddress.ts), read when the request log is on. */
  readonly client?: string;
  /** `performance.now()` at arrival. */
  readonly arrivedAt: number;
  /** Route label of the metrics: a known path or `other`. */
  route: string;
  /** The `root_field` of the http_* metrics and `rootField` of the log: root field, `multiple`, `introspection` or `-` (none passed the checks). */
  operation: string;
  /**
   * The operation's name for the log and `graphql_requests_total`, cut to
   * MAX_LOGGED_OPERATION_NAME characters: the name of the operation answered, or for a refusal
   * the name sent (server/http/graphql/requestFacts.ts).
   */
  operationName?: string;
  /** A GraphQL request reached the GraphQL route (not the playground): it is counted in `graphql_requests_total`. */
  graphql: boolean;
  /** The distinct `extensions.code`s of the errors the answer carries, in order; undefined when it carries none. */
  codes?: readonly string[];
  /** The document sent (or stored for its persisted-query hash), hashed for the log only when a line is written. */
  query?: string;
  /** Lowercase hex sha256 of the document, when known without hashing it (a persisted-query hash, a cached answer). */
  documentHash?: string;
  /** Answered from the response cache. */
  cacheHit: boolean;
  cost?: number;
  served?: ServedSnapshot;
  /** The operation passed every check, so it is answered (from the response cache or by running it). */
  passedChecks: boolean;
  /** The result carries errors (never cached). */
  hasErrors: boolean;
  /** The request's trace, when tracing is on. */
  readonly trace: RequestTrace | undefined;
  /** Every response closes its connection: the service was draining when the request arrived. */
  readonly closeConnection: boolean;
  /**
   * Whether the headers every response carries (X-Request-Id, Connection: close while draining,
   * CORS and Vary) are set on the response yet. A GraphQL request without Origin leaves them
   * for the answer to send in one go ({@link baseHeaders}); any other answer sets them first.
   */
  headersSet: boolean;
}

/** What GraphQL answers vary by: CORS (Origin), the media type (Accept) and the content coding. */
const GRAPHQL_VARY = 'Origin, Accept, Accept-Encoding';

/**
 * The headers the API's answers carry before their own, as a flat list for writeHead: the
 * request id, Connection: close while draining, and for a GraphQL request without Origin what
 * CORS and the route would have set (`Vary: Origin` and `Vary: Accept, Accept-Encoding`, in one line).
 */
export function baseHeaders(state: RequestState): string[] {
  return state.closeConnection
    ? ['X-Request-Id', state.id, 'Connection', 'close', 'Vary', GRAPHQL_VARY]
    : ['X-Request-Id', state.id, 'Vary', GRAPHQL_VARY];
}

/** Sets on the response the headers a GraphQL request without Origin left for its answer (see {@link baseHeaders}). */
export function setDeferredHeaders(res: ServerResponse, state: RequestState): void {
  if (state.headersSet) return;
  setRequestHeaders(res, state);
  res.appendHeader('Vary', 'Origin');
  res.appendHeader('Vary', 'Accept, Accept-Encoding');
}

/** Sets the request id, and Connection: close while draining, on the response. */
export function setRequestHeaders(res: ServerResponse, state: RequestState): void {
  if (state.headersSet) return;
  state.headersSet = true;
  res.setHeader('X-Request-Id', state.id);
  if (state.closeConnection) res.setHeader('Connection', 'close');
}

/**
 * Answers a request. What it throws, or its promise rejects with, the HTTP layer answers with a
 * 500 (see {@link Fail}).
 * @param query the request target past its first `?` ('' when it has none), for the routes that
 *   read parameters to parse (URLSearchParams)
 */
export type Handle = (req: IncomingMessage, res: ServerResponse, state: RequestState, query: string) => Promise<void> | void;

/**
 * Answers a request whose handling failed: logs the error with the request id, and answers 500
 * INTERNAL_SERVER_ERROR, or cuts the connection once the head is out. For a handler that goes on
 * in a callback, where no caller catches what it throws.
 */
export type Fail = (req: IncomingMessage, res: ServerResponse, state: RequestState, error: unknown) => void;
