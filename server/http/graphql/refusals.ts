/** The route's own refusals, in the one error shape and as graphql-http's [body, init] responses. */

import { GraphQLError, OperationTypeNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Response as GraphqlResponse } from 'graphql-http';
import { MAX_JSON_DEPTH } from './canonicalJson.ts';
import { errorBody, type ErrorCode } from '../formatError.ts';
import { misencodedMessage } from '../queryEncoding.ts';
import type { PayloadTooLargeError } from '../readBody.ts';
import { JSON_TYPE } from '../respond.ts';

/** Codes of the bodiless refusals of graphql-http. */
export const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = { 405: 'METHOD_NOT_ALLOWED', 406: 'NOT_ACCEPTABLE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/**
 * The message of a 415: graphql-http takes a POST body as `application/json`, in UTF-8 when a
 * charset is named (its parseRequestParams), and says only "Unsupported Media Type".
 *
 * @param contentType the request's Content-Type, or undefined when it sent none
 */
export function unsupportedMediaType(contentType: string | undefined): string {
  return `The body of a POST must be JSON sent as Content-Type: application/json (or application/json; charset=utf-8), not ${contentType === undefined ? 'without a Content-Type' : JSON.stringify(contentType)}`;
}

/** The refusal of variables too deeply nested to be keyed (canonicalJson); not worth a stack trace. */
export const VARIABLES_TOO_DEEP = `Variables nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`;

/** A refusal outside GraphQL execution, in the one error shape. */
function refusal(status: number, statusText: string, code: ErrorCode, message: string, headers: Record<string, string> = {}): GraphqlResponse {
  return [errorBody(code, message), { status, statusText, headers: { 'content-type': JSON_TYPE, ...headers } }];
}

/**
 * The refusal of a mutation or subscription, before it runs, or null to run it: a mutation by GET
 * is a 405 (https://graphql.github.io/graphql-over-http/draft/#sel-GALJTPABABgCzsd), and an
 * operation whose root type the schema lacks fails validation, as graphql-js 17's
 * KnownOperationTypesRule words it (graphql-js 16 would execute it into an error without a code).
 */
export function refuseOperationType(schema: GraphQLSchema, operation: OperationDefinitionNode, method: string): GraphqlResponse | GraphQLError[] | null {
  const kind = operation.operation;
  const defined = schema.getRootType(kind) !== undefined;
  if (kind === OperationTypeNode.MUTATION && method === 'GET') {
    const next = defined ? 'send it by POST' : 'this API has no mutations: it answers queries only';
    return refusal(405, 'Method Not Allowed', 'METHOD_NOT_ALLOWED', `A mutation cannot be sent by GET; ${next}`, { allow: 'POST' });
  }
  if (defined) return null;
  return [new GraphQLError(`The ${kind} operation is not supported by the schema.`, { nodes: operation, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })];
}

/** The refusal of a body past MAX_BODY_BYTES. */
export function payloadTooLarge(error: PayloadTooLargeError): GraphqlResponse {
  return [
    errorBody('PAYLOAD_TOO_LARGE', error.message),
    // The rest of the body is not read: the connection cannot carry another request after it.
    { status: 413, statusText: 'Payload Too Large', headers: { 'content-type': JSON_TYPE, connection: 'close' } },
  ];
}

/** The refusal of variables too deep to key the response cache with. */
export function variablesTooDeep(): GraphqlResponse {
  return refusal(400, 'Bad Request', 'BAD_REQUEST', VARIABLES_TOO_DEEP);
}

/** The refusal of a GET whose query string has a parameter that is not UTF-8 once percent-decoded. */
export function misencodedQuery(name: string): GraphqlResponse {
  return refusal(400, 'Bad Request', 'BAD_REQUEST', misencodedMessage(name));
}
