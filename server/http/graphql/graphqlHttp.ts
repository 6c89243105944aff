/**
 * graphql-http's side of the route: it answers what the fast path leaves (errors in the
 * parameters, refusals of the checks, operations other than queries, the methods and media types
 * it refuses), so that those are worded and coded as it words and codes them. It reads the
 * parameters the route read, never the request again.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { createHandler, parseRequestParams, type OperationContext, type Request as GraphqlRequest, type RequestParams } from 'graphql-http';
import type { Engine, PreparedRequest } from '../../execution/engine.ts';
import { startDeadline } from '../../execution/deadline.ts';
import { utf8Bytes } from '../../execution/json/utf8Bytes.ts';
import { formatError } from '../formatError.ts';
import { setDeferredHeaders, type RequestState } from '../requestState.ts';
import { JSON_TYPE } from '../respond.ts';
import type { GraphqlMetrics } from './graphqlMetrics.ts';
import type { PersistedLookup, PersistedQueries } from './persistedQueries.ts';
import { codesOf, noteSent } from './requestFacts.ts';
import { checkOperationName } from './requestParams.ts';
import { refuseOperationType } from './refusals.ts';
import type { AnswerSender } from './sendAnswer.ts';
import { markPassedChecks } from './markPassedChecks.ts';

/** What the route learned of a request before handing it to graphql-http. */
export interface Leftover {
  /**
   * The request's parameters as read (after the persisted query's resolution), or the body when
   * it is no JSON object, or the route's refusal of them (an Error, a GraphQLError); undefined
   * when the route read none, and graphql-http reads the request itself (405, 415, an unparsable URL).
   */
  readonly sent?: unknown;
  /** The engine's refusal of the operation, or the operation other than a query it prepared. */
  readonly prepared?: PreparedRequest;
  /** The request's persisted query, registered once its operation passes the checks. */
  readonly persisted?: PersistedLookup | null;
}

/** graphql-http's per-request context: the request's state and what the route learned. */
interface Context extends Leftover {
  readonly state: RequestState;
  /** Ends the execute step of the request's trace, when tracing is on and the operation runs. */
  executed?: () => void;
}

export interface GraphqlHttpOptions {
  schema: GraphQLSchema;
  executableSchema: GraphQLSchema;
  engine: Engine;
  persisted: PersistedQueries | null;
  metrics: GraphqlMetrics;
  send: AnswerSender;
  executionTimeoutMs: number;
  /** Logs the internal errors of an answer (see server/http/formatError.ts isInternalError). */
  logErrors: (state: RequestState, errors: readonly GraphQLError[] | undefined) => void;
}

/** Headers that have graphql-http read parameters already read as a POST's JSON body. */
const JSON_POST = { 'content-type': 'application/json' };

/** Creates the answerer of what the fast path leaves: it resolves once the answer is sent. */
export function createGraphqlHttp(options: GraphqlHttpOptions) {
  const { schema, executableSchema, engine, persisted, metrics, send } = options;
  const handler = createHandler<IncomingMessage, Context, OperationContext>({
    schema: executableSchema,
    formatError,
    async parseRequestParams(req) {
      const { sent } = req.context;
      if (sent === undefined) return undefined;
      if (sent instanceof Error) throw sent;
      // graphql-http checks the parameters and words its refusals.
      const params = await parseRequestParams({ ...req, method: 'POST', headers: JSON_POST, body: sent as Record<string, unknown> });
      if (!Array.isArray(params)) checkOperationName(params as RequestParams);
      return params;
    },
    onSubscribe(req, params) {
      const { state } = req.context;
      const request = { query: params.query, operationName: params.operationName, variables: params.variables };
      const trace = state.trace?.graphql();
      const prepared = req.context.prepared ?? engine.prepare(request, state.served!.sizes, trace);
      if (prepared.errors) {
        trace?.operation(params.query, params.operationName, undefined);
        return prepared.errors;
      }
      const { operation } = prepared.operation;
      trace?.operation(params.query, operation.name?.value ?? params.operationName, operation.operation);
      if (operation.operation !== 'query') {
        const refused = refuseOperationType(schema, operation, req.method);
        if (refused) return refused;
      }
      markPassedChecks(state, prepared, metrics, params.query);
      const lookup = req.context.persisted;
      if (lookup) state.documentHash = lookup.sha256Hash;
      if (lookup?.register) persisted!.set(lookup.sha256Hash, params.query);
      req.context.executed = trace?.execute();
      return {
        schema: executableSchema,
        document: prepared.operation.document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: state.served!.context as OperationContext,
        rootValue: startDeadline(options.executionTimeoutMs),
      };
    },
    onOperation(req, _args, result) {
      const { state } = req.context;
      req.context.executed?.();
      state.hasErrors = (result.errors?.length ?? 0) > 0;
      if (result.errors?.length) state.codes = codesOf(result.errors);
      options.logErrors(state, result.errors);
    },
  });

  return async function answer(req: IncomingMessage, res: ServerResponse, state: RequestState, leftover: Leftover = {}): Promise<void> {
    setDeferredHeaders(res, state);
    noteSent(state, leftover.sent);
    const context: Context = { state, ...leftover };
    const request: GraphqlRequest<IncomingMessage, Context> = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      // A POST's body is read by the route, with its size limit, and handed over as `sent`.
      body: null,
      raw: req,
      context,
    };
    const response = await handler(request);
    const [body, init] = response;
    if (!state.passedChecks || state.hasErrors || init.status !== 200 || body === null) return send.refusal(req, res, state, response);
    await send.success(req, res, state, utf8Bytes(body), init.headers?.['content-type'] ?? JSON_TYPE);
  };
}
