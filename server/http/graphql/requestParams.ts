/**
 * A GraphQL request's parameters, read once from a POST's JSON body or a GET's query string, and
 * the checks graphql-http makes of them (https://graphql.github.io/graphql-over-http/draft/#sec-Request-Parameters).
 */

import type { RequestParams } from 'graphql-http';

/**
 * Longest `operationName` a request may send. Error messages quote it ("Unknown operation named
 * …"), and a client should not have the server send back whatever it sent; no real operation
 * name comes near it.
 */
export const MAX_OPERATION_NAME_CHARS = 256;

/** The four parameters as sent, not yet checked, and the id of a trusted document. */
export interface SentParams {
  query: unknown;
  operationName: unknown;
  variables: unknown;
  extensions: unknown;
  /** GraphQL over HTTP's persisted documents: the id of a trusted document, sent instead of `query`. */
  documentId?: unknown;
}

/**
 * The JSON value of a POST's body.
 * @throws Error (400) for a body that is no JSON, or a batch (an array)
 */
export function parseJsonBody(raw: Buffer): unknown {
  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new Error(`Malformed JSON body: ${(error as Error).message}`);
  }
  if (Array.isArray(data)) throw new Error('Batched requests are not supported: send one operation per request, as a JSON object');
  return data;
}

/** The parameters of a POST's JSON body (an object). */
export function bodyParams(body: object): SentParams {
  const { query, operationName, variables, extensions, documentId } = body as Partial<SentParams>;
  return { query, operationName, variables, extensions, documentId };
}

/**
 * The parameters of a GET's query string (the request target past its first `?`), read as
 * graphql-http reads them: up to a second `?`, `variables` and `extensions` as JSON. Undefined
 * when that JSON does not parse: graphql-http then words the refusal (`Unparsable URL`).
 */
export function readSearchParams(query: string): SentParams | undefined {
  const search = new URLSearchParams(searchOf(query));
  const variables = search.get('variables');
  const extensions = search.get('extensions');
  const params: SentParams = {
    query: search.get('query') ?? undefined,
    operationName: search.get('operationName') ?? undefined,
    variables: undefined,
    extensions: undefined,
    documentId: search.get('documentId') ?? undefined,
  };
  try {
    if (variables) params.variables = JSON.parse(variables);
    if (extensions) params.extensions = JSON.parse(extensions);
  } catch {
    return undefined;
  }
  return params;
}

/** The part of a GET's query string graphql-http reads: up to a second `?`. */
export function searchOf(query: string): string {
  const end = query.indexOf('?');
  return end === -1 ? query : query.slice(0, end);
}

/**
 * Whether parameters pass graphql-http's checks (its parseRequestParams, whose refusals it words)
 * and ours of the operation name. A copy of its checks, as a predicate: parseRequestParams is
 * async and reads the body itself, which would cost every request a promise.
 */
export function isWellFormed(params: SentParams): params is RequestParams & SentParams {
  const { query, operationName, variables, extensions } = params;
  if (typeof query !== 'string') return false;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return false;
  if (operationName != null && (typeof operationName !== 'string' || operationName.length > MAX_OPERATION_NAME_CHARS)) return false;
  return extensions == null || (typeof extensions === 'object' && !Array.isArray(extensions));
}

/**
 * Refuses an `operationName` over {@link MAX_OPERATION_NAME_CHARS} characters, without quoting it.
 * @throws Error (400 BAD_REQUEST, as graphql-http answers an Error of its parameters)
 */
export function checkOperationName(params: RequestParams): void {
  const length = params.operationName?.length ?? 0;
  if (length > MAX_OPERATION_NAME_CHARS) {
    throw new Error(`operationName is ${length.toLocaleString('en-US')} characters long; the limit is ${MAX_OPERATION_NAME_CHARS}`);
  }
}
