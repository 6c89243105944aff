/**
 * An operation's answer as the HTTP layer sends it: JSON bytes, with the errors they carry, so
 * that the route sends one kind of value whatever answered (the answer writer, graphql-jit or
 * graphql-js) and never serialises a result itself.
 */

import { GraphQLError, type ExecutionResult } from 'graphql';
import { AnswerTooLargeError, type JsonWriter } from './json/jsonWriter.ts';
import { utf8Bytes } from './json/utf8Bytes.ts';
import { responseTooLarge } from './limits.ts';

/** An answer to send with status 200. */
export interface Answer {
  /** The answer's JSON text in UTF-8, as graphql-http serialises a result. */
  readonly bytes: Buffer;
  /**
   * The errors `bytes` carries (formatted there), for the log; undefined for a successful
   * answer, the only kind a cache may keep.
   */
  readonly errors?: readonly GraphQLError[];
}

/**
 * Turns an error into what the client is sent (server/http/formatError.ts): the HTTP layer owns
 * the wording of errors and hands it down.
 */
export type FormatError = (error: Readonly<GraphQLError | Error>) => GraphQLError | Error;

/**
 * The answer of an execution's result: its bytes, or the RESPONSE_TOO_LARGE refusal when they
 * pass `maxBytes`; a result with errors serialised as graphql-http does (its makeResponse).
 * @param out the writer of the bytes
 * @throws TypeError as JSON.stringify throws it (a bigint, a cycle)
 */
export function answerOf(result: ExecutionResult, maxBytes: number, formatError: FormatError, out: JsonWriter): Answer {
  if (result.errors) return errorAnswer(result, result.errors, formatError);
  try {
    return { bytes: out.bytesOf(result, maxBytes) };
  } catch (error) {
    if (error instanceof AnswerTooLargeError) return tooLargeAnswer(maxBytes, formatError);
    throw error;
  }
}

/** The refusal of an answer that grew past `maxBytes` (RESPONSE_TOO_LARGE, without locations). */
export function tooLargeAnswer(maxBytes: number, formatError: FormatError): Answer {
  const errors = [responseTooLarge(undefined, maxBytes)];
  return errorAnswer({ errors }, errors, formatError);
}

/** Whether an answer is the refusal of one too large ({@link tooLargeAnswer}). */
export function isTooLarge(answer: Answer): boolean {
  return answer.errors?.length === 1 && answer.errors[0]!.extensions.code === 'RESPONSE_TOO_LARGE';
}

function errorAnswer(result: ExecutionResult, errors: readonly GraphQLError[], formatError: FormatError): Answer {
  const text = JSON.stringify({ ...result, errors: errors.map(formatError) }, jsonErrorReplacer);
  return { bytes: utf8Bytes(text), errors };
}

/** graphql-http's JSON replacer: an Error other than a GraphQLError is sent as its message alone. */
function jsonErrorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error && !(value instanceof GraphQLError)) return { message: value.message };
  return value;
}
