import { GraphQLError } from 'graphql';

/** The message a client sees instead of an internal error. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/**
 * Every `extensions.code` a client can receive, with its meaning and HTTP status. Every error
 * body, GraphQL or not, has the shape `{ "errors": [{ message, locations?, path?, extensions: { code } }] }`.
 * For GraphQL errors the status follows the GraphQL-over-HTTP spec: 200 with
 * `Accept: application/json`, 400 (or 200 with partial data) with `application/graphql-response+json`.
 */
export const ERROR_CODES = {
  BAD_REQUEST:
    'Malformed request: JSON that does not parse, no query, a batched (array) body, a bad persistedQuery extension, an operationName over 256 characters, variables nested over 64 levels, a query-string parameter that is not UTF-8 once percent-decoded (400).',
  BAD_USER_INPUT: 'An argument or variable value that is not allowed; the message names it and what is allowed.',
  CHANGES_SINCE_TOO_OLD:
    '`changes(since:)` names a version older than the oldest its change lists reach back to, or unknown to the version served; `extensions.oldestVersion` names the oldest covered. Fetch the lists in full.',
  GRAPHQL_PARSE_FAILED: 'The query is not valid GraphQL syntax.',
  GRAPHQL_VALIDATION_FAILED: 'The query does not fit the schema (unknown field, wrong argument type, introspection turned off, a mutation or subscription…).',
  OPERATION_RESOLUTION_FAILURE: 'operationName names no operation of the document, or the document holds several and none is chosen.',
  QUERY_TOO_COMPLEX: 'A limit on tokens, depth, aliases, directives, cost or introspection; the message names the limit and the measured value.',
  RESPONSE_TOO_LARGE: 'The answer would be, or grew, larger than MAX_RESPONSE_BYTES; ask for fewer items or fields. The message gives both sizes.',
  PERSISTED_QUERY_NOT_FOUND: 'The persisted-query hash is unknown: send the query with its hash once (Apollo APQ); or the documentId names no trusted document.',
  TRUSTED_DOCUMENT_REQUIRED: 'Only trusted documents are answered (PERSISTED_DOCUMENTS_ONLY): send the documentId of one, without the query; no persisted query is registered.',
  PERSISTED_QUERY_NOT_SUPPORTED: 'Persisted queries are turned off (APQ_CACHE_BYTES=0).',
  EXECUTION_TIMEOUT: 'The execution time limit was reached; the fields that ran keep their data.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than MAX_BODY_BYTES (413).',
  HEADERS_TOO_LARGE: "The request line and headers are larger than node:http's limit, --max-http-header-size (431).",
  REQUEST_TIMEOUT: 'The headers did not arrive within HEADERS_TIMEOUT_MS, or the whole request within REQUEST_TIMEOUT_MS (408).',
  METHOD_NOT_ALLOWED: 'The path does not answer this method, or a mutation came by GET; see the Allow header (405).',
  NOT_FOUND: 'Nothing at this path (404).',
  NOT_ACCEPTABLE: 'Accept allows neither application/graphql-response+json nor application/json (406).',
  UNSUPPORTED_MEDIA_TYPE: 'A POST body that is not application/json in UTF-8 (415).',
  OVERLOADED: 'The event loop is late by more than SHED_EVENT_LOOP_DELAY_MS, or too many GeoJSON answers wait to be built: the request was not run; retry after Retry-After seconds (503).',
  INTERNAL_SERVER_ERROR: 'A bug or an unexpected failure; logged in full with the request id, never detailed to the client (500, or 200 with the field null).',
} as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Tells whether a GraphQL error hides an unexpected failure: while resolving a field (the error
 * has a `path`), something other than a `GraphQLError` was thrown (graphql-js wraps it, keeping
 * it as `originalError`). Such an error is a bug, not a message meant for the client. Errors
 * without a path come from parsing, validation or variable coercion: they are about the request.
 */
export function isInternalError(error: Readonly<GraphQLError | Error>): error is GraphQLError {
  const { originalError, path } = error as Partial<GraphQLError>;
  return isGraphQLError(error) && path !== undefined && originalError instanceof Error && !isGraphQLError(originalError);
}

/**
 * Checks the tag rather than `instanceof`: graphql 16 ships a CJS and an ESM build, and an error
 * made by the other one (graphql-http and @graphql-tools load the CJS build through Node, a
 * bundler or Vite may pick the ESM one for our code) fails `instanceof` yet is a GraphQLError.
 */
function isGraphQLError(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object GraphQLError]';
}

/**
 * graphql-http's `formatError`:
 * - a `GraphQLError` passes through unchanged (with its `extensions.code`, e.g. BAD_USER_INPUT);
 * - an internal error becomes "Internal server error" with code INTERNAL_SERVER_ERROR, keeping
 *   only `locations` and `path`;
 * - a plain `Error` is graphql-http's own complaint about the request ("Missing query"), answered
 *   with 400: it keeps its message and gets code BAD_REQUEST.
 * Stacks never reach the client: graphql-http serializes messages only.
 *
 * It does not log: the caller logs internal errors where it knows the request.
 *
 * @returns the error to serialize for the client
 */
export function formatError(error: Readonly<GraphQLError | Error>): GraphQLError | Error {
  if (!isGraphQLError(error)) return new GraphQLError(error.message, { extensions: { code: 'BAD_REQUEST' } });
  if (!isInternalError(error)) return error as GraphQLError;
  return new GraphQLError(INTERNAL_ERROR_MESSAGE, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

/**
 * The body of an error answered outside GraphQL execution (404, 405, 413, 500…), in the same
 * shape as GraphQL errors.
 */
export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}
