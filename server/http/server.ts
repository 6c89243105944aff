import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { clientAddress } from './clientAddress.ts';
import { answerClientError } from './clientErrors.ts';
import { compress, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from './compress.ts';
import { createCors } from './cors.ts';
import { INTERNAL_ERROR_MESSAGE } from './formatError.ts';
import { createGeojsonRoute, GEOJSON_PATH, GPX_PATH } from './geojson/geojsonRoute.ts';
import { documentHash } from './graphql/documentHash.ts';
import { createGraphqlRoute, GRAPHQL_PATH } from './graphql/route.ts';
import { createLoadShedder, type LoadShedder, SHED_RETRY_AFTER_S } from './loadShedding.ts';
import { createResponseCache } from './graphql/responseCache.ts';
import { NO_STORE } from './httpCache.ts';
import type { GraphqlOutcome, HttpLogger, HttpMetrics, HttpOptions } from './httpOptions.ts';
import { API_DOCS_PATH, createApiDocs } from './apiDocs.ts';
import { createMapPage, MAP_PATH, type MapPage } from './map/mapPage.ts';
import { createPlayground, type Playground } from './playground.ts';
import { requestIdOf } from './requestId.ts';
import { setDeferredHeaders, setRequestHeaders, type Fail, type Handle, type RequestState } from './requestState.ts';
import { JSON_TYPE, sendError, sendPage, sendText } from './respond.ts';
import type { StaticAsset } from './staticAssets.ts';

/** URL path of the schema: the SDL, or with `?format=queries` the sample queries. */
export const SCHEMA_PATH = '/api/schema';

/** The HTTP server of the API, with what a graceful shutdown needs. */
export interface HttpService {
  /** A node:http server, not yet listening. */
  readonly server: Server;
  /** What it counts: {@link HttpOptions.metrics}. */
  readonly metrics: HttpMetrics;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** True once {@link HttpService.drain} was called. */
  readonly draining: boolean;
  /** From now on `/readyz` answers 503 and every response closes its connection. */
  drain(): void;
  /** Resolves when no request is in flight (at once if none is). */
  idle(): Promise<void>;
}

/** Where a response keeps the state of its request, for the listener of its 'close'. */
const STATE = Symbol('requestState');

type StatefulResponse = ServerResponse & { [STATE]: RequestState };

/** Whether a path belongs to the booking interface (server/booking/routes.ts answers those); its docs are served here. */
function isBookingPath(path: string): boolean {
  return (path === '/v1' || path.startsWith('/v1/')) && path !== API_DOCS_PATH && !path.startsWith(`${API_DOCS_PATH}/`);
}

/** Where the pages' assets are served; a request is counted and logged under these, not its file's path. */
const ASSET_ROUTES = [`${GRAPHQL_PATH}/assets`, `${API_DOCS_PATH}/assets`, `${MAP_PATH}/assets`];

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
 *   behind the limits of server/execution/limits.ts, with automatic persisted queries, ETag/304 and
 *   Cache-Control on successful answers; a browser (GET, `Accept` with text/html, no query) gets
 *   the GraphiQL playground, whose assets are served under `/api/graphql/assets/`; it opens the
 *   sample queries as tabs.
 * - `GET /api/schema`: the SDL as text/plain; `?format=queries`: the sample queries as JSON.
 * - `GET /api/geojson/{area}`, `/api/geojson/{area}/{id}` and `/api/gpx/{area}/{id}`: a list query's
 *   records as GeoJSON, one record as a Feature, a line as GPX (server/http/geojson/geojsonRoute.ts).
 * - `GET /map`: the map page (server/http/map/mapPage.ts), its assets under `/map/assets/`.
 * - `GET /` (HTML) and `GET /api/status` (JSON): the status report; `GET /healthz`: the process
 *   is alive; `GET /readyz`: 200 while serving, 503 while draining; `GET /metrics`: Prometheus.
 * - `GET /v1/docs`: the booking interface's OpenAPI document rendered by Redoc, when
 *   `bookingDocument` is given; its assets are served under `/v1/docs/assets/`.
 * - CORS on every path (see {@link createCors}); an unknown path is a 404, a method a path does
 *   not answer is a 405 (with `Allow`). Bodies of 1 KiB or more are compressed (br, gzip) when accepted.
 *
 * Every error body is `{ "errors": [{ message, extensions: { code } }] }` (codes: ERROR_CODES in
 * server/http/formatError.ts). Unexpected errors are logged in full with the request id and reach the
 * client only as "Internal server error". Every response carries `X-Request-Id`; every request is
 * logged once it is answered (id, method, path, the status the client got, the codes of its
 * errors, duration; for GraphQL its outcome, operation, operation name and document hash; never
 * the query string, query text, variables or body) and counted in the metrics.
 *
 * Reads the playground's, the docs' and the map page's files once, now.
 *
 * @throws Error when an allowed origin is malformed or a playground or docs bundle is missing
 */
export function createHttpService(options: HttpOptions): HttpService {
  const { metrics } = options;
  const lifecycle: Lifecycle = { draining: false, inFlight: 0, idleWaiters: [] };
  const playground = createPlayground({ endpoint: GRAPHQL_PATH });
  const fail = failWith(options.logger);
  // One response cache for the GraphQL and GeoJSON answers, within one budget.
  const responses = options.config.responseCacheBytes > 0 ? createResponseCache(options.config.responseCacheBytes) : null;
  const graphqlRoute = createGraphqlRoute(options, playground, metrics, fail, responses);
  const routes = createRoutes(options, lifecycle, graphqlRoute, playground, createMapPage());
  const shedder = createLoadShedder(options.config.shedEventLoopDelayMs, metrics.registry);
  const geojsonRoute: Route = { methods: ['GET', 'HEAD'], handle: createGeojsonRoute(options, responses, shedder) };
  const handle = createDispatcher(options, routes, graphqlRoute, geojsonRoute, shedder);
  const server = createRequestServer(options, lifecycle, routes, handle, fail);
  server.on('clientError', answerClientError);
  server.on('close', () => shedder.close());
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

/** Whether the service drains, and the requests it is answering. */
interface Lifecycle {
  draining: boolean;
  inFlight: number;
  /** Called once no request is in flight. */
  idleWaiters: (() => void)[];
}

/** Every path the service answers but /v1 (the booking interface's), by path. */
function createRoutes(options: HttpOptions, lifecycle: Lifecycle, graphqlRoute: Handle, playground: Playground, mapPage: MapPage): Map<string, Route> {
  const { status } = options;
  const routes = new Map<string, Route>([
    [GRAPHQL_PATH, { methods: ['GET', 'POST'], handle: graphqlRoute }],
    [SCHEMA_PATH, { methods: ['GET', 'HEAD'], handle: createSchemaRoute(options) }],
    [
      '/',
      {
        methods: ['GET', 'HEAD'],
        handle: (req, res) => {
          const page = status.page(!lifecycle.draining);
          return sendText(req, res, 200, page.html, 'text/html; charset=utf-8', { 'Content-Security-Policy': page.contentSecurityPolicy, 'Cache-Control': NO_STORE });
        },
      },
    ],
    [
      MAP_PATH,
      {
        methods: ['GET', 'HEAD'],
        handle: (req, res) => sendPage(req, res, mapPage.html, mapPage.contentSecurityPolicy),
      },
    ],
    ['/api/status', { methods: ['GET', 'HEAD'], handle: (req, res) => sendText(req, res, 200, JSON.stringify(status.report(!lifecycle.draining)), JSON_TYPE, { 'Cache-Control': NO_STORE }) }],
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
    ['/metrics', { methods: ['GET'], quiet: true, handle: createMetricsRoute(options) }],
  ]);
  const assets = new Map([...playground.assets, ...mapPage.assets]);
  if (options.bookingDocument !== undefined) {
    const docs = createApiDocs({ documentUrl: options.bookingDocument });
    routes.set(API_DOCS_PATH, {
      methods: ['GET', 'HEAD'],
      handle: (req, res) => sendPage(req, res, docs.html, docs.contentSecurityPolicy),
    });
    for (const [path, asset] of docs.assets) assets.set(path, asset);
  }
  const compressedAssets = new Map<StaticAsset, Map<Encoding, Promise<Buffer>>>();
  for (const [path, asset] of assets) {
    routes.set(path, { methods: ['GET', 'HEAD'], quiet: true, handle: (req, res) => sendAsset(req, res, asset, compressedAssets) });
  }
  return routes;
}

/** `/metrics`: this process's registry, or in a cluster worker every worker's metrics. */
function createMetricsRoute(options: HttpOptions): Handle {
  const { logger, metrics } = options;
  return async (req, res) => {
    let text: string;
    try {
      text = options.clusterMetrics ? await options.clusterMetrics.scrape() : await metrics.registry.metrics();
    } catch (error) {
      // An incomplete sum would read as a counter reset: the scrape fails instead.
      logger.warn({ err: error }, `metrics scrape refused: ${(error as Error).message}`);
      return sendText(req, res, 503, `metrics unavailable: ${(error as Error).message}\n`, 'text/plain; charset=utf-8', { 'Cache-Control': NO_STORE });
    }
    return sendText(req, res, 200, text, metrics.registry.contentType, { 'Cache-Control': NO_STORE });
  };
}

/**
 * Picks the answer of a request: the GraphQL route, the booking interface, CORS preflights, a
 * route, or a 404 or 405.
 */
function createDispatcher(options: HttpOptions, routes: Map<string, Route>, graphqlRoute: Handle, geojsonRoute: Route, shedder: LoadShedder) {
  const cors = createCors(options.config.allowedOrigins);
  const allowed = new Map([...routes].map(([path, route]) => [path, [...route.methods, 'OPTIONS'].join(', ')]));
  const geojsonAllow = [...geojsonRoute.methods, 'OPTIONS'].join(', ');

  // Not async itself: an async function returning the GraphQL route's promise would wrap it in
  // another, which costs the common case a promise and its turns through the microtask queue.
  function handle(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> | void {
    // Split by hand: `new URL('//host/x', base)` would read a path starting with // as a host.
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    // Left unparsed: most requests never read it, and a cached GET would pay for parsing it.
    const query = queryStart === -1 ? '' : target.slice(queryStart + 1);
    // The common case first: a GraphQL query without CORS, whose headers go out in one go.
    if (path === GRAPHQL_PATH && req.headers.origin === undefined && (req.method === 'GET' || req.method === 'POST')) {
      state.route = GRAPHQL_PATH;
      if (shedder.shed(GRAPHQL_PATH)) return shed(res, state);
      return graphqlRoute(req, res, state, query);
    }
    return handleOther(req, res, state, path, query);
  }

  /** The answer to a request shed while the event loop is late (loadShedding.ts). */
  function shed(res: ServerResponse, state: RequestState): void {
    setRequestHeaders(res, state);
    state.codes = ['OVERLOADED'];
    sendError(res, 503, 'OVERLOADED', `The server is overloaded; retry in ${SHED_RETRY_AFTER_S} s`, { 'Retry-After': String(SHED_RETRY_AFTER_S) });
  }

  async function handleOther(req: IncomingMessage, res: ServerResponse, state: RequestState, path: string, query: string): Promise<void> {
    setRequestHeaders(res, state);
    if (options.booking && isBookingPath(path)) {
      // Labelled first: the response may close, and the request be logged, before the booking
      // interface resolves (a cluster worker's forwarder resolves once the answer has ended).
      state.route = '/v1';
      if (await options.booking(req, res)) return;
      state.route = 'other';
    }
    if (cors(req, res)) return;

    // Every path under GEOJSON_PATH/ and GPX_PATH/ is the GeoJSON route's: it names the areas it answers.
    const isGpx = path.startsWith(`${GPX_PATH}/`);
    const isGeojson = isGpx || path.startsWith(`${GEOJSON_PATH}/`);
    const route = isGeojson ? geojsonRoute : routes.get(path);
    if (route === undefined) {
      state.codes = ['NOT_FOUND'];
      sendError(res, 404, 'NOT_FOUND', `Nothing at ${path}; the API is at ${GRAPHQL_PATH}, its status at /`);
      return;
    }
    state.route = ASSET_ROUTES.find((route) => path.startsWith(`${route}/`)) ?? (isGeojson ? (isGpx ? GPX_PATH : GEOJSON_PATH) : path);
    const allow = isGeojson ? geojsonAllow : allowed.get(path)!;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: allow }).end();
      return;
    }
    if (!route.methods.includes(req.method ?? '')) {
      state.codes = ['METHOD_NOT_ALLOWED'];
      sendError(res, 405, 'METHOD_NOT_ALLOWED', `${path} answers ${allow}, not ${req.method}`, { Allow: allow });
      return;
    }
    // The probes and the metrics are always answered; the routes that run queries are shed.
    if ((isGeojson || route.handle === graphqlRoute) && shedder.shed(state.route)) return shed(res, state);
    await route.handle(req, res, state, query);
  }

  return handle;
}

/**
 * The node:http server: gives each request its state, answers it with `handle`, and once its
 * response closes counts it, logs it and wakes whoever waits for the service to be idle.
 */
function createRequestServer(
  options: HttpOptions,
  lifecycle: Lifecycle,
  routes: Map<string, Route>,
  handle: (req: IncomingMessage, res: ServerResponse, state: RequestState) => Promise<void> | void,
  fail: Fail,
): Server {
  const { config, logger, trustedProxies = 0, tracing } = options;
  const finish = createFinish(options, routes);

  // Shared by every response, which carries its state: a closure per request costs on the hot path.
  function onClose(this: StatefulResponse): void {
    lifecycle.inFlight--;
    finish(this.req, this, this[STATE]);
    if (lifecycle.inFlight === 0) for (const resolve of lifecycle.idleWaiters.splice(0)) resolve();
  }

  return createServer(
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
        // Read on arrival: once an aborted request's socket is gone, so is its peer's address.
        client: logger.isLevelEnabled('info') ? clientAddress(req, trustedProxies) : undefined,
        arrivedAt: performance.now(),
        route: 'other',
        operation: '-',
        operationName: undefined,
        graphql: false,
        codes: undefined,
        query: undefined,
        documentHash: undefined,
        cacheHit: false,
        passedChecks: false,
        hasErrors: false,
        trace: tracing?.start(req),
        closeConnection: lifecycle.draining,
        headersSet: false,
      };
      lifecycle.inFlight++;
      (res as StatefulResponse)[STATE] = state;
      res.on('close', onClose);
      // Not async: most answers are sent before the handler returns, and an async function costs
      // each of them a promise. Anything thrown is answered by `fail`.
      try {
        const pending = state.trace ? state.trace.within(() => handle(req, res, state)) : handle(req, res, state);
        if (pending) pending.catch((error: unknown) => fail(req, res, state, error));
      } catch (error) {
        fail(req, res, state, error);
      }
    },
  );
}

/** Logs a failed request's error and answers 500, or cuts the connection once the head is out. */
function failWith(logger: HttpLogger): Fail {
  return (req, res, state, error) => {
    logger.error({ reqId: state.id, err: error, method: req.method, path: pathOf(req) }, 'internal error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    setDeferredHeaders(res, state);
    state.codes = ['INTERNAL_SERVER_ERROR'];
    sendError(res, 500, 'INTERNAL_SERVER_ERROR', INTERNAL_ERROR_MESSAGE);
  };
}

/** Counts an answered (or aborted) request in the metrics and writes its log line. */
function createFinish(options: HttpOptions, routes: Map<string, Route>) {
  const { logger, metrics } = options;
  return (req: IncomingMessage, res: ServerResponse, state: RequestState): void => {
    const durationS = (performance.now() - state.arrivedAt) / 1000;
    const status = res.writableFinished ? res.statusCode : 499;
    metrics.observeRequest(state.route, state.operation, status, durationS);
    const outcome = state.graphql ? outcomeOf(state, status) : undefined;
    if (outcome !== undefined) metrics.observeGraphql(state.operationName, outcome, state.codes);
    state.trace?.end(state.route, status);
    const quiet = routes.get(state.route)?.quiet === true || ASSET_ROUTES.includes(state.route);
    const level = quiet ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        reqId: state.id,
        client: state.client,
        method: req.method,
        path: pathOf(req),
        status,
        codes: state.codes?.length ? state.codes : undefined,
        durationMs: Math.round(durationS * 1e4) / 10,
        outcome,
        cache: state.cacheHit ? 'hit' : undefined,
        rootField: state.operation === '-' ? undefined : state.operation,
        operationName: state.operationName,
        documentHash: state.documentHash ?? (state.query === undefined ? undefined : documentHash(state.query)),
        cost: state.cost,
        snapshot: state.served?.version,
      },
      status === 499 ? 'request aborted' : 'request',
    );
  };
}

/** What became of a GraphQL request, once answered (see {@link GraphqlOutcome}). */
function outcomeOf(state: RequestState, status: number): GraphqlOutcome {
  if (status === 499) return 'aborted';
  if (state.cacheHit) return 'cache_hit';
  if (status >= 500) return 'error';
  if (!state.passedChecks) return 'refused';
  return state.hasErrors ? 'error' : 'ok';
}

function createSchemaRoute(options: HttpOptions): Handle {
  const formats = ['sdl', 'queries'];
  return (req, res, state, query) => {
    const format = new URLSearchParams(query).get('format') ?? 'sdl';
    if (format === 'sdl') return sendText(req, res, 200, options.sdl, 'text/plain; charset=utf-8');
    if (format === 'queries') return sendText(req, res, 200, JSON.stringify(options.sampleQueries()), JSON_TYPE);
    state.codes = ['BAD_REQUEST'];
    sendError(res, 400, 'BAD_REQUEST', `Unknown format ${JSON.stringify(format)}; allowed values: ${formats.join(', ')}`);
  };
}

function pathOf(req: IncomingMessage): string {
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  return queryStart === -1 ? target : target.slice(0, queryStart);
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
