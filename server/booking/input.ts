/**
 * Strict reading of JSON request bodies: a missing, mistyped or unknown field is a 400 that
 * names the field (`details.field`, dotted for nested fields) and what is expected.
 */

import { BookingError } from './errors.ts';

export type JsonObject = Record<string, unknown>;

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
  if (!isObject(value)) throw invalid('body', 'The body must be a JSON object');
  return value;
}

/**
 * Refuses fields a request does not define, so a misspelt field fails instead of being ignored.
 *
 * @param prefix the object's own field path with a trailing dot, e.g. `customer.`; '' for the body
 * @throws BookingError INVALID_REQUEST naming the first unknown field and the allowed ones
 */
export function checkFields(object: JsonObject, allowed: readonly string[], prefix = ''): void {
  for (const name of Object.keys(object)) {
    if (!allowed.includes(name)) {
      throw new BookingError('INVALID_REQUEST', `Unknown field ${prefix}${name}; allowed: ${allowed.map((field) => prefix + field).join(', ')}`, {
        field: prefix + name,
        allowed: allowed.map((field) => prefix + field),
      });
    }
  }
}

interface StringRule {
  maxLength: number;
  /** A pattern the value must match, and how to describe it in the error. */
  pattern?: { regex: RegExp; hint: string };
}

/**
 * Reads a required string field (trimmed; must not be empty).
 *
 * @throws BookingError INVALID_REQUEST when absent, not a string, empty, too long or not matching
 */
export function requiredString(object: JsonObject, name: string, rule: StringRule, prefix = ''): string {
  const value = optionalString(object, name, rule, prefix);
  if (value === undefined) throw invalid(prefix + name, `${prefix}${name} is required`);
  return value;
}

/**
 * Reads an optional string field; `null` counts as absent.
 *
 * @throws BookingError INVALID_REQUEST as {@link requiredString}, except when absent
 */
export function optionalString(object: JsonObject, name: string, rule: StringRule, prefix = ''): string | undefined {
  const value = object[name];
  if (value === undefined || value === null) return undefined;
  const field = prefix + name;
  if (typeof value !== 'string') throw invalid(field, `${field} must be a string`);
  const text = value.trim();
  if (text === '') throw invalid(field, `${field} must not be empty`);
  if (text.length > rule.maxLength) throw invalid(field, `${field} must be at most ${rule.maxLength} characters`);
  if (rule.pattern && !rule.pattern.regex.test(text)) throw invalid(field, `${field} must be ${rule.pattern.hint}`);
  return text;
}

/**
 * Reads a required integer field.
 *
 * @throws BookingError INVALID_REQUEST when absent, not an integer, or outside min..max
 */
export function requiredInteger(object: JsonObject, name: string, min: number, max: number, prefix = ''): number {
  const value = object[name];
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw invalid(prefix + name, `${prefix}${name} must be an integer from ${min} to ${max}`);
  }
  return value as number;
}

/**
 * Reads an optional boolean field; `null` counts as absent.
 *
 * @throws BookingError INVALID_REQUEST when present and not a boolean
 */
export function optionalBoolean(object: JsonObject, name: string): boolean | undefined {
  const value = object[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(name, `${name} must be true or false`);
  return value;
}

/**
 * Reads a required object field.
 *
 * @throws BookingError INVALID_REQUEST when absent or not an object
 */
export function requiredObject(object: JsonObject, name: string): JsonObject {
  const value = object[name];
  if (!isObject(value)) throw invalid(name, `${name} must be an object`);
  return value;
}

/**
 * Reads a required array of objects with `min` to `max` entries.
 *
 * @throws BookingError INVALID_REQUEST when absent, not an array, of the wrong length, or holding a non-object (named `name[i]`)
 */
export function requiredObjectArray(object: JsonObject, name: string, min: number, max: number): JsonObject[] {
  const value = object[name];
  if (!Array.isArray(value) || value.length < min || value.length > max) throw invalid(name, `${name} must be an array of ${min} to ${max} objects`);
  value.forEach((entry, index) => {
    if (!isObject(entry)) throw invalid(`${name}[${index}]`, `${name}[${index}] must be an object`);
  });
  return value as JsonObject[];
}

/** A 400 about one field. */
export function invalid(field: string, message: string): BookingError {
  return new BookingError('INVALID_REQUEST', message, { field });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
