/**
 * The GraphQL endpoint. A fast path answers well-formed requests from the response cache, or
 * writes them from the record bytes cache (server/execution/json/answerWriter.ts) or executes them (graphql-jit),
 * from the operation cache; graphql-http answers every other request, so that refusals are worded
 * and coded as it words and codes them.
 */

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { GraphQLError, OperationTypeNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import {
  createHandler,
  parseRequestParams,
  type OperationContext,
  type Request as GraphqlRequest,
  type Response as GraphqlResponse,
} from 'graphql-http';
import { Counter, Gauge } from 'prom-client';
import { JsonTooDeepError, MAX_JSON_DEPTH } from './canonicalJson.ts';
import { compress, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from '../compress.ts';
import { startDeadline, withDeadline } from '../../execution/deadline.ts';
import { endAtEndOfTurn } from './endAtEndOfTurn.ts';
import { errorBody, formatError, isInternalError, type ErrorCode } from '../formatError.ts';
import type { HttpOptions, ServedSnapshot } from '../requestState.ts';
import { cacheControl, etagOf, matchesIfNoneMatch, NO_STORE } from '../httpCache.ts';
import { isPromise } from '../../util/isPromise.ts';
import { jsonBytes } from '../../execution/json/jsonBytes.ts';
import { createQueryChecker } from '../../execution/limits.ts';
import type { Metrics } from '../../ops/metrics.ts';
import { createOperationCache, type OperationCache } from '../../execution/engine.ts';
import {
  createPersistedQueries,
  hashQuery,
  persistedQueryNotFound,
  persistedQueryNotSupported,
  readPersistedQuery,
  type PersistedQueryRequest,
} from './persistedQueries.ts';
import type { Playground } from '../playground.ts';
import { PayloadTooLargeError, readBody, readBodyThen } from '../readBody.ts';
import { baseHeaders, setDeferredHeaders, type Fail, type Handle, type RequestState } from '../requestState.ts';
import { JSON_TYPE, sendText } from '../respond.ts';
import { createRecordBytesCache, type RecordBytesCache } from '../../execution/json/recordBytesCache.ts';
import { createResponseCache, responseKey, type CachedResponse, type ResponseCache, type ResponseFacts } from './responseCache.ts';
import { utf8Bytes } from '../../execution/json/utf8Bytes.ts';

/** URL path of the GraphQL endpoint (and of the playground, for a browser). */
export const GRAPHQL_PATH = '/api/graphql';

/** Longest client operation name written to the logs; the rest is cut. */
const MAX_LOGGED_OPERATION_NAME = 100;

/**
 * Longest `operationName` a request may send. Error messages quote it ("Unknown operation named
 * …"), and a client should not have the server send back whatever it sent; no real operation
 * name comes near it.
 */
export const MAX_OPERATION_NAME_CHARS = 256;

/**
 * The handler of {@link GRAPHQL_PATH} for GET and POST: the playground for a browser, otherwise
 * the fast path, then graphql-http for what the fast path leaves.
 */
export function createGraphqlRoute(options: HttpOptions, playground: Playground, metrics: Metrics, fail: Fail): Handle {
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
  const records = config.recordCacheBytes > 0 ? createRecordBytesCache(config.recordCacheBytes) : null;
  const persisted = config.apqCacheBytes > 0 ? createPersistedQueries(config.apqCacheBytes, options.persistedQueries) : null;
  const lookups = registerCacheMetrics(metrics, operations, responses, records);
  const mediaTypeOf = memoize(acceptedMediaType);
  const encodingOf = memoize(negotiateEncoding);
  const isJson = memoize(isJsonContentType);

  // Requests the fast path below does not take are answered by graphql-http: errors in the
  // request, refusals of the checks, the media types it refuses.
  const handler = createHandler<IncomingMessage, RequestState, OperationContext>({
    schema: executableSchema,
    formatError,
    parseRequestParams: async (req) => {
      const state = req.context;
      if (req.method === 'POST' && isJsonContentType(req.raw.headers['content-type'])) {
        const bytes = state.body ?? (await readBody(req.raw, config.limits.maxBodyBytes).catch((error: unknown) => error as Error));
        if (bytes instanceof Error) {
          if (!(bytes instanceof PayloadTooLargeError)) throw bytes;
          return payloadTooLarge(bytes);
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
      if ((params.operationName?.length ?? 0) > MAX_OPERATION_NAME_CHARS) return operationNameTooLong(params.operationName!);
      const request = { query: params.query, operationName: params.operationName, variables: params.variables };
      const prepared = state.prepared ?? operations.prepare(request, state.served!.sizes);
      if (prepared.errors) return prepared.errors;
      const { operation } = prepared;
      if (operation.operation.operation !== 'query') {
        const refused = refuseOperationType(options.schema, operation.operation, req.method);
        if (refused) return refused;
      }
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

  /** Takes the snapshot the request is answered from. */
  function takeSnapshot(state: RequestState): ServedSnapshot {
    const served = options.snapshot();
    state.served = served;
    responses?.use(served);
    records?.use(served);
    return served;
  }

  /**
   * Takes over once the body of a POST is read (readBodyThen): see {@link servePost}. Whatever
   * it throws or rejects with is answered as the HTTP layer answers it (`fail`): this runs in
   * the request's event listeners, where nobody else would catch it.
   */
  function onPostBody(post: PostRequest, error: Error | null, body?: Buffer): void {
    const { req, res, state } = post;
    try {
      const pending = servePost(post, error, body);
      if (pending) pending.catch((failure: unknown) => fail(req, res, state, failure));
    } catch (failure) {
      fail(req, res, state, failure);
    }
  }

  /**
   * Answers a POST whose body is read: from the response cache when its bytes are an alias of a
   * cached answer, at once and without a promise (the common case under load, and the cheapest);
   * else by the fast path when the body is well-formed; else by graphql-http.
   */
  function servePost({ req, res, state, mediaType }: PostRequest, error: Error | null, raw?: Buffer): Promise<void> | void {
    // graphql-http's path reads the body, or the error that ended its reading, from here.
    state.body = error ?? raw!;
    const served = takeSnapshot(state);
    if (raw === undefined) return serveSlow(req, res, state);
    const hit = responses?.getByAlias(served, 'POST', raw);
    if (hit) return serveCached(req, res, state, hit, mediaType);
    let data: unknown;
    try {
      data = JSON.parse(raw.toString('utf8'));
    } catch {
      return serveSlow(req, res, state);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return serveSlow(req, res, state);
    return orSlow(serveFast(req, res, state, mediaType, 'POST', raw, data as Record<string, unknown>), req, res, state);
  }

  /**
   * Answers a GET: as {@link servePost} answers a POST, the request's bytes being its query
   * string (`query`, past the target's first `?`), parsed only when they are not an alias.
   */
  function serveGet(req: IncomingMessage, res: ServerResponse, state: RequestState, query: string, mediaType: MediaType): Promise<void> | void {
    // graphql-http reads only up to a second `?`, `query` past it: leave those to graphql-http.
    if (query === '' || query.includes('?')) return serveSlow(req, res, state);
    let raw: Buffer | undefined;
    if (responses) {
      raw = Buffer.from(query);
      const hit = responses.getByAlias(state.served!, 'GET', raw);
      if (hit) return serveCached(req, res, state, hit, mediaType);
    }
    const search = new URLSearchParams(query);
    const params: Record<string, unknown> = { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined };
    const variables = search.get('variables');
    const extensions = search.get('extensions');
    try {
      if (variables) params.variables = JSON.parse(variables);
      if (extensions) params.extensions = JSON.parse(extensions);
    } catch {
      return serveSlow(req, res, state);
    }
    return orSlow(serveFast(req, res, state, mediaType, 'GET', raw, params), req, res, state);
  }

  /** Answers by graphql-http what the fast path left (it resolved false). */
  async function orSlow(fast: Promise<boolean>, req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    if (!(await fast)) await serveSlow(req, res, state);
  }

  /**
   * The fast path: a request whose parameters are well-formed and whose operation passes the
   * checks, answered from the response cache or executed from the operation cache, with the bytes
   * graphql-http would send. Resolves false, having answered nothing, for any other request:
   * graphql-http answers it then (with what the fast path learned: the refusal of the checks).
   * @param raw the request's bytes (POST body, GET query string) when the response cache is on
   */
  async function serveFast(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    mediaType: MediaType,
    method: 'GET' | 'POST',
    raw: Buffer | undefined,
    params: Record<string, unknown>,
  ): Promise<boolean> {
    const served = state.served!;
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
    if (operationName != null && (typeof operationName !== 'string' || operationName.length > MAX_OPERATION_NAME_CHARS)) return false;
    if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return false;
    const request = { query, operationName: operationName as string | null | undefined, variables: variables as Record<string, unknown> | null | undefined };

    // From here on the fast path answers. A request with a persisted query that passes the checks
    // registers its query (or counts the stored one found), once, as graphql-http's path does; its
    // bytes are never an alias, since what they ask for depends on the store of queries.
    const persistence = persistedRequest === null ? null : { hash: persistedHash, query: request.query };
    let key: string | undefined;
    try {
      key = responses ? responseKey(request.query, request.operationName, request.variables) : undefined;
    } catch (error) {
      if (!(error instanceof JsonTooDeepError)) throw error;
      setDeferredHeaders(res, state);
      await sendText(req, res, 400, errorBody('BAD_REQUEST', VARIABLES_TOO_DEEP), JSON_TYPE, { 'cache-control': NO_STORE });
      return true;
    }
    if (key !== undefined) {
      const hit = responses!.get(served, key);
      lookups[hit ? 'hits' : 'misses']++;
      if (hit) {
        if (persistence) commitPersisted(persistence);
        else responses!.alias(served, method, raw!, hit);
        await serveCached(req, res, state, hit, mediaType, true);
        return true;
      }
    }

    const prepared = operations.prepare(request, served.sizes);
    // graphql-http's path words the refusals, and those of operations other than queries.
    if (prepared.errors || prepared.operation.operation.operation !== OperationTypeNode.QUERY) {
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
    const contentType = CONTENT_TYPES[mediaType];
    const facts = { label: operation.label, operationName: state.operationName, cost };
    let result = operation.answer(startDeadline(config.limits.executionTimeoutMs), served.context, request.variables, records);
    if (isPromise(result)) result = await result;
    if (Buffer.isBuffer(result)) {
      await sendAnswer(req, res, state, served, method, raw, key, persistence, result, contentType, facts);
      return true;
    }
    if (result.errors) {
      state.hasErrors = true;
      logInternalErrors(state, result.errors);
      // As graphql-http serialises an execution result (its makeResponse).
      const text = JSON.stringify({ ...result, errors: result.errors.map(formatError) }, jsonErrorReplacer);
      setDeferredHeaders(res, state);
      await sendText(req, res, 200, text, contentType, { 'content-type': contentType, 'cache-control': NO_STORE });
      return true;
    }
    // No error, so no Error value for graphql-http's replacer to hide: plain JSON.stringify's bytes.
    await sendAnswer(req, res, state, served, method, raw, key, persistence, jsonBytes(result), contentType, facts);
    return true;
  }

  /** Sends the bytes of a successful answer the fast path computed, kept in the response cache when it is on. */
  function sendAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    served: ServedSnapshot,
    method: 'GET' | 'POST',
    raw: Buffer | undefined,
    key: string | undefined,
    persistence: object | null,
    bytes: Buffer,
    contentType: string,
    facts: ResponseFacts,
  ): Promise<void> | void {
    const entry = key === undefined ? undefined : responses!.set(served, served.version, key, bytes, facts);
    if (entry && !persistence) responses!.alias(served, method, raw!, entry);
    return sendSuccess(req, res, state, bytes, contentType, entry);
  }

  /** Registers a persisted query sent with its text, or counts the stored one found. */
  function commitPersisted(persistence: { hash: string | undefined; query: string }): void {
    if (persistence.hash !== undefined) persisted!.set(persistence.hash, persistence.query);
    else metrics.observeCache('apq', true);
  }

  /** Answers from the response cache; at once unless compressing, else resolves once sent. */
  function serveCached(req: IncomingMessage, res: ServerResponse, state: RequestState, entry: CachedResponse, mediaType: MediaType, counted = false): Promise<void> | void {
    if (!counted) lookups.hits++;
    state.operation = entry.label;
    state.operationName = entry.operationName;
    state.cost = entry.cost;
    state.executed = true;
    return sendSuccess(req, res, state, entry.body, CONTENT_TYPES[mediaType], entry);
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
      const hit = matchesIfNoneMatch(conditional, etag, req.method);
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

  /** Answers by graphql-http: what the fast path does not take, worded and coded as graphql-http does. */
  async function serveSlow(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
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
    await sendSuccess(req, res, state, utf8Bytes(text), headers['content-type'] ?? JSON_TYPE);
  }

  async function servePlayground(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    setDeferredHeaders(res, state);
    await sendText(req, res, 200, playground.html, 'text/html; charset=utf-8', {
      'Content-Security-Policy': playground.contentSecurityPolicy,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
  }

  // Not async: a request answered from the response cache is answered without a promise.
  return (req, res, state, query) => {
    // The same URL answers JSON or HTML depending on Accept, compressed depending on Accept-Encoding.
    if (state.headersSet) res.appendHeader('Vary', 'Accept, Accept-Encoding');
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && isPlaygroundQuery(query)) {
      return servePlayground(req, res, state);
    }
    const mediaType = mediaTypeOf(req.headers.accept);
    if (req.method === 'POST' && mediaType !== null && isJson(req.headers['content-type'])) {
      readBodyThen(req, config.limits.maxBodyBytes, onPostBody, { req, res, state, mediaType });
      return;
    }
    takeSnapshot(state);
    if (req.method === 'GET' && mediaType !== null) return serveGet(req, res, state, query, mediaType);
    return serveSlow(req, res, state);
  };
}

/** A browser's GET asks for the playground unless its query string carries a GraphQL request. */
function isPlaygroundQuery(query: string): boolean {
  const search = new URLSearchParams(query);
  return !search.has('query') && !search.has('extensions');
}

/** A POST whose body is being read, with what answering it needs once it is. */
interface PostRequest {
  req: IncomingMessage;
  res: ServerResponse;
  state: RequestState;
  mediaType: MediaType;
}

/** Writes the head and body of a successful GraphQL answer (see sendSuccess in createGraphqlRoute). */
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

/** Counts of the response cache's lookups, read by the metrics at each scrape. */
interface LookupTally {
  hits: number;
  misses: number;
}

/**
 * Registers the caches' metrics; they read the caches at each scrape, so a request only bumps a
 * number: `graphql_response_cache_lookups_total{result}`, `graphql_response_cache_bytes`,
 * `graphql_record_cache_bytes` and `graphql_operation_cache_entries`.
 */
function registerCacheMetrics(metrics: Metrics, operations: OperationCache, responses: ResponseCache | null, records: RecordBytesCache | null): LookupTally {
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
    name: 'graphql_record_cache_bytes',
    help: 'Bytes held by the record bytes cache (0 when it is turned off).',
    registers,
    collect() {
      this.set(records?.bytes ?? 0);
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

/** Codes of the bodiless refusals of graphql-http. */
const CODE_OF_STATUS: Record<number, ErrorCode> = { 405: 'METHOD_NOT_ALLOWED', 406: 'NOT_ACCEPTABLE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/** The refusal of variables too deeply nested to be keyed (canonicalJson); not worth a stack trace. */
const VARIABLES_TOO_DEEP = `Variables nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`;

/** A refusal outside GraphQL execution, in the one error shape. */
function refusal(status: number, statusText: string, code: ErrorCode, message: string, headers: Record<string, string> = {}): GraphqlResponse {
  return [errorBody(code, message), { status, statusText, headers: { 'content-type': JSON_TYPE, ...headers } }];
}

/** The refusal of an `operationName` over {@link MAX_OPERATION_NAME_CHARS}; it is not quoted. */
function operationNameTooLong(operationName: string): GraphqlResponse {
  const length = operationName.length.toLocaleString('en-US');
  return refusal(400, 'Bad Request', 'BAD_REQUEST', `operationName is ${length} characters long; the limit is ${MAX_OPERATION_NAME_CHARS}`);
}

/**
 * The refusal of a mutation or subscription, before it runs, or null to run it: a mutation by GET
 * is a 405 (https://graphql.github.io/graphql-over-http/draft/#sel-GALJTPABABgCzsd), and an
 * operation whose root type the schema lacks fails validation, as graphql-js 17's
 * KnownOperationTypesRule words it (graphql-js 16 would execute it into an error without a code).
 */
function refuseOperationType(schema: GraphQLSchema, operation: OperationDefinitionNode, method: string): GraphqlResponse | GraphQLError[] | null {
  const kind = operation.operation;
  const defined = schema.getRootType(kind) !== undefined;
  if (kind === OperationTypeNode.MUTATION && method === 'GET') {
    const next = defined ? 'send it by POST' : 'this API has no mutations: it answers queries only';
    return refusal(405, 'Method Not Allowed', 'METHOD_NOT_ALLOWED', `A mutation cannot be sent by GET; ${next}`, { allow: 'POST' });
  }
  if (defined) return null;
  return [new GraphQLError(`The ${kind} operation is not supported by the schema.`, { nodes: operation, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })];
}

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
