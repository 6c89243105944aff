/**
 * What the HTTP layer is handed (`HttpOptions`) and the narrow interfaces of what it is handed:
 * the served snapshot, the logger, the metrics and the status report, which server/main.ts
 * builds from the rooms above it.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { PersistedQueryRelay } from './graphql/persistedQueries.ts';
import type { TrustedDocuments } from './graphql/trustedDocuments/trustedDocuments.ts';
import type { PlaygroundSample } from './playground.ts';
import type { RequestTracing } from './requestTracing.ts';

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
  /** Whether it is a fixture snapshot, labelled apart in `snapshot_age_seconds`. */
  readonly fixture?: boolean;
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

/**
 * What became of a GraphQL request: `ok` (answered without errors), `cache_hit` (answered from
 * the response cache), `error` (executed, with errors in the answer, or failed inside the
 * service: a 5xx), `refused` (turned down before execution: a limit, a malformed request, an
 * unknown persisted query, validation…), `aborted` (the client left before its answer).
 */
export type GraphqlOutcome = 'ok' | 'cache_hit' | 'error' | 'refused' | 'aborted';

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
  /**
   * Records one answered GraphQL request (the route took it: not the playground, a preflight or
   * another method).
   *
   * @param operationName the operation's name as logged, or undefined when it has none
   * @param codes the distinct error codes of its answer, if any
   */
  observeGraphql(operationName: string | undefined, outcome: GraphqlOutcome, codes: readonly string[] | undefined): void;
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
  /**
   * Returns the sample queries served as JSON at `/api/schema?format=queries`, which the
   * playground also opens as tabs; called per request.
   */
  sampleQueries: () => readonly PlaygroundSample[];
  /** The status report served at `/api/status` and rendered at `/`. */
  status: StatusProvider;
  /** The settings the HTTP layer reads. */
  config: Pick<
    Config,
    | 'allowedOrigins'
    | 'introspection'
    | 'limits'
    | 'timeouts'
    | 'cache'
    | 'apqCacheBytes'
    | 'trustedDocuments'
    | 'responseCacheBytes'
    | 'recordCacheBytes'
    | 'operationCacheSize'
    | 'jit'
    | 'shedEventLoopDelayMs'
  >;
  logger: HttpLogger;
  /** Where the service counts its requests, caches and costs; served at `/metrics`. */
  metrics: HttpMetrics;
  /**
   * The booking interface (server/booking/routes.ts), asked first about every request: it
   * answers everything under /v1 but its docs (`bookingDocument`), its own CORS included, and
   * then resolves true.
   */
  booking?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /**
   * URL path of the booking interface's OpenAPI document; when given, `/v1/docs` renders it
   * (server/http/apiDocs.ts).
   */
  bookingDocument?: string;
  /** In a cluster worker: `/metrics` reports every worker's metrics through the primary. */
  clusterMetrics?: { scrape(): Promise<string> };
  /** In a cluster worker: persisted queries are shared with the other workers through the primary. */
  persistedQueries?: PersistedQueryRelay;
  /** The trusted documents (PERSISTED_DOCUMENTS), read at each request: they follow their manifests. */
  trustedDocuments?: TrustedDocuments;
  /**
   * Reverse proxies in front of the server (TRUST_PROXY), for the client address of the request
   * log (server/http/clientAddress.ts); default 0, the socket's peer.
   */
  trustedProxies?: number;
  /** When tracing is on: each request's spans (server/ops/tracing/ implements it). */
  tracing?: RequestTracing;
}
