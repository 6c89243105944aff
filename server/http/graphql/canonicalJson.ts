/** Canonical JSON: one text per value, whatever the order its objects' keys came in. */

/** Deepest nesting of arrays and objects {@link canonicalJson} writes; a value of the top level is at depth 1. */
export const MAX_JSON_DEPTH = 64;

/** A value nested deeper than {@link MAX_JSON_DEPTH}: it is the client's, and refused, not a bug. */
export class JsonTooDeepError extends Error {
  constructor() {
    super(`The value nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * JSON with object keys in sorted order, so equal values have one text.
 *
 * Numbers JSON cannot write get a text of their own: `Infinity`, `-Infinity`, `NaN` and `-0`
 * rather than JSON.stringify's `null` and `0`. A JSON number too large for a double parses to
 * Infinity, which graphql-js refuses where it accepts null, so the two must not share a text.
 *
 * @throws JsonTooDeepError when arrays and objects nest deeper than {@link MAX_JSON_DEPTH}: the
 *   walk is recursive, and a client's value could otherwise exhaust the stack
 */
export function canonicalJson(value: unknown): string {
  return write(value, 1);
}

function write(value: unknown, depth: number): string {
  if (typeof value === 'number') return numberText(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + write(value[i], depth + 1);
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${write(item, depth + 1)}`;
  }
  return `${text}}`;
}

/** A number's text: JSON's for a finite one (String writes the same), and one of its own for the others. */
function numberText(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}
