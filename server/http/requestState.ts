/**
 * What the HTTP layer keeps per request (for its log line, its metrics and what may be cached),
 * and the headers every answer carries because of it.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { PersistedQueryRelay } from './graphql/persistedQueries.ts';

/** What a request is served from; taken once per request, so the snapshot may change between requests. */
export interface ServedSnapshot {
  /** Snapshot id; part of every ETag. */
  readonly version: string;
  /** The GraphQL context value of requests served from this snapshot. */
  readonly context: unknown;
  /** What its answers weigh, which the limits estimate an answer's bytes with (server/snapshot/answerSizes.ts). */
  readonly sizes: AnswerSizes;
  /** Earliest expiresAt of the snapshot's sources, ms since the epoch; null when none or a fixture snapshot. Bounds `max-age`. */
  readonly expiresAtMs: number | null;
  /** Per source, its lastSync in ms since the epoch (the `snapshot_age_seconds` metric). */
  readonly lastSyncMs: Readonly<Record<string, number>>;
}

/**
 * Where the HTTP layer writes its log lines (a pino logger fits): an object of fields, then a message.
 * The request log asks first whether its level is on, so an idle level costs no line's fields.
 */
export interface HttpLogger {
  isLevelEnabled(level: string): boolean;
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What the HTTP layer counts (server/ops/metrics.ts implements it over prom-client). */
export interface HttpMetrics {
  /** The registry served at `/metrics`; the GraphQL route registers its cache gauges in it. */
  readonly registry: Registry;
  /**
   * Records one answered request.
   *
   * @param route a fixed route name, e.g. `/api/graphql`
   * @param operation the GraphQL root field (`activities`), `multiple`, `introspection`, or `-`
   * @param durationS from the request's arrival to the end of its answer, in seconds
   */
  observeRequest(route: string, operation: string, status: number, durationS: number): void;
  /** Records a lookup in a cache: `etag` (a conditional request) or `apq` (a persisted query). */
  observeCache(cache: 'etag' | 'apq', hit: boolean): void;
  /** Records the cost of an operation that passed the limits (see server/execution/limits.ts). */
  observeCost(cost: number): void;
}

/** The status report (server/ops/status.ts implements it), read per request. */
export interface StatusProvider {
  /** The report served as JSON at `/api/status`, given whether the service is ready (false while draining). */
  report(ready: boolean): object;
  /** The same report as the HTML page served at `/`, with the Content-Security-Policy that page needs. */
  page(ready: boolean): { html: string; contentSecurityPolicy: string };
}

/** What the HTTP layer serves, and how. */
export interface HttpOptions {
  /** The executable schema. */
  schema: GraphQLSchema;
  /** The schema as SDL, served at `/api/schema`. */
  sdl: string;
  /** The snapshot to serve the next request from. */
  snapshot: () => ServedSnapshot;
  /** Returns the sample queries served as JSON at `/api/schema?format=queries`; called per request. */
  sampleQueries: () => unknown;
  /** The status report served at `/api/status` and rendered at `/`. */
  status: StatusProvider;
  /** The settings the HTTP layer reads. */
  config: Pick<
    Config,
    'allowedOrigins' | 'introspection' | 'limits' | 'timeouts' | 'cache' | 'apqCacheBytes' | 'responseCacheBytes' | 'recordCacheBytes' | 'operationCacheSize' | 'jit'
  >;
  logger: HttpLogger;
  /** Where the service counts its requests, caches and costs; served at `/metrics`. */
  metrics: HttpMetrics;
  /** The query the playground shows on a first visit; default `{ types { id title } }`. */
  playgroundQuery?: string;
  /**
   * The booking interface (server/booking/routes.ts), asked first about every request: it
   * answers everything under /v1, its own CORS included, and then resolves true.
   */
  booking?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** In a cluster worker: `/metrics` reports every worker's metrics through the primary. */
  clusterMetrics?: { scrape(): Promise<string> };
  /** In a cluster worker: persisted queries are shared with the other workers through the primary. */
  persistedQueries?: PersistedQueryRelay;
  /**
   * Reverse proxies in front of the server (TRUST_PROXY), for the client address of the request
   * log (server/http/clientAddress.ts); default 0, the socket's peer.
   */
  trustedProxies?: number;
}

/** Per request: what the log line and the metrics report, and what decides caching. */
export interface RequestState {
  readonly id: string;
  /** The client's address (server/http/clientAddress.ts), read when the request log is on. */
  readonly client?: string;
  /** `performance.now()` at arrival. */
  readonly arrivedAt: number;
  /** Route label of the metrics: a known path or `other`. */
  route: string;
  /** Metrics label: root field, `multiple`, `introspection` or `-` (not executed). */
  operation: string;
  /** The client's operation name, for the log. */
  operationName?: string;
  cost?: number;
  served?: ServedSnapshot;
  /** The operation was executed (it passed every check). */
  executed: boolean;
  /** The result carries errors (never cached). */
  hasErrors: boolean;
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
