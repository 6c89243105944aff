/**
 * Strict reading of JSON request bodies against their schemas (requestSchemas.ts, checked by
 * TypeBox's compiled checkers): a missing, mistyped or unknown field is a 400 that names the
 * field (`details.field`, dotted for nested fields, `[i]` for array entries) and what is allowed.
 */

import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { BookingError } from './errors.ts';
import { MAX_JSON_DEPTH } from '../http/graphql/canonicalJson.ts';

export type JsonObject = Record<string, unknown>;

/**
 * What a string schema's value that fails its pattern or list of values is told: a phrase read as
 * `<field> must be <phrase>`, or a function building the whole refusal.
 */
export type Refusal = string | ((value: string, field: string) => BookingError);

/** The key under which a string schema carries its {@link Refusal}; a symbol, so it stays out of the published document. */
export const REFUSAL = Symbol('refusal');

/** A compiled reader of one body schema. */
export interface BodyReader<T extends TSchema> {
  /**
   * Parses the body, trims its strings and checks it against the schema.
   *
   * @throws BookingError INVALID_REQUEST naming the field at fault and what is allowed
   */
  read(body: Buffer): Static<T>;
}

/**
 * Compiles a reader for a body schema.
 *
 * @param required when false, an empty body reads as `{}`
 */
export function bodyReader<T extends TSchema>(schema: T, required: boolean): BodyReader<T> {
  const checker = TypeCompiler.Compile(schema);
  return {
    read(raw) {
      const body = trimStrings(parseJsonObject(raw, required), 1);
      if (checker.Check(body)) return body;
      throw refusalOf([...checker.Errors(body)]);
    },
  };
}

/**
 * Parses a request body as a JSON object.
 *
 * @param required when false, an empty body reads as `{}`
 * @throws BookingError INVALID_REQUEST when the body is empty (and required), not JSON, or not an object
 */
export function parseJsonObject(body: Buffer, required: boolean): JsonObject {
  if (body.length === 0) {
    if (!required) return {};
    throw invalid('body', 'The request needs a JSON object body');
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw invalid('body', `The body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('body', 'The body must be a JSON object');
  return value as JsonObject;
}

/** A 400 about one field. */
export function invalid(field: string, message: string): BookingError {
  return new BookingError('INVALID_REQUEST', message, { field });
}

/**
 * Surrounding white space of a string field is not part of its value (a pasted name, an e-mail
 * address).
 *
 * @param depth the nesting of `value`, the body itself at 1
 * @throws BookingError INVALID_REQUEST when arrays and objects nest deeper than the query
 *   interface allows its variables ({@link MAX_JSON_DEPTH}): the walk is recursive, and a body
 *   nested thousands deep would otherwise exhaust the stack
 */
function trimStrings<T>(value: T, depth: number): T {
  if (typeof value === 'string') return value.trim() as T;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_JSON_DEPTH) throw invalid('body', `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`);
  if (Array.isArray(value)) return value.map((entry) => trimStrings(entry, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, trimStrings(entry, depth + 1)])) as T;
}

/**
 * The refusal of the first error met reading the body field by field, except that an unknown
 * field of an object on the way to it comes first: a misspelt field explains a missing one.
 */
function refusalOf(errors: ValueError[]): BookingError {
  const first = errors[0]!;
  const unknown = errors
    .filter((error) => error.type === ValueErrorType.ObjectAdditionalProperties && first.path.startsWith(`${parentOf(error.path)}/`))
    .sort((a, b) => a.path.split('/').length - b.path.split('/').length)[0];
  if (unknown !== undefined) {
    const prefix = parentOf(unknown.path) === '' ? '' : `${fieldOf(parentOf(unknown.path))}.`;
    const allowed = Object.keys(unknown.schema.properties as object).map((name) => prefix + name);
    const field = fieldOf(unknown.path);
    return new BookingError('INVALID_REQUEST', `Unknown field ${field}; allowed: ${allowed.join(', ')}`, { field, allowed });
  }
  return refusal(first.schema, first.value, fieldOf(first.path));
}

/** Says what the schema allows of the field: the message follows its type, not the keyword that failed. */
function refusal(schema: TSchema, value: unknown, field: string): BookingError {
  const expected = withoutNull(schema);
  switch (expected[Kind]) {
    case 'Integer':
      return invalid(field, `${field} must be an integer from ${expected.minimum} to ${expected.maximum}`);
    case 'Boolean':
      return invalid(field, `${field} must be true or false`);
    case 'Object':
      return invalid(field, `${field} must be an object`);
    case 'Array':
      return invalid(field, `${field} must be an array of ${expected.minItems} to ${expected.maxItems} objects`);
  }
  // Every other schema of a request is a string, or a list of strings.
  if (value === undefined || value === null) return invalid(field, `${field} is required`);
  if (typeof value !== 'string') return invalid(field, `${field} must be a string`);
  if (value === '') return invalid(field, `${field} must not be empty`);
  if (typeof expected.maxLength === 'number' && value.length > expected.maxLength) return invalid(field, `${field} must be at most ${expected.maxLength} characters`);
  const said = (expected as { [REFUSAL]?: Refusal })[REFUSAL];
  if (typeof said === 'function') return said(value, field);
  return invalid(field, `${field} must be ${said ?? `a string matching ${expected.pattern}`}`);
}

/** The schema an optional field's value must match when it is not `null`. */
function withoutNull(schema: TSchema): TSchema {
  if (schema[Kind] !== 'Union') return schema;
  const variants = (schema.anyOf as TSchema[]).filter((variant) => variant[Kind] !== 'Null');
  return variants.length === 1 ? variants[0]! : schema;
}

/** `/selection/0/numGuests` → `selection[0].numGuests`. */
function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((field, token) => (/^\d+$/.test(token) ? `${field}[${token}]` : field === '' ? token : `${field}.${token}`), '');
}

function parentOf(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}
