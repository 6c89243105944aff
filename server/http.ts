import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import {
  createHandler,
  parseRequestParams,
  type OperationContext,
  type Request as GraphqlRequest,
  type Response as GraphqlResponse,
} from 'graphql-http';
import { compress, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from './compress.ts';
import type { Config } from './config.ts';
import { createCors } from './cors.ts';
import { startDeadline, withDeadline } from './deadline.ts';
import { endLater } from './endLater.ts';
import { errorBody, formatError, INTERNAL_ERROR_MESSAGE, isInternalError, type ErrorCode } from './formatError.ts';
import { cacheControl, etagOf, matchesIfNoneMatch, NO_STORE } from './httpCache.ts';
import { createQueryChecker } from './limits.ts';
import { requestIdOf, type Logger } from './log.ts';
import { Counter, Gauge } from 'prom-client';
import { createMetrics, type Metrics } from './metrics.ts';
import { createOperationCache, type OperationCache, type PreparedRequest } from './operationCache.ts';
import {
  createPersistedQueries,
  hashQuery,
  persistedQueryNotFound,
  persistedQueryNotSupported,
  readPersistedQuery,
  type PersistedQueryRequest,
} from './persistedQueries.ts';
import { createPlayground, type Playground, type StaticAsset } from './playground.ts';
import { PayloadTooLargeError, readBody } from './readBody.ts';
import { createResponseCache, responseKey, type CachedResponse, type ResponseCache } from './responseCache.ts';
import { renderStatusPage, STATUS_PAGE_CSP, type StatusReport } from './status.ts';

/** URL path of the GraphQL endpoint (and of the playground, for a browser). */
export const GRAPHQL_PATH = '/api/graphql';

/** URL path of the schema: the SDL, or with `?format=queries` the sample queries. */
export const SCHEMA_PATH = '/api/schema';

/** The query the playground shows on a first visit unless told otherwise. */
const DEFAULT_PLAYGROUND_QUERY = '{ types { id title } }';

/** Longest client operation name written to the logs; the rest is cut. */
const MAX_LOGGED_OPERATION_NAME = 100;

/** What a request is served from; taken once per request, so the snapshot may change between requests. */
export interface ServedSnapshot {
  /** Snapshot id; part of every ETag. */
  readonly version: string;
  /** The GraphQL context value of requests served from this snapshot. */
  readonly context: unknown;
  /** Earliest expiresAt of the snapshot's sources, ms since the epoch; null when none. Bounds `max-age`. */
  readonly expiresAtMs: number | null;
  /** Per source, its lastSync in ms since the epoch (the `snapshot_age_seconds` metric). */
  readonly lastSyncMs: Readonly<Record<string, number>>;
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
  /**
   * Returns the report served at `/api/status` and rendered at `/`, given whether the service
   * is ready (false while draining).
   */
  status: (ready: boolean) => StatusReport;
  /** The settings the HTTP layer reads. */
  config: Pick<
    Config,
    'allowedOrigins' | 'introspection' | 'limits' | 'timeouts' | 'cache' | 'apqCacheBytes' | 'responseCacheBytes' | 'operationCacheSize' | 'jit'
  >;
  logger: Logger;
  /** The query the playground shows on a first visit; default `{ types { id title } }`. */
  playgroundQuery?: string;
  /**
   * The booking interface (server/booking/routes.ts), asked first about every request: it
   * answers everything under /v1, its own CORS included, and then resolves true.
   */
  booking?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

/** The HTTP server of the API, with what a graceful shutdown needs. */
export interface HttpService {
  /** A node:http server, not yet listening. */
  readonly server: Server;
  readonly metrics: Metrics;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** True once {@link HttpService.drain} was called. */
  readonly draining: boolean;
  /** From now on `/readyz` answers 503 and every response closes its connection. */
  drain(): void;
  /** Resolves when no request is in flight (at once if none is). */
  idle(): Promise<void>;
}

/** Per request: what the log line and the metrics report, and what decides caching. */
interface RequestState {
  readonly id: string;
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
  /** Hash of a persisted query sent with its text, registered once the query passes the checks. */
  persistedHash?: string;
  /** The body of a POST, once the fast path has started reading it (graphql-http's path reads it from here). */
  body?: Promise<Buffer>;
  /** A refusal of the checks the fast path met, for graphql-http's path to answer. */
  prepared?: PreparedRequest;
  /** Every response closes its connection: the service was draining when the request arrived. */
  readonly closeConnection: boolean;
  /**
   * Whether the headers every response carries (X-Request-Id, Connection: close while draining,
   * CORS and Vary) are set on the response yet. A GraphQL request without Origin leaves them
   * for the answer to send in one go ({@link baseHeaders}); any other answer sets them first.
   */
  headersSet: boolean;
}

/** Where a response keeps the state of its request, for the listener of its 'close'. */
const STATE = Symbol('requestState');

type StatefulResponse = ServerResponse & { [STATE]: RequestState };

/** What GraphQL answers vary by: CORS (Origin), the media type (Accept) and the content coding. */
const GRAPHQL_VARY = 'Origin, Accept, Accept-Encoding';

/**
 * The headers the API's answers carry before their own, as a flat list for writeHead: the
 * request id, Connection: close while draining, and for a GraphQL request without Origin what
 * CORS and the route would have set (`Vary: Origin` and `Vary: Accept, Accept-Encoding`, in one line).
 */
function baseHeaders(state: RequestState): string[] {
  return state.closeConnection
    ? ['X-Request-Id', state.id, 'Connection', 'close', 'Vary', GRAPHQL_VARY]
    : ['X-Request-Id', state.id, 'Vary', GRAPHQL_VARY];
}

/** Sets on the response the headers a GraphQL request without Origin left for its answer (see {@link baseHeaders}). */
function setDeferredHeaders(res: ServerResponse, state: RequestState): void {
  if (state.headersSet) return;
  setRequestHeaders(res, state);
  res.appendHeader('Vary', 'Origin');
  res.appendHeader('Vary', 'Accept, Accept-Encoding');
}

/** Whether a path belongs to the booking interface (server/booking/routes.ts answers those). */
function isBookingPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** Sets the request id, and Connection: close while draining, on the response. */
function setRequestHeaders(res: ServerResponse, state: RequestState): void {
  if (state.headersSet) return;
  state.headersSet = true;
  res.setHeader('X-Request-Id', state.id);
  if (state.closeConnection) res.setHeader('Connection', 'close');
}

type Handle = (req: IncomingMessage, res: ServerResponse, state: RequestState, search: URLSearchParams) => Promise<void> | void;

/** One path's handler, with the methods it answers (OPTIONS is answered for every path). */
interface Route {
  methods: readonly string[];
  handle: Handle;
  /** Logged at debug rather than info: probes and scrapes would drown the request log. */
  quiet?: boolean;
}

/**
 * Creates the HTTP service of the API:
 * - `GET|POST /api/graphql`: GraphQL over HTTP (graphql-http; https://graphql.github.io/graphql-over-http/draft/)
 *   behind the limits of server/limits.ts, with automatic persisted queries, ETag/304 and
 *   Cache-Control on successful answers; a browser (GET, `Accept` with text/html, no query) gets
 *   the GraphiQL playground, whose assets are served under `/api/graphql/assets/`.
 * - `GET /api/schema`: the SDL as text/plain; `?format=queries`: the sample queries as JSON.
 * - `GET /` (HTML) and `GET /api/status` (JSON): the status report; `GET /healthz`: the process
 *   is alive; `GET /readyz`: 200 while serving, 503 while draining; `GET /metrics`: Prometheus.
 * - CORS on every path (see {@link createCors}); an unknown path is a 404, a method a path does
 *   not answer is a 405 (with `Allow`). Bodies of 1 KiB or more are compressed (br, gzip) when accepted.
 *
 * Every error body is `{ "errors": [{ message, extensions: { code } }] }` (codes: ERROR_CODES in
 * server/formatError.ts). Unexpected errors are logged in full with the request id and reach the
 * client only as "Internal server error". Every response carries `X-Request-Id`; every request is
 * logged once it is answered (id, method, path, status, duration, operation; never the query
 * string, variables or body).
 *
 * Reads the playground's bundles from node_modules once, now.
 *
 * @throws Error when an allowed origin is malformed or a playground bundle is missing
 */
export function createHttpService(options: HttpOptions): HttpService {
  const { config, logger } = options;
  const cors = createCors(config.allowedOrigins);
  const metrics = createMetrics(() => {
    const { version, lastSyncMs } = options.snapshot();
    return { version, lastSyncMs };
  });
  const playground = createPlayground({ endpoint: GRAPHQL_PATH, defaultQuery: options.playgroundQuery ?? DEFAULT_PLAYGROUND_QUERY });
  const lifecycle = { draining: false, inFlight: 0, idleWaiters: [] as (() => void)[] };

  const graphqlRoute = createGraphqlRoute(options, playground, metrics);
  const routes = new Map<string, Route>([
    [GRAPHQL_PATH, { methods: ['GET', 'POST'], handle: graphqlRoute }],
    [SCHEMA_PATH, { methods: ['GET', 'HEAD'], handle: createSchemaRoute(options) }],
    ['/', { methods: ['GET', 'HEAD'], handle: (req, res) => sendText(req, res, 200, renderStatusPage(options.status(!lifecycle.draining)), 'text/html; charset=utf-8', { 'Content-Security-Policy': STATUS_PAGE_CSP, 'Cache-Control': NO_STORE }) }],
    ['/api/status', { methods: ['GET', 'HEAD'], handle: (req, res) => sendText(req, res, 200, JSON.stringify(options.status(!lifecycle.draining)), JSON_TYPE, { 'Cache-Control': NO_STORE }) }],
    ['/healthz', { methods: ['GET', 'HEAD'], quiet: true, handle: (req, res) => sendText(req, res, 200, '{"status":"ok"}', JSON_TYPE, { 'Cache-Control': NO_STORE }) }],
    [
      '/readyz',
      {
        methods: ['GET', 'HEAD'],
        quiet: true,
        handle: (req, res) => {
          const body = lifecycle.draining ? { status: 'draining' } : { status: 'ready', snapshot: options.snapshot().version };
          return sendText(req, res, lifecycle.draining ? 503 : 200, JSON.stringify(body), JSON_TYPE, { 'Cache-Control': NO_STORE });
        },
      },
    ],
    [
      '/metrics',
      {
        methods: ['GET'],
        quiet: true,
        handle: async (req, res) => sendText(req, res, 200, await metrics.registry.metrics(), metrics.registry.contentType, { 'Cache-Control': NO_STORE }),
      },
    ],
  ]);
  const compressedAssets = new Map<StaticAsset, Map<Encoding, Promise<Buffer>>>();
  for (const [path, asset] of playground.assets) {
    routes.set(path, { methods: ['GET', 'HEAD'], quiet: true, handle: (req, res) => sendAsset(req, res, asset, compressedAssets) });
  }

  const allowed = new Map([...routes].map(([path, route]) => [path, [...route.methods, 'OPTIONS'].join(', ')]));

  async function handle(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    // Split by hand: `new URL('//host/x', base)` would read a path starting with // as a host.
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const search = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
    // The common case first: a GraphQL query without CORS, whose headers go out in one go.
    if (path === GRAPHQL_PATH && req.headers.origin === undefined && (req.method === 'GET' || req.method === 'POST')) {
      state.route = GRAPHQL_PATH;
      return graphqlRoute(req, res, state, search);
    }

    setRequestHeaders(res, state);
    if (options.booking && isBookingPath(path) && (await options.booking(req, res))) {
      state.route = '/v1';
      return;
    }
    if (cors(req, res)) return;

    const route = routes.get(path);
    if (route === undefined) {
      sendError(res, 404, 'NOT_FOUND', `Nothing at ${path}; the API is at ${GRAPHQL_PATH}, its status at /`);
      return;
    }
    state.route = path.startsWith(`${GRAPHQL_PATH}/assets/`) ? `${GRAPHQL_PATH}/assets` : path;
    const allow = allowed.get(path)!;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: allow }).end();
      return;
    }
    if (!route.methods.includes(req.method ?? '')) {
      sendError(res, 405, 'METHOD_NOT_ALLOWED', `${path} answers ${allow}, not ${req.method}`, { Allow: allow });
      return;
    }
    await route.handle(req, res, state, search);
  }

  const server = createServer(
    {
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      keepAliveTimeout: config.timeouts.keepAliveMs,
      // Node enforces the two timeouts above at this interval (default 30 s, too coarse for them).
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs),
    },
    (req, res) => {
      const state: RequestState = {
        id: requestIdOf(req.headers['x-request-id']),
        arrivedAt: performance.now(),
        route: 'other',
        operation: '-',
        executed: false,
        hasErrors: false,
        closeConnection: lifecycle.draining,
        headersSet: false,
      };
      lifecycle.inFlight++;
      (res as StatefulResponse)[STATE] = state;
      res.on('close', onClose);
      void serve(req, res, state);
    },
  );

  // Shared by every response, which carries its state: a closure per request costs on the hot path.
  function onClose(this: StatefulResponse): void {
    lifecycle.inFlight--;
    finish(this.req, this, this[STATE]);
    if (lifecycle.inFlight === 0) for (const resolve of lifecycle.idleWaiters.splice(0)) resolve();
  }

  /** Answers a request; anything thrown is logged and answered 500 (or the connection cut once the head is out). */
  async function serve(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    try {
      await handle(req, res, state);
    } catch (error) {
      logger.error({ reqId: state.id, err: error, method: req.method, path: pathOf(req) }, 'internal error');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      setDeferredHeaders(res, state);
      sendError(res, 500, 'INTERNAL_SERVER_ERROR', INTERNAL_ERROR_MESSAGE);
    }
  }

  function finish(req: IncomingMessage, res: ServerResponse, state: RequestState): void {
    const durationS = (performance.now() - state.arrivedAt) / 1000;
    const status = res.writableFinished ? res.statusCode : 499;
    metrics.observeRequest(state.route, state.operation, status, durationS);
    const quiet = routes.get(state.route)?.quiet === true || state.route === `${GRAPHQL_PATH}/assets`;
    const level = quiet ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        reqId: state.id,
        method: req.method,
        path: pathOf(req),
        status,
        durationMs: Math.round(durationS * 1e4) / 10,
        operation: state.operation === '-' ? undefined : state.operation,
        operationName: state.operationName,
        cost: state.cost,
        snapshot: state.served?.version,
      },
      status === 499 ? 'request aborted' : 'request',
    );
  }

  return {
    server,
    metrics,
    get inFlight() {
      return lifecycle.inFlight;
    },
    get draining() {
      return lifecycle.draining;
    },
    drain() {
      lifecycle.draining = true;
    },
    idle() {
      if (lifecycle.inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => lifecycle.idleWaiters.push(resolve));
    },
  };
}

function createGraphqlRoute(options: HttpOptions, playground: Playground, metrics: Metrics): Handle {
  const { config, logger } = options;
  const executableSchema = withDeadline(options.schema);
  const operations = createOperationCache({
    schema: options.schema,
    executableSchema,
    check: createQueryChecker(options.schema, config.limits, { introspection: config.introspection }),
    limits: config.limits,
    maxEntries: config.operationCacheSize,
    jit: config.jit,
  });
  const responses = config.responseCacheBytes > 0 ? createResponseCache(config.responseCacheBytes) : null;
  const persisted = config.apqCacheBytes > 0 ? createPersistedQueries(config.apqCacheBytes) : null;
  const lookups = registerCacheMetrics(metrics, operations, responses);
  const mediaTypeOf = memoize(acceptedMediaType);
  const encodingOf = memoize(negotiateEncoding);
  const isJson = memoize(isJsonContentType);

  // Requests the fast path below does not take are answered by graphql-http, as they were before
  // it existed: errors in the request, refusals of the checks, the media types it refuses.
  const handler = createHandler<IncomingMessage, RequestState, OperationContext>({
    schema: executableSchema,
    formatError,
    parseRequestParams: async (req) => {
      const state = req.context;
      if (req.method === 'POST' && isJsonContentType(req.raw.headers['content-type'])) {
        let bytes: Buffer;
        try {
          bytes = await (state.body ?? readBody(req.raw, config.limits.maxBodyBytes));
        } catch (error) {
          if (!(error instanceof PayloadTooLargeError)) throw error;
          return payloadTooLarge(error);
        }
        let data: unknown;
        try {
          data = JSON.parse(bytes.toString('utf8'));
        } catch (error) {
          throw new Error(`Malformed JSON body: ${(error as Error).message}`);
        }
        if (Array.isArray(data)) throw new Error('Batched requests are not supported: send one operation per request, as a JSON object');
        if (typeof data === 'object' && data !== null) {
          const body = data as Record<string, unknown>;
          const query = resolvePersistedQuery(state, body.query, body.extensions);
          if (query !== body.query) data = { ...body, query };
        }
        return parseRequestParams({ ...req, body: data as Record<string, unknown> });
      }
      if (req.method === 'GET') {
        const queryStart = req.url.indexOf('?');
        const search = new URLSearchParams(queryStart === -1 ? '' : req.url.slice(queryStart + 1));
        const extensions = search.get('extensions');
        if (extensions === null) return undefined;
        let parsed: unknown;
        try {
          parsed = JSON.parse(extensions);
        } catch {
          // graphql-http's own parser answers it ("Unparsable URL").
          return undefined;
        }
        const query = resolvePersistedQuery(state, search.get('query') ?? undefined, parsed);
        if (typeof query !== 'string' || query === search.get('query')) return undefined;
        search.set('query', query);
        return parseRequestParams({ ...req, url: `${GRAPHQL_PATH}?${search}` });
      }
      // graphql-http answers other methods and media types (405, 415).
      return undefined;
    },
    onSubscribe: (req, params) => {
      const state = req.context;
      const prepared = state.prepared ?? operations.prepare({ query: params.query, operationName: params.operationName, variables: params.variables });
      if (prepared.errors) return prepared.errors;
      const { operation } = prepared;
      state.operation = operation.label;
      state.operationName = operation.operation.name?.value.slice(0, MAX_LOGGED_OPERATION_NAME);
      state.cost = prepared.cost;
      metrics.observeCost(prepared.cost);
      if (state.persistedHash !== undefined) persisted?.set(state.persistedHash, params.query);
      const served = state.served!;
      state.executed = true;
      return {
        schema: executableSchema,
        document: operation.document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: served.context as OperationContext,
        rootValue: startDeadline(config.limits.executionTimeoutMs),
      };
    },
    onOperation: (req, _args, result) => {
      const state = req.context;
      state.hasErrors = (result.errors?.length ?? 0) > 0;
      logInternalErrors(state, result.errors);
    },
  });

  function logInternalErrors(state: RequestState, errors: readonly GraphQLError[] | undefined): void {
    for (const error of errors ?? []) {
      if (isInternalError(error)) {
        logger.error(
          { reqId: state.id, operationName: state.operationName, path: error.path?.join('.'), err: error.originalError },
          'internal error in a resolver',
        );
      }
    }
  }

  /**
   * The query a request runs, given its `query` and `extensions` (Apollo's APQ protocol).
   *
   * @throws GraphQLError PERSISTED_QUERY_NOT_FOUND / _NOT_SUPPORTED; Error (400) for a hash that
   *   does not match the query
   */
  function resolvePersistedQuery(state: RequestState, query: unknown, extensions: unknown): unknown {
    const request = readPersistedQuery(extensions);
    if (request === null) return query;
    if (!persisted) throw persistedQueryNotSupported();
    if (typeof query === 'string') {
      if (hashQuery(query) !== request.sha256Hash) throw new Error('extensions.persistedQuery.sha256Hash does not match the sha256 of the query');
      state.persistedHash = request.sha256Hash;
      return query;
    }
    const stored = persisted.get(request.sha256Hash);
    metrics.observeCache('apq', stored !== undefined);
    if (stored === undefined) throw persistedQueryNotFound();
    return stored;
  }

  /**
   * The fast path: a well-formed request whose operation passes the checks, answered from the
   * response cache or executed from the operation cache, with the bytes graphql-http would send.
   * Resolves false, having answered nothing, for any other request: graphql-http answers it
   * then (with what the fast path learned: the body it read, the refusal of the checks).
   */
  async function serveFast(req: IncomingMessage, res: ServerResponse, state: RequestState, search: URLSearchParams): Promise<boolean> {
    const mediaType = mediaTypeOf(req.headers.accept);
    if (mediaType === null) return false;
    const served = state.served!;
    const method = req.method === 'POST' ? 'POST' : 'GET';
    let raw: string;
    let params: Record<string, unknown>;
    if (method === 'POST') {
      if (!isJson(req.headers['content-type'])) return false;
      state.body = readBody(req, config.limits.maxBodyBytes);
      try {
        raw = (await state.body).toString('utf8');
      } catch {
        return false;
      }
      const hit = responses?.getByAlias(served, method, raw);
      if (hit) return serveCached(req, res, state, hit, mediaType);
      let data: unknown;
      try {
        data = JSON.parse(raw);
      } catch {
        return false;
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
      params = data as Record<string, unknown>;
    } else {
      const target = req.url ?? '';
      const queryStart = target.indexOf('?');
      // graphql-http reads only up to a second `?`, the route's `search` past it: leave those to graphql-http.
      if (queryStart === -1 || target.includes('?', queryStart + 1)) return false;
      raw = target.slice(queryStart + 1);
      const hit = responses?.getByAlias(served, method, raw);
      if (hit) return serveCached(req, res, state, hit, mediaType);
      params = { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined };
      const variables = search.get('variables');
      const extensions = search.get('extensions');
      try {
        if (variables) params.variables = JSON.parse(variables);
        if (extensions) params.extensions = JSON.parse(extensions);
      } catch {
        return false;
      }
    }

    let persistedRequest: PersistedQueryRequest | null;
    try {
      persistedRequest = readPersistedQuery(params.extensions);
    } catch {
      return false;
    }
    let { query } = params;
    let persistedHash: string | undefined;
    if (persistedRequest !== null) {
      if (!persisted) return false;
      if (typeof query === 'string') {
        if (hashQuery(query) !== persistedRequest.sha256Hash) return false;
        persistedHash = persistedRequest.sha256Hash;
      } else {
        query = persisted.get(persistedRequest.sha256Hash);
        if (query === undefined) return false;
      }
    }
    // graphql-http's checks of the parameters (parseRequestParams); it words the refusals.
    const { operationName, variables, extensions } = params;
    if (typeof query !== 'string') return false;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return false;
    if (operationName != null && typeof operationName !== 'string') return false;
    if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return false;
    const request = { query, operationName: operationName as string | null | undefined, variables: variables as Record<string, unknown> | null | undefined };

    // From here on the fast path answers. A request with a persisted query that passes the checks
    // registers its query (or counts the stored one found), once, as graphql-http's path does; its
    // bytes are never an alias, since what they ask for depends on the store of queries.
    const persistence = persistedRequest === null ? null : { hash: persistedHash, query: request.query };
    const key = responses ? responseKey(request.query, request.operationName, request.variables) : undefined;
    if (key !== undefined) {
      const hit = responses!.get(served, key);
      lookups[hit ? 'hits' : 'misses']++;
      if (hit) {
        if (persistence) commitPersisted(persistence);
        else responses!.alias(served, method, raw, hit);
        return serveCached(req, res, state, hit, mediaType, true);
      }
    }

    const prepared = operations.prepare(request);
    if (prepared.errors) {
      state.prepared = prepared;
      return false;
    }
    const { operation, cost } = prepared;
    state.operation = operation.label;
    state.operationName = operation.operation.name?.value.slice(0, MAX_LOGGED_OPERATION_NAME);
    state.cost = cost;
    metrics.observeCost(cost);
    if (persistence) commitPersisted(persistence);
    state.executed = true;
    let result = operation.execute(startDeadline(config.limits.executionTimeoutMs), served.context, request.variables);
    if (isPromise(result)) result = await result;
    const contentType = CONTENT_TYPES[mediaType];
    if (result.errors) {
      state.hasErrors = true;
      logInternalErrors(state, result.errors);
      // As graphql-http serialises an execution result (its makeResponse).
      const text = JSON.stringify({ ...result, errors: result.errors.map(formatError) }, jsonErrorReplacer);
      setDeferredHeaders(res, state);
      await sendText(req, res, 200, text, contentType, { 'content-type': contentType, 'cache-control': NO_STORE });
      return true;
    }
    // No error, so no Error value for graphql-http's replacer to hide: plain JSON.stringify gives its bytes.
    const bytes = Buffer.from(JSON.stringify(result));
    const facts = { label: operation.label, operationName: state.operationName, cost };
    const entry = key === undefined ? undefined : responses!.set(served, served.version, key, bytes, facts);
    if (entry && !persistence) responses!.alias(served, method, raw, entry);
    await sendSuccess(req, res, state, bytes, contentType, entry);
    return true;
  }

  /** Registers a persisted query sent with its text, or counts the stored one found. */
  function commitPersisted(persistence: { hash: string | undefined; query: string }): void {
    if (persistence.hash !== undefined) persisted!.set(persistence.hash, persistence.query);
    else metrics.observeCache('apq', true);
  }

  /** Answers from the response cache; resolves true once sent (at once unless compressing). */
  function serveCached(req: IncomingMessage, res: ServerResponse, state: RequestState, entry: CachedResponse, mediaType: MediaType, counted = false): true | Promise<true> {
    if (!counted) lookups.hits++;
    state.operation = entry.label;
    state.operationName = entry.operationName;
    state.cost = entry.cost;
    state.executed = true;
    const sent = sendSuccess(req, res, state, entry.body, CONTENT_TYPES[mediaType], entry);
    return sent ? sent.then(() => true) : true;
  }

  /**
   * Sends a successful answer with its ETag and Cache-Control, or a 304 when the client has it.
   * Resolves at once unless the body has to be compressed first.
   */
  function sendSuccess(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    bytes: Buffer,
    contentType: string,
    entry?: CachedResponse,
  ): Promise<void> | void {
    const served = state.served!;
    const encoding = bytes.length >= MIN_COMPRESS_BYTES ? encodingOf(req.headers['accept-encoding']) : 'identity';
    const etag = entry ? entry.etag(contentType, encoding) : etagOf(served.version, contentType, bytes, encoding);
    const caching = cacheControl(config.cache, served.expiresAtMs, Date.now());
    const conditional = req.headers['if-none-match'];
    if (conditional !== undefined) {
      const hit = matchesIfNoneMatch(conditional, etag);
      metrics.observeCache('etag', hit);
      if (hit) {
        // A 304 carries the validators and caching headers a 200 would, and no body (RFC 9110 §15.4.5).
        if (state.headersSet) res.writeHead(304, { ETag: etag, 'Cache-Control': caching }).end();
        else res.writeHead(304, [...baseHeaders(state), 'ETag', etag, 'Cache-Control', caching]).end();
        return;
      }
    }
    if (encoding === 'identity') return writeSuccess(res, state, contentType, etag, caching, encoding, bytes);
    const encoded = entry ? entry.encoded(encoding) : compress(bytes, encoding);
    if (Buffer.isBuffer(encoded)) return writeSuccess(res, state, contentType, etag, caching, encoding, encoded);
    return encoded.then((body) => writeSuccess(res, state, contentType, etag, caching, encoding, body));
  }

  return async (req, res, state, search) => {
    // The same URL answers JSON or HTML depending on Accept, compressed depending on Accept-Encoding.
    if (state.headersSet) res.appendHeader('Vary', 'Accept, Accept-Encoding');
    if (req.method === 'GET' && !search.has('query') && !search.has('extensions') && (req.headers.accept ?? '').includes('text/html')) {
      setDeferredHeaders(res, state);
      await sendText(req, res, 200, playground.html, 'text/html; charset=utf-8', {
        'Content-Security-Policy': playground.contentSecurityPolicy,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
      return;
    }

    state.served = options.snapshot();
    responses?.use(state.served);
    if (await serveFast(req, res, state, search)) return;

    setDeferredHeaders(res, state);
    const [body, init] = await handler(toGraphqlRequest(req, state));
    const headers: Record<string, string> = { ...init.headers };
    let text = body;
    if (text === null) {
      // graphql-http answers some refusals (405, 406, 415) without a body.
      text = errorBody(CODE_OF_STATUS[init.status] ?? 'BAD_REQUEST', init.statusText);
      headers['content-type'] = JSON_TYPE;
    }
    if (!state.executed || state.hasErrors || init.status !== 200) {
      headers['cache-control'] = NO_STORE;
      await sendText(req, res, init.status, text, headers['content-type'] ?? JSON_TYPE, headers);
      return;
    }
    await sendSuccess(req, res, state, Buffer.from(text), headers['content-type'] ?? JSON_TYPE);
  };
}

/** Writes the head and body of a successful GraphQL answer (see sendSuccess in createGraphqlRoute). */
function writeSuccess(res: ServerResponse, state: RequestState, contentType: string, etag: string, caching: string, encoding: Encoding, body: Buffer): void {
  if (state.headersSet) {
    const headers: OutgoingHttpHeaders = { 'content-type': contentType, etag, 'cache-control': caching };
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    headers['content-length'] = body.length;
    endLater(res.writeHead(200, headers), body);
    return;
  }
  const headers = baseHeaders(state);
  headers.push('content-type', contentType, 'etag', etag, 'cache-control', caching);
  if (encoding !== 'identity') headers.push('content-encoding', encoding);
  headers.push('content-length', String(body.length));
  endLater(res.writeHead(200, headers), body);
}

/** Counts of the response cache's lookups, read by the metrics at each scrape. */
interface LookupTally {
  hits: number;
  misses: number;
}

/**
 * Registers the caches' metrics; they read the caches at each scrape, so a request only bumps a
 * number: `graphql_response_cache_lookups_total{result}`, `graphql_response_cache_bytes` and
 * `graphql_operation_cache_entries`.
 */
function registerCacheMetrics(metrics: Metrics, operations: OperationCache, responses: ResponseCache | null): LookupTally {
  const tally: LookupTally = { hits: 0, misses: 0 };
  const reported: LookupTally = { hits: 0, misses: 0 };
  const registers = [metrics.registry];
  new Counter({
    name: 'graphql_response_cache_lookups_total',
    help: 'Lookups in the response cache of GraphQL answers (hit: answered from it).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      for (const result of ['hits', 'misses'] as const) {
        this.inc({ result: result === 'hits' ? 'hit' : 'miss' }, tally[result] - reported[result]);
        reported[result] = tally[result];
      }
    },
  });
  new Gauge({
    name: 'graphql_response_cache_bytes',
    help: 'Bytes held by the response cache (0 when it is turned off).',
    registers,
    collect() {
      this.set(responses?.bytes ?? 0);
    },
  });
  new Gauge({
    name: 'graphql_operation_cache_entries',
    help: 'Checked operations held by the operation cache.',
    registers,
    collect() {
      this.set(operations.size);
    },
  });
  return tally;
}

/** The media types of GraphQL over HTTP (https://graphql.github.io/graphql-over-http/draft/#sec-Media-Types). */
type MediaType = 'application/graphql-response+json' | 'application/json';

const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/graphql-response+json': 'application/graphql-response+json; charset=utf-8',
  'application/json': 'application/json; charset=utf-8',
};

/** The media type graphql-http answers an `Accept` header with (its createHandler), or null for a 406. */
function acceptedMediaType(accept: string | undefined): MediaType | null {
  for (const item of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = item.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json';
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) {
      return 'application/json';
    }
  }
  return null;
}

/** graphql-http's JSON replacer: an Error other than a GraphQLError is sent as its message alone. */
function jsonErrorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error && !(value instanceof GraphQLError)) return { message: value.message };
  return value;
}

/** Most distinct header values remembered per memoized function; clients send a handful. */
const MEMO_SIZE = 64;

/** Remembers a function of one header value; forgets everything once it has seen too many values. */
function memoize<T>(fn: (header: string | undefined) => T): (header: string | undefined) => T {
  const known = new Map<string | undefined, T>();
  return (header) => {
    let value = known.get(header);
    if (value === undefined && !known.has(header)) {
      if (known.size >= MEMO_SIZE) known.clear();
      known.set(header, (value = fn(header)));
    }
    return value as T;
  };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

function createSchemaRoute(options: HttpOptions): Handle {
  const formats = ['sdl', 'queries'];
  return (req, res, _state, search) => {
    const format = search.get('format') ?? 'sdl';
    if (format === 'sdl') return sendText(req, res, 200, options.sdl, 'text/plain; charset=utf-8');
    if (format === 'queries') return sendText(req, res, 200, JSON.stringify(options.sampleQueries()), JSON_TYPE);
    sendError(res, 400, 'BAD_REQUEST', `Unknown format ${JSON.stringify(format)}; allowed values: ${formats.join(', ')}`);
  };
}

/** Codes of the bodiless refusals of graphql-http. */
const CODE_OF_STATUS: Record<number, ErrorCode> = { 405: 'METHOD_NOT_ALLOWED', 406: 'NOT_ACCEPTABLE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

const JSON_TYPE = 'application/json; charset=utf-8';

function payloadTooLarge(error: PayloadTooLargeError): GraphqlResponse {
  return [
    errorBody('PAYLOAD_TOO_LARGE', error.message),
    // The rest of the body is not read: the connection cannot carry another request after it.
    { status: 413, statusText: 'Payload Too Large', headers: { 'content-type': JSON_TYPE, connection: 'close' } },
  ];
}

/** As graphql-http decides it: application/json, in UTF-8 when a charset is given. */
function isJsonContentType(header: string | undefined): boolean {
  const [mediaType, charset = 'charset=utf-8'] = (header ?? '').replace(/\s/g, '').toLowerCase().split(';');
  return mediaType === 'application/json' && charset === 'charset=utf-8';
}

function toGraphqlRequest(req: IncomingMessage, state: RequestState): GraphqlRequest<IncomingMessage, RequestState> {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    // Read in parseRequestParams, with the size limit; graphql-http never gets here for a POST.
    body: null,
    raw: req,
    context: state,
  };
}

function pathOf(req: IncomingMessage): string {
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  return queryStart === -1 ? target : target.slice(0, queryStart);
}

/** Sends a text body, compressed when it is large enough and the client accepts a coding. */
async function sendText(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const bytes = Buffer.from(text);
  const encoding = bytes.length >= MIN_COMPRESS_BYTES ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
  await sendBytes(res, status, bytes, encoding, { ...headers, 'content-type': contentType });
}

async function sendBytes(res: ServerResponse, status: number, bytes: Buffer, encoding: Encoding, headers: Record<string, string>): Promise<void> {
  const body = encoding === 'identity' ? bytes : await compress(bytes, encoding);
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  if (bytes.length >= MIN_COMPRESS_BYTES && !hasVary(res, 'Accept-Encoding')) res.appendHeader('Vary', 'Accept-Encoding');
  res.writeHead(status, { ...headers, 'content-length': String(body.length) }).end(body);
}

function hasVary(res: ServerResponse, name: string): boolean {
  const vary = res.getHeader('Vary');
  const values = Array.isArray(vary) ? vary : vary === undefined ? [] : [String(vary)];
  return values.some((value) => value.split(',').some((item) => item.trim().toLowerCase() === name.toLowerCase()));
}

async function sendAsset(
  req: IncomingMessage,
  res: ServerResponse,
  asset: StaticAsset,
  compressed: Map<StaticAsset, Map<Encoding, Promise<Buffer>>>,
): Promise<void> {
  const encoding = asset.body.length >= MIN_COMPRESS_BYTES ? negotiateEncoding(req.headers['accept-encoding']) : 'identity';
  let body = asset.body;
  if (encoding !== 'identity') {
    // Compressed once, at best quality, on first request: the files never change while running.
    let byEncoding = compressed.get(asset);
    if (!byEncoding) compressed.set(asset, (byEncoding = new Map()));
    let pending = byEncoding.get(encoding);
    if (!pending) byEncoding.set(encoding, (pending = compress(asset.body, encoding, 'best')));
    body = await pending;
  }
  res.appendHeader('Vary', 'Accept-Encoding');
  res
    .writeHead(200, {
      'Content-Type': asset.contentType,
      'Content-Length': body.length,
      ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
      // The path holds a hash of the content (see createPlayground).
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    })
    .end(body);
}

function sendError(res: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  const body = errorBody(code, message);
  res
    .writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': NO_STORE })
    .end(body);
}
