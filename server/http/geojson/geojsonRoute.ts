/**
 * `GET /api/geojson/{area}`: a list query's records as an RFC 7946 FeatureCollection of Points
 * (https://www.rfc-editor.org/rfc/rfc7946), for map libraries that take GeoJSON as it is. The
 * list's GraphQL operation runs on the service's engine with the query parameters as its
 * variables, so the filters, checks and refusals are the list's; the answer is kept in the
 * GraphQL route's response cache, tagged and sent as that route sends its GET answers.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError } from 'graphql';
import { startDeadline, withDeadline } from '../../execution/deadline.ts';
import { isPromise } from '../../util/isPromise.ts';
import { runStepsSliced, SLICE_BUDGET_MS, TimeSlice } from '../../util/timeSlice.ts';
import { TurnTaking } from '../../util/turnTaking.ts';
import { isInternalError } from '../formatError.ts';
import type { HttpOptions, ServedSnapshot } from '../httpOptions.ts';
import { SHED_RETRY_AFTER_S, type LoadShedder } from '../loadShedding.ts';
import type { Handle, RequestState } from '../requestState.ts';
import { sendError, sendText, JSON_TYPE } from '../respond.ts';
import { NO_STORE } from '../httpCache.ts';
import { canonicalJson } from '../graphql/canonicalJson.ts';
import type { CachedResponse, ResponseCache } from '../graphql/responseCache.ts';
import { createAnswerSender } from '../graphql/sendAnswer.ts';
import { createServiceEngine } from '../graphql/serviceEngine.ts';
import { GEOJSON_AREAS, type ListRecord } from './areas.ts';
import { type CollectionTerms, featureCollectionSteps } from './featureCollection.ts';
import { createListOperation, PAGE_SIZE, type ListOperation } from './listOperation.ts';
import { MAX_FEATURES, readGeojsonParams, type GeojsonParams } from './geojsonParams.ts';

/**
 * Most requests that wait for their answer to be built, or are being answered, at once in a
 * process; more are refused with 503 OVERLOADED. The whole country at the largest `limit` takes
 * the longest to build, and a client at the end of the queue waits for all those before it.
 */
export const MAX_WAITING_BUILDS = 16;

/** URL path under which each area's GeoJSON is served (`/api/geojson/{area}`). */
export const GEOJSON_PATH = '/api/geojson';

/** The media type of GeoJSON (RFC 7946 §12). */
export const GEOJSON_TYPE = 'application/geo+json';

/**
 * Creates the handler of every path under {@link GEOJSON_PATH}/. An unknown area is a 404 naming
 * the allowed ones; an unknown or repeated parameter, or a bad `limit`, a 400 naming what is
 * allowed; a refusal of the list (a bad value) a 400 with the list's errors; more matching
 * records than `limit` a 400 naming the maximum and how to narrow the request.
 * More than {@link MAX_WAITING_BUILDS} requests waiting for answers to be built: a 503
 * OVERLOADED with Retry-After, counted by `shedder`.
 * @param responses the GraphQL route's response cache (null when turned off), where answers are
 *   kept under keys starting with `geojson`, which no GraphQL request's key does
 * @throws Error when a list of server/http/geojson/areas.ts in the schema has no `data` of records, or no record query
 */
export function createGeojsonRoute(options: HttpOptions, responses: ResponseCache | null, shedder: Pick<LoadShedder, 'count'>): Handle {
  const { config } = options;
  const engine = createServiceEngine(options, withDeadline(options.schema));
  // The HTTP layer serves whatever schema it is handed: an area whose list that schema lacks is not served.
  const lists = options.schema.getQueryType()?.getFields() ?? {};
  const operations = new Map([...GEOJSON_AREAS].filter(([name]) => name in lists).map(([name, area]) => [name, createListOperation(options.schema, area)]));
  const send = createAnswerSender(config.cache, options.metrics);
  const allowedAreas = [...operations.keys()].join(', ');
  const builds = new TurnTaking();
  let waiting = 0;

  return async (req, res, state, query) => {
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const name = (queryStart === -1 ? target : target.slice(0, queryStart)).slice(GEOJSON_PATH.length + 1);
    const operation = operations.get(name);
    if (operation === undefined) {
      state.codes = ['NOT_FOUND'];
      return sendError(res, 404, 'NOT_FOUND', `No GeoJSON area ${JSON.stringify(name)}; allowed areas: ${allowedAreas} (${GEOJSON_PATH}/{area})`);
    }
    state.route = `${GEOJSON_PATH}/${name}`;
    const params = readGeojsonParams(operation, query);
    if ('refusal' in params) {
      state.codes = [params.refusal.code];
      return sendError(res, 400, params.refusal.code, params.refusal.message);
    }

    const served = options.snapshot();
    state.served = served;
    responses?.use(served);
    res.appendHeader('Vary', 'Accept-Encoding');
    const key = `geojson\0${name}\0${canonicalJson(params)}`;
    const hit = responses?.get(served, key);
    if (hit) return sendCached(req, res, state, hit);

    // Answers are built one at a time, each in slices: the requests that arrive meanwhile run
    // between its slices, and those waiting to build one of their own hold no records yet. Its
    // turn come, a request finds in the cache what one before it built for the same parameters.
    // Past the bound, a request would wait longer than a client should: it is told to come back.
    if (waiting >= MAX_WAITING_BUILDS) {
      shedder.count(state.route);
      state.codes = ['OVERLOADED'];
      const message = `${MAX_WAITING_BUILDS} GeoJSON answers are waiting to be built; retry in ${SHED_RETRY_AFTER_S} s`;
      return sendError(res, 503, 'OVERLOADED', message, { 'Retry-After': String(SHED_RETRY_AFTER_S) });
    }
    waiting++;
    try {
      return await builds.run(() => build(req, res, state, name, operation, params, served, key));
    } finally {
      waiting--;
    }
  };

  function sendCached(req: IncomingMessage, res: ServerResponse, state: RequestState, hit: CachedResponse): Promise<void> | void {
    state.cacheHit = true;
    state.operation = hit.label;
    state.passedChecks = true;
    return send.success(req, res, state, hit.body, GEOJSON_TYPE, hit);
  }

  /** Answers a request the cache did not hold, in its turn. */
  async function build(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    name: string,
    operation: ListOperation,
    params: GeojsonParams,
    served: ServedSnapshot,
    key: string,
  ): Promise<void> {
    // A client that left while it waited gets nothing built.
    if (req.socket.destroyed) return;
    const hit = responses?.get(served, key);
    if (hit) return sendCached(req, res, state, hit);
    const listed = await listRecords(operation, params.variables, params.maxFeatures, served);
    if ('errors' in listed) {
      const internal = listed.errors.find((error) => isInternalError(error));
      if (internal) throw internal.originalError;
      state.hasErrors = true;
      state.codes = [...new Set(listed.errors.map((error) => String(error.extensions.code)))];
      const status = listed.errors.some((error) => error.extensions.code === 'EXECUTION_TIMEOUT') ? 503 : 400;
      const body = JSON.stringify({ errors: listed.errors.map((error) => ({ message: error.message, extensions: { code: error.extensions.code } })) });
      return sendText(req, res, status, body, JSON_TYPE, { 'Cache-Control': NO_STORE });
    }
    if ('tooMany' in listed) {
      const { locale } = params;
      const message =
        `${listed.tooMany} ${name} match in ${locale}, more than limit ${params.maxFeatures}: narrow the request with bbox or q (or the list's filters), ` +
        `or raise limit, up to ${MAX_FEATURES}`;
      state.codes = ['BAD_USER_INPUT'];
      return sendError(res, 400, 'BAD_USER_INPUT', message);
    }
    state.operation = name;
    state.passedChecks = true;
    const bytes = await runStepsSliced(featureCollectionSteps(operation, listed.records, params.locale, listed.terms), listed.slice);
    const entry = responses?.set(served, served.version, key, bytes, { label: name, operationName: undefined, cost: 0, documentHash: operation.documentHash });
    return send.success(req, res, state, bytes, GEOJSON_TYPE, entry);
  }

  /**
   * Every record of the list with these variables, page by page, unless more than `maxFeatures`
   * match. The pages run in time slices (server/util/timeSlice.ts), the event loop running other
   * requests between them; the slice is handed on to write the answer in.
   */
  async function listRecords(
    operation: ListOperation,
    variables: Record<string, unknown>,
    maxFeatures: number,
    served: ServedSnapshot,
  ): Promise<{ records: ListRecord[]; terms: CollectionTerms | null; slice: TimeSlice } | { errors: readonly GraphQLError[] } | { tooMany: number }> {
    const records: ListRecord[] = [];
    // Gives way for a turn between slices, without holding back: the answer is the client's, not background work.
    const slice = new TimeSlice(SLICE_BUDGET_MS, 1);
    // One budget for the request's own work, whatever the number of pages: a page started past it
    // is refused. The turns other requests take between its slices are theirs, not counted.
    let workedMs = 0;
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const startedAt = performance.now();
      const deadline = startDeadline(config.limits.executionTimeoutMs, workedMs);
      const pageVariables = { ...variables, limit: PAGE_SIZE, offset };
      const prepared = engine.prepare({ query: operation.query, variables: pageVariables }, served.sizes);
      if (prepared.errors) return { errors: prepared.errors };
      const pending = prepared.operation.answer(deadline, served.context, pageVariables, null);
      const answer = isPromise(pending) ? await pending : pending;
      if (answer.errors) return { errors: answer.errors };
      const page = (JSON.parse(answer.bytes.toString('utf8')) as { data: Record<string, { total: number; hasMore: boolean; meta?: CollectionTerms | null; data: ListRecord[] }> }).data[operation.area.list]!;
      if (page.total > maxFeatures) return { tooMany: page.total };
      records.push(...page.data);
      if (!page.hasMore) return { records, terms: page.meta ?? null, slice };
      workedMs += performance.now() - startedAt;
      await slice.check();
    }
  }
}
