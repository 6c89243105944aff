import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getOperationAST, type GraphQLSchema } from 'graphql';
import { createHandler, type OperationContext, type Request as GraphqlRequest } from 'graphql-http';
import { createCors } from './cors.ts';
import { formatError, INTERNAL_ERROR_MESSAGE, isInternalError } from './formatError.ts';
import { createPlayground, type Playground, type StaticAsset } from './playground.ts';

/** URL path of the GraphQL endpoint (and of the playground, for a browser). */
export const GRAPHQL_PATH = '/api/graphql';

/** URL path of the schema: the SDL, or with `?format=queries` the sample queries. */
export const SCHEMA_PATH = '/api/schema';

/** The query the playground shows on a first visit unless told otherwise. */
const DEFAULT_PLAYGROUND_QUERY = '{ types { id title } }';

/** What the HTTP layer serves. */
export interface HttpOptions {
  /** The executable schema. */
  schema: GraphQLSchema;
  /**
   * Returns the GraphQL context value; called once per GraphQL request, so the value (e.g. the
   * current snapshot) may be swapped at runtime. May return a promise.
   */
  context: () => unknown;
  /**
   * Browser origins granted by CORS besides localhost, 127.0.0.1 and [::1] (any port), e.g.
   * `['https://example.com']`.
   */
  allowedOrigins: readonly string[];
  /** The schema as SDL, served at `/api/schema`. */
  sdl: string;
  /** Returns the sample queries served as JSON at `/api/schema?format=queries`; called per request. */
  sampleQueries: () => unknown;
  /** The query the playground shows on a first visit; default `{ types { id title } }`. */
  playgroundQuery?: string;
}

/** One path's handler, with the methods it answers (OPTIONS is answered for every path). */
interface Route {
  methods: readonly string[];
  handle: (req: IncomingMessage, res: ServerResponse, search: URLSearchParams) => Promise<void> | void;
}

/**
 * Creates the request listener of the API:
 * - `GET|POST /api/graphql`: GraphQL over HTTP (graphql-http; https://graphql.github.io/graphql-over-http/draft/);
 *   a browser (GET, `Accept` with text/html, no `query` parameter) gets the GraphiQL playground,
 *   whose assets are served under `/api/graphql/assets/`.
 * - `GET /api/schema`: the SDL as text/plain; `?format=queries`: the sample queries as JSON;
 *   another format is a 400.
 * - CORS on every path (see {@link createCors}); an unknown path is a 404, a method a path does
 *   not answer is a 405 (with `Allow`).
 *
 * Errors outside GraphQL have the shape `{ "error": { "code", "message" } }`. Unexpected errors
 * are logged in full with console.error and reach the client only as "Internal server error"
 * with code INTERNAL_SERVER_ERROR; `GraphQLError`s thrown by resolvers pass through unchanged.
 *
 * Reads the playground's bundles from node_modules once, now.
 *
 * @throws Error when an allowed origin is malformed or a playground bundle is missing
 */
export function createHttpHandler(options: HttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const cors = createCors(options.allowedOrigins);
  const playground = createPlayground({
    endpoint: GRAPHQL_PATH,
    defaultQuery: options.playgroundQuery ?? DEFAULT_PLAYGROUND_QUERY,
  });
  const routes = new Map<string, Route>([
    [GRAPHQL_PATH, { methods: ['GET', 'POST'], handle: createGraphqlRoute(options, playground) }],
    [SCHEMA_PATH, { methods: ['GET', 'HEAD'], handle: createSchemaRoute(options) }],
  ]);
  for (const [path, asset] of playground.assets) {
    routes.set(path, { methods: ['GET', 'HEAD'], handle: (_req, res) => sendAsset(res, asset) });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (cors(req, res)) return;
    // Split by hand: `new URL('//host/x', base)` would read a path starting with // as a host.
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const search = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));

    const route = routes.get(path);
    if (route === undefined) {
      sendError(res, 404, 'NOT_FOUND', `Nothing at ${path}; the API is at ${GRAPHQL_PATH}`);
      return;
    }
    const allow = [...route.methods, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: allow }).end();
      return;
    }
    if (!route.methods.includes(req.method ?? '')) {
      sendError(res, 405, 'METHOD_NOT_ALLOWED', `${path} answers ${allow}, not ${req.method}`, { Allow: allow });
      return;
    }
    await route.handle(req, res, search);
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`Internal error answering ${req.method} ${req.url}:`, error);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendError(res, 500, 'INTERNAL_SERVER_ERROR', INTERNAL_ERROR_MESSAGE);
    });
  };
}

/**
 * Creates a node:http server answering with {@link createHttpHandler}; call `listen` on it.
 *
 * @throws Error as {@link createHttpHandler}
 */
export function createHttpServer(options: HttpOptions): Server {
  return createServer(createHttpHandler(options));
}

function createGraphqlRoute(options: HttpOptions, playground: Playground): Route['handle'] {
  const handler = createHandler<IncomingMessage, undefined, OperationContext>({
    schema: options.schema,
    // graphql-http only passes context values through to the resolvers.
    context: () => options.context() as OperationContext,
    formatError,
    onOperation: (_req, args, result) => {
      for (const error of result.errors ?? []) {
        if (isInternalError(error)) {
          const path = error.path?.join('.') ?? '(no path)';
          const operation = getOperationAST(args.document, args.operationName)?.name?.value ?? '(anonymous)';
          console.error(`Internal error in operation ${operation} at ${path}:`, error.originalError);
        }
      }
    },
  });

  return async (req, res, search) => {
    // The same URL answers JSON or HTML depending on Accept.
    res.appendHeader('Vary', 'Accept');
    if (req.method === 'GET' && !search.has('query') && (req.headers.accept ?? '').includes('text/html')) {
      res
        .writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': playground.contentSecurityPolicy,
          'Cache-Control': 'no-cache',
          'X-Content-Type-Options': 'nosniff',
          'Content-Length': Buffer.byteLength(playground.html),
        })
        .end(playground.html);
      return;
    }

    let response;
    try {
      response = await handler(toGraphqlRequest(req));
    } catch (error) {
      // graphql-http rejects only when our own code failed (e.g. the context getter).
      console.error(`Internal error answering ${req.method} ${req.url}:`, error);
      sendJson(res, 500, { errors: [{ message: INTERNAL_ERROR_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      return;
    }
    const [body, init] = response;
    res
      .writeHead(init.status, init.statusText, { ...init.headers, 'Content-Length': body === null ? 0 : Buffer.byteLength(body) })
      .end(body);
  };
}

function createSchemaRoute(options: HttpOptions): Route['handle'] {
  const formats = ['sdl', 'queries'];
  return (_req, res, search) => {
    const format = search.get('format') ?? 'sdl';
    if (format === 'sdl') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(options.sdl) }).end(options.sdl);
    } else if (format === 'queries') {
      sendJson(res, 200, options.sampleQueries());
    } else {
      sendError(res, 400, 'BAD_REQUEST', `Unknown format ${JSON.stringify(format)}; allowed values: ${formats.join(', ')}`);
    }
  };
}

function toGraphqlRequest(req: IncomingMessage): GraphqlRequest<IncomingMessage, undefined> {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    body: () => readBody(req),
    raw: req,
    context: undefined,
  };
}

/** Reads the whole body as UTF-8 (graphql-http accepts no other charset); rejects if the client aborts. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendAsset(res: ServerResponse, asset: StaticAsset): void {
  res
    .writeHead(200, {
      'Content-Type': asset.contentType,
      'Content-Length': asset.body.length,
      // The path holds a hash of the content (see createPlayground).
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    })
    .end(asset.body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res
    .writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
    .end(body);
}

function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { code, message } }, headers);
}
