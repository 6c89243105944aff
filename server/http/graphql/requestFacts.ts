/**
 * What a GraphQL request's log line and metrics say of it beyond its status: the error codes of
 * its answer, the name of its operation and its document. Read from what the route holds anyway;
 * only a refusal pays for more (its body read back for its codes, its document scanned for a name).
 */

import type { GraphQLError } from 'graphql';
import { isInternalError } from '../formatError.ts';
import type { RequestState } from '../requestState.ts';

/** Longest operation name written to the logs and the metrics; the rest is cut. */
export const MAX_LOGGED_OPERATION_NAME = 100;

/** A persisted-query hash as the APQ protocol sends it (lowercase hex once read). */
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** The keyword and name an operation starts with, read from a given offset (sticky: never scans on). */
const OPERATION_START = /(?:query|mutation|subscription)[\s,]+([_A-Za-z][_0-9A-Za-z]*)/y;

/**
 * The distinct codes of an answer's errors, in order, as the client receives them: an internal
 * error is sent as INTERNAL_SERVER_ERROR (server/http/formatError.ts).
 */
export function codesOf(errors: readonly GraphQLError[]): string[] {
  const codes: string[] = [];
  for (const error of errors) {
    const code = isInternalError(error) ? 'INTERNAL_SERVER_ERROR' : (error as GraphQLError).extensions?.code;
    if (typeof code === 'string' && !codes.includes(code)) codes.push(code);
  }
  return codes;
}

/**
 * The distinct codes of an error body `{ "errors": [{ extensions: { code } }] }` as sent; none
 * when it is not one.
 */
export function codesInBody(body: string | Buffer): string[] {
  let errors: unknown;
  try {
    errors = (JSON.parse(body.toString()) as { errors?: unknown }).errors;
  } catch {
    return [];
  }
  const codes: string[] = [];
  if (!Array.isArray(errors)) return codes;
  for (const error of errors) {
    const code = (error as { extensions?: { code?: unknown } } | null)?.extensions?.code;
    if (typeof code === 'string' && !codes.includes(code)) codes.push(code);
  }
  return codes;
}

/**
 * Notes in the state what a request the route did not answer from its parameters alone sent: its
 * operation name (the `operationName` sent, else the name of the operation its document opens
 * with), its document, and the hash of its persisted query. Keeps what the state knows already.
 *
 * @param sent the request's parameters as read (an object), or anything else the route holds
 */
export function noteSent(state: RequestState, sent: unknown): void {
  if (typeof sent !== 'object' || sent === null || sent instanceof Error) return;
  const { query, operationName, extensions } = sent as { query?: unknown; operationName?: unknown; extensions?: unknown };
  if (typeof query === 'string') state.query ??= query;
  const name = typeof operationName === 'string' && operationName !== '' ? operationName : typeof query === 'string' ? openingOperationName(query) : undefined;
  if (name !== undefined) state.operationName ??= name.slice(0, MAX_LOGGED_OPERATION_NAME);
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery?.sha256Hash;
  if (typeof hash === 'string' && SHA256_HEX.test(hash)) state.documentHash ??= hash.toLowerCase();
}

/**
 * The name of the operation a document opens with (past spaces, commas and comments), without
 * parsing it: a refused document may be one too large or too broken to parse.
 */
function openingOperationName(query: string): string | undefined {
  let at = 0;
  while (at < query.length) {
    const char = query.charCodeAt(at);
    if (char === 0x23) {
      // A comment runs to the end of its line.
      while (at < query.length && query.charCodeAt(at) !== 0x0a && query.charCodeAt(at) !== 0x0d) at++;
    } else if (char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d || char === 0x2c || char === 0xfeff) {
      at++;
    } else {
      break;
    }
  }
  OPERATION_START.lastIndex = at;
  return OPERATION_START.exec(query)?.[1];
}
