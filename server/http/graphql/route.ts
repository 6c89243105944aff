/**
 * The GraphQL endpoint. A request is read once (its method, accepted media type and parameters),
 * its persisted query resolved once, then answered from the response cache, by the engine
 * (server/http/graphql/fastPath.ts) or by graphql-http (server/http/graphql/graphqlHttp.ts),
 * which words and codes every refusal as it does.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError } from 'graphql';
import { withDeadline } from '../../execution/deadline.ts';
import { createRecordBytesCache } from '../../execution/json/recordBytesCache.ts';
import { isInternalError } from '../formatError.ts';
import type { Playground } from '../playground.ts';
import { PayloadTooLargeError, readBodyThen } from '../readBody.ts';
import type { HttpOptions, ServedSnapshot } from '../httpOptions.ts';
import { setDeferredHeaders, type Fail, type Handle, type RequestState } from '../requestState.ts';
import { sendPage } from '../respond.ts';
import { createFastPath, type GraphqlCall } from './fastPath.ts';
import { createGraphqlHttp } from './graphqlHttp.ts';
import { KnownBodies } from './knownBodies.ts';
import { registerCacheMetrics, type GraphqlMetrics } from './graphqlMetrics.ts';
import { acceptedMediaType, isJsonContentType, memoize, type MediaType } from './mediaType.ts';
import { createPersistedQueries } from './persistedQueries.ts';
import { misencodedParameter } from '../queryEncoding.ts';
import { misencodedQuery, payloadTooLarge } from './refusals.ts';
import { bodyParams, parseJsonBody, readSearchParams, searchOf } from './requestParams.ts';
import type { ResponseCache } from './responseCache.ts';
import { createAnswerSender } from './sendAnswer.ts';
import { createServiceEngine } from './serviceEngine.ts';

export { MAX_OPERATION_NAME_CHARS } from './requestParams.ts';

/** URL path of the GraphQL endpoint (and of the playground, for a browser). */
export const GRAPHQL_PATH = '/api/graphql';

/**
 * The handler of {@link GRAPHQL_PATH} for GET and POST: the playground for a browser, otherwise
 * the fast path, then graphql-http for what the fast path leaves.
 * @param metrics what the route counts (server/ops/metrics.ts implements it)
 * @param responses the response cache (null when turned off), which other routes may share
 *   under keys of their own ({@link responseKey} keys never collide with theirs)
 */
export function createGraphqlRoute(options: HttpOptions, playground: Playground, metrics: GraphqlMetrics, fail: Fail, responses: ResponseCache | null): Handle {
  const pipeline = createPipeline(options, metrics, responses);
  const { post, get } = createReaders(pipeline, fail);
  const mediaTypeOf = memoize(acceptedMediaType);
  const isJson = memoize(isJsonContentType);
  const maxBodyBytes = options.config.limits.maxBodyBytes;

  async function servePlayground(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    setDeferredHeaders(res, state);
    await sendPage(req, res, playground.html(options.sampleQueries()), playground.contentSecurityPolicy);
  }

  // Not async: a request answered from the response cache is answered without a promise.
  return (req, res, state, query) => {
    // The same URL answers JSON or HTML depending on Accept, compressed depending on Accept-Encoding.
    if (state.headersSet) res.appendHeader('Vary', 'Accept, Accept-Encoding');
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && isPlaygroundQuery(query)) {
      return servePlayground(req, res, state);
    }
    state.graphql = true;
    state.trace?.graphql();
    const mediaType = mediaTypeOf(req.headers.accept);
    if (req.method === 'POST' && mediaType !== null && isJson(req.headers['content-type'])) {
      const call: GraphqlCall = { req, res, state, mediaType, method: 'POST', raw: undefined };
      readBodyThen(req, maxBodyBytes, post, call);
      return;
    }
    pipeline.takeSnapshot(state);
    if (req.method === 'GET' && mediaType !== null) return get(req, res, state, mediaType, query);
    // graphql-http answers other methods and media types (405, 406, 415).
    return pipeline.slow(req, res, state);
  };
}

/** The parts a request goes through, built once per route. */
type Pipeline = ReturnType<typeof createPipeline>;

/** Builds the engine, the caches, the fast path and graphql-http's side, wired together. */
function createPipeline(options: HttpOptions, metrics: GraphqlMetrics, responses: ResponseCache | null) {
  const { config, logger } = options;
  const executableSchema = withDeadline(options.schema);
  const engine = createServiceEngine(options, executableSchema);
  const records = config.recordCacheBytes > 0 ? createRecordBytesCache(config.recordCacheBytes) : null;
  const persisted = config.apqCacheBytes > 0 ? createPersistedQueries(config.apqCacheBytes, options.persistedQueries) : null;
  const bodies = new KnownBodies();
  const lookups = registerCacheMetrics(metrics, engine, responses, records, bodies);
  const send = createAnswerSender(config.cache, metrics);
  const executionTimeoutMs = config.limits.executionTimeoutMs;
  const logErrors = (state: RequestState, errors: readonly GraphQLError[] | undefined): void => {
    for (const error of errors ?? []) {
      if (!isInternalError(error)) continue;
      logger.error({ reqId: state.id, operationName: state.operationName, path: error.path?.join('.'), err: error.originalError }, 'internal error in a resolver');
    }
  };
  const slow = createGraphqlHttp({ schema: options.schema, executableSchema, engine, persisted, metrics, send, executionTimeoutMs, logErrors });
  const trusted = options.trustedDocuments ?? null;
  const trustedOnly = config.trustedDocuments.only;
  const fast = createFastPath({ engine, responses, records, persisted, trusted, trustedOnly, bodies, metrics, lookups, send, executionTimeoutMs, logErrors, leave: slow });
  return {
    responses,
    bodies,
    lookups,
    send,
    slow,
    fast,
    /** Takes the snapshot the request is answered from. */
    takeSnapshot(state: RequestState): ServedSnapshot {
      const served = options.snapshot();
      state.served = served;
      responses?.use(served);
      records?.use(served);
      return served;
    },
  };
}

/**
 * The readers of a request's parameters: a POST's body once read, a GET's query string. Each
 * answers from the response cache when the request's bytes are an alias of a cached answer, at
 * once and without a promise (the common case under load, and the cheapest), else from the
 * parameters it reads.
 */
function createReaders({ responses, bodies, lookups, send, slow, fast, takeSnapshot }: Pipeline, fail: Fail) {
  function servePost(call: GraphqlCall, error: Error | null, raw?: Buffer): Promise<void> | void {
    const { req, res, state } = call;
    const served = takeSnapshot(state);
    if (raw === undefined) {
      if (error instanceof PayloadTooLargeError) return send.refusal(req, res, state, payloadTooLarge(error));
      // A body cut short is refused as graphql-http refuses a request it cannot read (400).
      return slow(req, res, state, { sent: error });
    }
    const hit = responses?.getByAlias(served, 'POST', raw);
    if (hit) {
      lookups.hits++;
      return fast.cached(req, res, state, call.mediaType, hit);
    }
    call.raw = raw;
    const known = bodies.get(raw);
    if (known !== undefined) return fast.answer(call, known);
    let body: unknown;
    try {
      body = parseJsonBody(raw);
    } catch (refused) {
      return slow(req, res, state, { sent: refused });
    }
    // graphql-http words the refusal of a body that is no object.
    if (typeof body !== 'object' || body === null) return slow(req, res, state, { sent: body });
    call.parsed = true;
    return fast.answer(call, bodyParams(body));
  }

  return {
    /**
     * Takes over once the body of a POST is read (readBodyThen). Whatever it throws or rejects
     * with is answered as the HTTP layer answers it (`fail`): this runs in the request's event
     * listeners, where nobody else would catch it.
     */
    post(call: GraphqlCall, error: Error | null, body?: Buffer): void {
      const { req, res, state } = call;
      try {
        const pending = servePost(call, error, body);
        if (pending) pending.catch((failure: unknown) => fail(req, res, state, failure));
      } catch (failure) {
        fail(req, res, state, failure);
      }
    },
    /** Answers a GET, its bytes being its query string (`query`, past the target's first `?`). */
    get(req: IncomingMessage, res: ServerResponse, state: RequestState, mediaType: MediaType, query: string): Promise<void> | void {
      let raw: Buffer | undefined;
      // graphql-http reads only up to a second `?`: such a query string is never an alias.
      if (responses && !query.includes('?')) {
        raw = Buffer.from(query);
        const hit = responses.getByAlias(state.served!, 'GET', raw);
        if (hit) {
          lookups.hits++;
          return fast.cached(req, res, state, mediaType, hit);
        }
      }
      // After the alias lookup: a refused query string is never cached, so it has no alias.
      const misencoded = misencodedParameter(searchOf(query));
      if (misencoded !== undefined) return send.refusal(req, res, state, misencodedQuery(misencoded));
      const sent = readSearchParams(query);
      if (sent === undefined) return slow(req, res, state);
      return fast.answer({ req, res, state, mediaType, method: 'GET', raw }, sent);
    },
  };
}

/** A browser's GET asks for the playground unless its query string carries a GraphQL request. */
function isPlaygroundQuery(query: string): boolean {
  const search = new URLSearchParams(query);
  return !search.has('query') && !search.has('extensions') && !search.has('documentId');
}
