/**
 * The files for maps and devices, over the list and record queries of the schema:
 * - `GET /api/geojson/{area}`: a list query's records as an RFC 7946 FeatureCollection
 *   (https://www.rfc-editor.org/rfc/rfc7946) of Points, or with `geometry=line` of the records'
 *   lines, for map libraries that take GeoJSON as it is;
 * - `GET /api/geojson/{area}/{id}`: one record as a Feature, with its line where it has one;
 * - `GET /api/gpx/{area}/{id}`: a record's line as a GPX 1.1 track, for GPS devices and apps.
 * The GraphQL operation runs on the service's engine with the query parameters as its
 * variables, so the filters, checks and refusals are the list's; the answer is kept in the
 * GraphQL route's response cache, tagged and sent as that route sends its GET answers.
 */

import type { GraphQLError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TourGeometry } from '../../../sync/format.ts';
import { startDeadline, withDeadline, type Deadline } from '../../execution/deadline.ts';
import type { Context } from '../../resolvers/context.ts';
import { lineBounds, positionCount } from '../../search/lineGeometry.ts';
import { isPromise } from '../../util/isPromise.ts';
import { runStepsSliced, SLICE_BUDGET_MS, TimeSlice } from '../../util/timeSlice.ts';
import { TurnTaking } from '../../util/turnTaking.ts';
import { isInternalError, type ErrorCode } from '../formatError.ts';
import type { HttpOptions, ServedSnapshot } from '../httpOptions.ts';
import { SHED_RETRY_AFTER_S, type LoadShedder } from '../loadShedding.ts';
import type { Handle, RequestState } from '../requestState.ts';
import { sendError, sendText, JSON_TYPE } from '../respond.ts';
import { NO_STORE } from '../httpCache.ts';
import { canonicalJson } from '../graphql/canonicalJson.ts';
import type { CachedResponse, ResponseCache } from '../graphql/responseCache.ts';
import { createAnswerSender } from '../graphql/sendAnswer.ts';
import { createServiceEngine } from '../graphql/serviceEngine.ts';
import { GPX_TYPE, writeGpx } from '../gpx/gpxTrack.ts';
import { GEOJSON_AREAS, type ListRecord } from './areas.ts';
import { creditOf } from './credit.ts';
import { type CollectionTerms, featureCollectionSteps, recordFeatureOf } from './featureCollection.ts';
import { createListOperation, createRecordOperation, PAGE_SIZE, type ListOperation, type RecordOperation } from './listOperation.ts';
import { MAX_FEATURES, MAX_LINE_POSITIONS, readGeojsonParams, readRecordParams } from './geojsonParams.ts';

/**
 * Most requests that wait for a list's answer to be built, or are being answered, at once in a
 * process; more are refused with 503 OVERLOADED. The whole country at the largest `limit` takes
 * the longest to build, and a client at the end of the queue waits for all those before it.
 */
export const MAX_WAITING_BUILDS = 16;

/** URL path under which each area's GeoJSON is served (`/api/geojson/{area}`, `/api/geojson/{area}/{id}`). */
export const GEOJSON_PATH = '/api/geojson';

/** URL path under which a record's line is served as GPX (`/api/gpx/{area}/{id}`). */
export const GPX_PATH = '/api/gpx';

/** The media type of GeoJSON (RFC 7946 §12). */
export const GEOJSON_TYPE = 'application/geo+json';

/** GPX's `creator`: the program that wrote the file. */
const GPX_CREATOR = 'tourism-content-query-service';

/** What answering a request gave: the bytes to send (and cache), or a refusal to send as it is. */
type Built = { bytes: Buffer } | { errors: readonly GraphQLError[] } | { refusal: { status: number; code: ErrorCode; message: string } };

/**
 * Creates the handler of every path under {@link GEOJSON_PATH}/ and {@link GPX_PATH}/. An unknown
 * area is a 404 naming the allowed ones, and so is an unknown id or, for GPX, a record without a
 * line; an unknown or repeated parameter, or a bad `limit` or `geometry`, a 400 naming what is
 * allowed; a refusal of the list (a bad value) a 400 with the list's errors; more matching
 * records than `limit`, or lines of more than {@link MAX_LINE_POSITIONS} positions, a 400 naming
 * the maximum and how to narrow the request. More than {@link MAX_WAITING_BUILDS} requests
 * waiting for lists' answers to be built: a 503 OVERLOADED with Retry-After, counted by `shedder`.
 * @param responses the GraphQL route's response cache (null when turned off), where answers are
 *   kept under keys starting with `geojson` or `gpx`, which no GraphQL request's key does
 * @throws Error when a list of server/http/geojson/areas.ts in the schema has no `data` of records, or no record query
 */
export function createGeojsonRoute(options: HttpOptions, responses: ResponseCache | null, shedder: Pick<LoadShedder, 'count'>): Handle {
  const { config } = options;
  const engine = createServiceEngine(options, withDeadline(options.schema));
  // The HTTP layer serves whatever schema it is handed: an area whose list that schema lacks is not served.
  const lists = options.schema.getQueryType()?.getFields() ?? {};
  const areas = [...GEOJSON_AREAS.values()].filter((area) => area.list in lists);
  const operations = new Map(areas.map((area) => [area.list, createListOperation(options.schema, area)]));
  const recordOperations = new Map(areas.flatMap((area) => nonNull(area.list, createRecordOperation(options.schema, area))));
  const trackOperations = new Map(areas.flatMap((area) => (area.line ? nonNull(area.list, createRecordOperation(options.schema, area, area.line.trackSelection)) : [])));
  const send = createAnswerSender(config.cache, options.metrics);
  const allowedAreas = [...operations.keys()].join(', ');
  const builds = new TurnTaking();
  let waiting = 0;

  return async (req, res, state, query) => {
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const isGpx = path.startsWith(`${GPX_PATH}/`);
    const rest = path.slice((isGpx ? GPX_PATH : GEOJSON_PATH).length + 1);
    const slash = rest.indexOf('/');
    const name = slash === -1 ? rest : rest.slice(0, slash);
    if (isGpx || slash !== -1) return answerRecord(req, res, state, query, name, slash === -1 ? '' : rest.slice(slash + 1), isGpx);

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
    const key = `geojson\0${name}\0${canonicalJson(params)}`;
    return answer(
      req,
      res,
      state,
      key,
      GEOJSON_TYPE,
      name,
      operation.documentHash,
      {},
      async (served) => {
        const found = await listRecords(operation, params.variables, params.maxFeatures, params.withLine, served);
        if (!('records' in found)) return found;
        return { bytes: await runStepsSliced(featureCollectionSteps(operation, found.records, params.locale, found.terms, params.withLine), found.slice) };
      },
      true,
    );
  };

  /** `GET /api/geojson/{area}/{id}` and `GET /api/gpx/{area}/{id}`. */
  async function answerRecord(req: IncomingMessage, res: ServerResponse, state: RequestState, query: string, name: string, idText: string, isGpx: boolean): Promise<void> {
    const prefix = isGpx ? GPX_PATH : GEOJSON_PATH;
    const served = isGpx ? trackOperations : recordOperations;
    const operation = served.get(name);
    if (operation === undefined || idText === '' || idText.includes('/')) {
      state.codes = ['NOT_FOUND'];
      const allowed = [...served.keys()].join(', ');
      return sendError(res, 404, 'NOT_FOUND', `Nothing at ${prefix}/${rest(name, idText)}; a record is at ${prefix}/{area}/{id}, areas: ${allowed}`);
    }
    state.route = `${prefix}/${name}/{id}`;
    let id: string;
    try {
      id = decodeURIComponent(idText);
    } catch {
      state.codes = ['BAD_REQUEST'];
      return sendError(res, 400, 'BAD_REQUEST', `The id in the path is not valid percent-encoding: ${JSON.stringify(idText.slice(0, 80))}`);
    }
    const params = readRecordParams(query);
    if ('refusal' in params) {
      state.codes = [params.refusal.code];
      return sendError(res, 400, params.refusal.code, params.refusal.message);
    }
    const locale = params.locale ?? operation.defaultLocale;
    const headers: Record<string, string> = isGpx ? { 'Content-Disposition': `attachment; filename="${operation.area.record}-${id.replace(/[^A-Za-z0-9._-]/g, '_')}.gpx"` } : {};
    const key = `${isGpx ? 'gpx' : 'geojson'}\0${name}\0${canonicalJson({ id, locale })}`;
    return answer(req, res, state, key, isGpx ? GPX_TYPE : GEOJSON_TYPE, `${name}/{id}`, operation.documentHash, headers, async (snapshot) => {
      const found = await readRecord(operation, { id, locale }, snapshot);
      if (!('record' in found)) return found;
      const { record } = found;
      const label = operation.area.record!;
      if (record === null) return notFound(`No ${label} ${JSON.stringify(id)} in ${locale}`);
      if (!isGpx) return { bytes: Buffer.from(JSON.stringify(recordFeatureOf(operation, record, locale))) };
      const line = operation.area.line!;
      const geometry = record[line.geometry] as TourGeometry | null;
      if (geometry === null) return notFound(`The ${label} ${JSON.stringify(id)} has no line to write as GPX; its start is in ${GEOJSON_PATH}/${name}/{id}`);
      const { description, url } = line.track(record);
      const title = String(record[operation.area.titleField] ?? id);
      return { bytes: Buffer.from(writeGpx({ name: title, description, url, creator: GPX_CREATOR, credit: creditOf(record), geometry })) };
    });
  }

  /**
   * Sends the answer of a key: from the response cache, else built by `build` and kept there; a
   * refusal is sent as it is and never kept.
   * @param headers sent with the answer (a 200 or its 304), not with a refusal
   * @param queued whether the answer is built in its turn (a list's, which may be long): answers
   *   are then built one at a time, each in slices, so the requests that arrive meanwhile run
   *   between its slices and those waiting to build one of their own hold no records yet. Its turn
   *   come, a request finds in the cache what one before it built for the same key. Past
   *   {@link MAX_WAITING_BUILDS}, a request would wait longer than a client should: it is told to
   *   come back.
   */
  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    key: string,
    contentType: string,
    label: string,
    documentHash: string,
    headers: Readonly<Record<string, string>>,
    build: (served: ServedSnapshot) => Promise<Built>,
    queued = false,
  ): Promise<void> {
    const served = options.snapshot();
    state.served = served;
    responses?.use(served);
    res.appendHeader('Vary', 'Accept-Encoding');
    const sendHit = (hit: CachedResponse) => {
      state.cacheHit = true;
      state.operation = hit.label;
      state.passedChecks = true;
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      return send.success(req, res, state, hit.body, contentType, hit);
    };
    const sendBuilt = (built: Built) => {
      if ('errors' in built) {
        const internal = built.errors.find((error) => isInternalError(error));
        if (internal) throw internal.originalError;
        state.hasErrors = true;
        state.codes = [...new Set(built.errors.map((error) => String(error.extensions.code)))];
        const status = built.errors.some((error) => error.extensions.code === 'EXECUTION_TIMEOUT') ? 503 : 400;
        const body = JSON.stringify({ errors: built.errors.map((error) => ({ message: error.message, extensions: { code: error.extensions.code } })) });
        return sendText(req, res, status, body, JSON_TYPE, { 'Cache-Control': NO_STORE });
      }
      if ('refusal' in built) {
        state.codes = [built.refusal.code];
        return sendError(res, built.refusal.status, built.refusal.code, built.refusal.message);
      }
      state.operation = label;
      state.passedChecks = true;
      const entry = responses?.set(served, served.version, key, built.bytes, { label, operationName: undefined, cost: 0, documentHash });
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      return send.success(req, res, state, built.bytes, contentType, entry);
    };
    const hit = responses?.get(served, key);
    if (hit) return sendHit(hit);
    if (!queued) return sendBuilt(await build(served));
    if (waiting >= MAX_WAITING_BUILDS) {
      shedder.count(state.route);
      state.codes = ['OVERLOADED'];
      const message = `${MAX_WAITING_BUILDS} GeoJSON answers are waiting to be built; retry in ${SHED_RETRY_AFTER_S} s`;
      return sendError(res, 503, 'OVERLOADED', message, { 'Retry-After': String(SHED_RETRY_AFTER_S) });
    }
    waiting++;
    try {
      return await builds.run(async () => {
        // A client that left while it waited gets nothing built.
        if (req.socket.destroyed) return;
        const built = responses?.get(served, key);
        return built ? sendHit(built) : sendBuilt(await build(served));
      });
    } finally {
      waiting--;
    }
  }

  /** The data of one execution of a document, or its errors. */
  async function execute(query: string, variables: Record<string, unknown>, deadline: Deadline, served: ServedSnapshot): Promise<{ data: Record<string, unknown> } | { errors: readonly GraphQLError[] }> {
    const prepared = engine.prepare({ query, variables }, served.sizes);
    if (prepared.errors) return { errors: prepared.errors };
    const pending = prepared.operation.answer(deadline, served.context, variables, null);
    const answer = isPromise(pending) ? await pending : pending;
    if (answer.errors) return { errors: answer.errors };
    return { data: (JSON.parse(answer.bytes.toString('utf8')) as { data: Record<string, unknown> }).data };
  }

  /** One record by its record query; null for an unknown id. */
  async function readRecord(operation: RecordOperation, variables: { id: string; locale: string }, served: ServedSnapshot): Promise<{ record: ListRecord | null } | Built> {
    const answer = await execute(operation.query, variables, startDeadline(config.limits.executionTimeoutMs), served);
    if ('errors' in answer) return answer;
    return { record: answer.data[operation.area.record!] as ListRecord | null };
  }

  /**
   * Every record of the list with these variables, page by page, unless more than `maxFeatures`
   * match; `withLine`, each with its line and bounds from the store, unless the lines hold more
   * than {@link MAX_LINE_POSITIONS} positions. The pages run in time slices
   * (server/util/timeSlice.ts), the event loop running other requests between them; the slice is
   * handed on to write the answer in.
   */
  async function listRecords(
    operation: ListOperation,
    variables: Record<string, unknown>,
    maxFeatures: number,
    withLine: boolean,
    served: ServedSnapshot,
  ): Promise<{ records: ListRecord[]; terms: CollectionTerms | null; slice: TimeSlice } | Built> {
    const records: ListRecord[] = [];
    const { list } = operation.area;
    const line = withLine ? operation.area.line! : null;
    const { store } = served.context as Context;
    let positions = 0;
    // Gives way for a turn between slices, without holding back: the answer is the client's, not background work.
    const slice = new TimeSlice(SLICE_BUDGET_MS, 1);
    // One budget for the request's own work, whatever the number of pages: a page started past it
    // is refused. The turns other requests take between its slices are theirs, not counted.
    let workedMs = 0;
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const startedAt = performance.now();
      const deadline = startDeadline(config.limits.executionTimeoutMs, workedMs);
      const answer = await execute(operation.query, { ...variables, limit: PAGE_SIZE, offset }, deadline, served);
      if ('errors' in answer) return answer;
      const page = answer.data[list] as { total: number; hasMore: boolean; meta?: CollectionTerms | null; data: ListRecord[] };
      const locale = typeof variables.locale === 'string' ? variables.locale : operation.defaultLocale;
      if (page.total > maxFeatures) {
        const message =
          `${page.total} ${list} match in ${locale}, more than limit ${maxFeatures}: narrow the request with bbox or q (or the list's filters), ` +
          `or raise limit, up to ${MAX_FEATURES}`;
        return { refusal: { status: 400, code: 'BAD_USER_INPUT', message } };
      }
      if (line === null) {
        records.push(...page.data);
      } else {
        for (const record of page.data) {
          const geometry = line.read(store, record.id as string | number);
          if (geometry !== null) positions += positionCount(geometry);
          records.push({ ...record, [line.geometry]: geometry, [line.bounds]: geometry === null ? null : lineBounds(geometry) });
        }
        if (positions > MAX_LINE_POSITIONS) {
          const message =
            `The lines of the ${page.total} ${list} matching in ${locale} hold more than ${MAX_LINE_POSITIONS} positions, the most one answer holds: ` +
            `narrow the request with bbox (with bboxMatch=LINE) or q (or the list's filters)`;
          return { refusal: { status: 400, code: 'BAD_USER_INPUT', message } };
        }
      }
      if (!page.hasMore) return { records, terms: page.meta ?? null, slice };
      workedMs += performance.now() - startedAt;
      await slice.check();
    }
  }
}

function notFound(message: string): Built {
  return { refusal: { status: 404, code: 'NOT_FOUND', message } };
}

function nonNull<T>(name: string, value: T | null): [string, T][] {
  return value === null ? [] : [[name, value]];
}

function rest(name: string, idText: string): string {
  return idText === '' ? name : `${name}/${idText}`;
}
