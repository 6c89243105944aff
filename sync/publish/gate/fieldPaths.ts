/**
 * Dotted field paths into records (`snow.depthResort`, `summary.startingPrice.amount`): reading
 * one, listing the filled ones, and clearing some in a copy.
 */

/**
 * The value at a dotted path.
 *
 * @returns undefined when a step on the way is missing, null or not an object
 */
export function valueAt(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Whether a value counts as filled: not null or undefined, not an empty string, not an empty list. */
export function isFilled(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * Every field path of a record, with whether it is filled: a nested object is a path (filled when
 * present) and its fields are walked; a list is one path. `skip` names top-level keys left out
 * (such as `raw`, the upstream record as received).
 */
export function fieldPaths(record: object, skip: ReadonlySet<string>, prefix = ''): [string, boolean][] {
  const leaves: [string, boolean][] = [];
  for (const [key, value] of Object.entries(record)) {
    if (prefix === '' && skip.has(key)) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    leaves.push([path, isFilled(value)]);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) leaves.push(...fieldPaths(value, skip, path));
  }
  return leaves;
}

/**
 * A copy of `record` with each path set to null; the objects on the way are copied, the rest is
 * shared. A path whose parent is missing or null is left as it is.
 */
export function withCleared<R extends object>(record: R, paths: readonly string[]): R {
  let copy = record;
  for (const path of paths) copy = clearOne(copy, path.split('.'));
  return copy;
}

function clearOne<R extends object>(object: R, keys: readonly string[]): R {
  const [key, ...rest] = keys as [string, ...string[]];
  if (!(key in object)) return object;
  const value = (object as Record<string, unknown>)[key];
  if (rest.length === 0) return value === null ? object : { ...object, [key]: null };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return object;
  return { ...object, [key]: clearOne(value, rest) };
}
