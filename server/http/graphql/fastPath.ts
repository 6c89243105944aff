/**
 * The fast path of the route: a request whose parameters are well-formed and whose operation is
 * a query that passes the checks, answered from the response cache or by the engine, with the
 * bytes graphql-http would send. Whatever else is handed to graphql-http's side
 * (server/http/graphql/graphqlHttp.ts) with what the fast path learned.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError } from 'graphql';
import { startDeadline } from '../../execution/deadline.ts';
import type { Answer, Engine, PreparedOperation } from '../../execution/engine.ts';
import type { RecordBytesCache } from '../../execution/json/recordBytesCache.ts';
import { isPromise } from '../../util/isPromise.ts';
import type { RequestState } from '../requestState.ts';
import { JsonTooDeepError } from './canonicalJson.ts';
import { documentHash } from './documentHash.ts';
import type { GraphqlMetrics, LookupTally } from './graphqlMetrics.ts';
import type { Leftover } from './graphqlHttp.ts';
import type { KnownBodies } from './knownBodies.ts';
import { markPassedChecks } from './markPassedChecks.ts';
import { CONTENT_TYPES, type MediaType } from './mediaType.ts';
import { resolvePersistedQuery, type PersistedLookup, type PersistedQueries } from './persistedQueries.ts';
import { codesOf, noteSent } from './requestFacts.ts';
import { isWellFormed, type SentParams } from './requestParams.ts';
import { variablesTooDeep } from './refusals.ts';
import { responseKey, type AliasMethod, type CachedResponse, type ResponseCache } from './responseCache.ts';
import type { AnswerSender } from './sendAnswer.ts';
import { resolveTrustedDocument } from './trustedDocuments/resolveTrustedDocument.ts';
import type { TrustedDocument, TrustedDocuments } from './trustedDocuments/trustedDocuments.ts';

/** A GraphQL request the route is answering. */
export interface GraphqlCall {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly state: RequestState;
  readonly mediaType: MediaType;
  readonly method: AliasMethod;
  /** The request's bytes (POST body, GET query string) when they may be an alias in the response cache. */
  raw?: Buffer | undefined;
  /** Whether the parameters were parsed from the POST body `raw` for this request, not known already. */
  parsed?: boolean;
}

export interface FastPathOptions {
  engine: Engine;
  responses: ResponseCache | null;
  records: RecordBytesCache | null;
  persisted: PersistedQueries | null;
  /** The trusted documents, or null when there are none. */
  trusted: TrustedDocuments | null;
  /** Whether only trusted documents are answered. */
  trustedOnly: boolean;
  bodies: KnownBodies;
  metrics: GraphqlMetrics;
  lookups: LookupTally;
  send: AnswerSender;
  executionTimeoutMs: number;
  logErrors: (state: RequestState, errors: readonly GraphQLError[] | undefined) => void;
  /** graphql-http's side, for what the fast path leaves. */
  leave: (req: IncomingMessage, res: ServerResponse, state: RequestState, leftover: Leftover) => Promise<void>;
}

/** The fast path, bound to the route's engine, caches and senders. */
export interface FastPath {
  /** Answers from the response cache; at once unless compressing, else resolves once sent. */
  cached(req: IncomingMessage, res: ServerResponse, state: RequestState, mediaType: MediaType, entry: CachedResponse): Promise<void> | void;
  /** Answers a request from its parameters as read (see the module comment); resolves once sent. */
  answer(call: GraphqlCall, sent: SentParams): Promise<void>;
}

/** Creates the fast path. */
export function createFastPath(options: FastPathOptions): FastPath {
  const { engine, responses, records, persisted, bodies, metrics, lookups, send } = options;
  const observeApq = (hit: boolean) => metrics.observeCache('apq', hit);

  function cached(req: IncomingMessage, res: ServerResponse, state: RequestState, mediaType: MediaType, entry: CachedResponse): Promise<void> | void {
    state.operation = entry.label;
    state.operationName = entry.operationName;
    state.cost = entry.cost;
    state.documentHash = entry.documentHash;
    state.passedChecks = true;
    state.cacheHit = true;
    if (state.trace) {
      const trace = state.trace.graphql();
      trace.operation(undefined, entry.operationName, 'query');
      trace.fromResponseCache();
    }
    return send.success(req, res, state, entry.body, CONTENT_TYPES[mediaType], entry);
  }

  /** Registers a persisted query sent with its text, once it passed the checks. */
  function register(lookup: PersistedLookup | null, query: string): void {
    if (lookup?.register) persisted!.set(lookup.sha256Hash, query);
  }

  async function answer(call: GraphqlCall, sent: SentParams): Promise<void> {
    const { req, res, state } = call;
    let trusted: TrustedDocument | null;
    let lookup: PersistedLookup | null = null;
    try {
      trusted = resolveTrustedDocument(sent, options.trusted, options.trustedOnly);
      if (trusted === null) lookup = resolvePersistedQuery(sent, persisted, observeApq);
    } catch (error) {
      noteSent(state, sent);
      return options.leave(req, res, state, { sent: error });
    }
    if (!isWellFormed(sent)) return options.leave(req, res, state, { sent, persisted: lookup });
    // A request with a persisted query or a trusted document is never an alias: what its bytes
    // ask for depends on the store of queries, or on the manifests.
    if (lookup !== null || trusted !== null) {
      call.raw = undefined;
      state.documentHash = trusted?.hash ?? lookup!.sha256Hash;
    }
    let key: string | undefined;
    try {
      key = responses ? responseKey(sent.query, sent.operationName, sent.variables) : undefined;
    } catch (error) {
      if (!(error instanceof JsonTooDeepError)) throw error;
      noteSent(state, sent);
      return send.refusal(req, res, state, variablesTooDeep());
    }
    if (key !== undefined) {
      const hit = responses!.get(state.served!, key);
      lookups[hit ? 'hits' : 'misses']++;
      if (hit) {
        state.trace?.graphql().operation(sent.query, undefined, undefined);
        register(lookup, sent.query);
        if (call.raw) responses!.alias(state.served!, call.method, call.raw, hit);
        return cached(req, res, state, call.mediaType, hit);
      }
    }
    const request = trusted ? { query: sent.query, operationName: sent.operationName, variables: sent.variables, checked: trusted.document } : sent;
    const trace = state.trace?.graphql();
    const prepared = engine.prepare(request, state.served!.sizes, trace);
    if (trace) {
      const operation = prepared.errors ? undefined : prepared.operation.operation;
      trace.operation(sent.query, operation?.name?.value ?? sent.operationName, operation?.operation);
    }
    // graphql-http's side words the refusals, and answers operations other than queries.
    if (prepared.errors || prepared.operation.operation.operation !== 'query') return options.leave(req, res, state, { sent, prepared, persisted: lookup });
    markPassedChecks(state, prepared, metrics, sent.query);
    register(lookup, sent.query);
    if (call.parsed && call.raw) bodies.remember(call.raw, sent);
    return execute(call, sent.variables, prepared.operation, key, prepared.cost);
  }

  /** Answers a query that passed the checks, and keeps a successful answer in the response cache. */
  function execute(call: GraphqlCall, variables: SentParams['variables'], operation: PreparedOperation, key: string | undefined, cost: number): Promise<void> | void {
    const served = call.state.served!;
    const executed = call.state.trace?.graphql().execute();
    const answer = operation.answer(startDeadline(options.executionTimeoutMs), served.context, variables as Record<string, unknown> | undefined, records);
    if (isPromise(answer)) {
      return answer.then((settled) => {
        executed?.();
        return sendAnswer(call, settled, operation.label, key, cost);
      });
    }
    executed?.();
    return sendAnswer(call, answer, operation.label, key, cost);
  }

  function sendAnswer({ req, res, state, method, raw, mediaType }: GraphqlCall, answer: Answer, label: string, key: string | undefined, cost: number): Promise<void> | void {
    const contentType = CONTENT_TYPES[mediaType];
    if (answer.errors) {
      state.hasErrors = true;
      state.codes = codesOf(answer.errors);
      options.logErrors(state, answer.errors);
      return send.withErrors(req, res, state, answer.bytes, contentType);
    }
    const served = state.served!;
    const entry =
      key === undefined
        ? undefined
        : responses!.set(served, served.version, key, answer.bytes, { label, operationName: state.operationName, cost, documentHash: (state.documentHash ??= documentHash(state.query!)) });
    if (entry && raw) responses!.alias(served, method, raw, entry);
    return send.success(req, res, state, answer.bytes, contentType, entry);
  }

  return { cached, answer };
}
