/**
 * Deep freezing, sharing what a value repeats of a twin: the snapshot freezes its records as
 * they are read, sharing across locales, and the GraphQL route the parameters it keeps.
 */

/**
 * Freezes so a resolver that mutates a shared record fails loudly instead of corrupting later
 * answers. Stops at values already frozen: records are frozen as they are read.
 *
 * With a twin, the same record read in another locale, each string equal to the one at the same
 * place in the twin is replaced by the twin's, and so is each object or array inside the record
 * whose keys, in the same order, and values all are the twin's. JSON.parse makes a new string of
 * every value and a new object of every object, and a record repeats most of them in all four
 * locales: its id, URLs, enumerations, figures, the texts no one translated, and the upstream
 * payload kept as it came. Sharing them shrinks the live heap, and what a collection of the old
 * generation has to mark, and leaves fewer pages of it for every young-generation collection to
 * go over (docs/deploy.md). Comparing with the twin, place by place, is cheaper than pooling
 * every value in one Map and saves as much.
 *
 * The value itself stays its own even when it equals the twin: a record is one object per
 * locale, whatever it shares.
 *
 * @returns `value`, frozen
 */
export function deepFreeze<T>(value: T, twin?: unknown): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeSharing(value, twin);
  return value;
}

/**
 * Freezes `value`, an object not frozen yet, replacing what it holds by the twin's where equal.
 * @returns whether `value` equals `twin`: the same keys in the same order, each value the twin's
 */
function freezeSharing(value: object, twin: unknown): boolean {
  const other = typeof twin === 'object' && twin !== null ? (twin as Record<string, unknown>) : undefined;
  let equal = other !== undefined && Array.isArray(value) === Array.isArray(other);
  if (Array.isArray(value)) {
    if (equal && value.length !== other!.length) equal = false;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      const shared = sharedValue(item, other?.[i]);
      if (shared !== item) value[i] = shared;
      else if (shared !== other?.[i]) equal = false;
    }
  } else {
    const container = value as Record<string, unknown>;
    // The twin's keys in order, to tell that this object writes its keys in the same order.
    const otherKeys = equal ? Object.keys(other!) : undefined;
    let index = 0;
    for (const key in container) {
      const item = container[key];
      const shared = sharedValue(item, other?.[key]);
      if (shared !== item) container[key] = shared;
      else if (shared !== other?.[key]) equal = false;
      if (equal && otherKeys![index] !== key) equal = false;
      index++;
    }
    if (equal && otherKeys!.length !== index) equal = false;
  }
  Object.freeze(value);
  return equal;
}

/**
 * What a record keeps at a place where it holds `item` and its twin `twin`: the twin's when
 * equal (see {@link freezeSharing}), else `item`, frozen.
 */
function sharedValue(item: unknown, twin: unknown): unknown {
  if (typeof item === 'object' && item !== null) {
    if (Object.isFrozen(item)) return item;
    return freezeSharing(item, twin) ? twin : item;
  }
  // Equal strings are === whichever the copy: the twin's lets this one be collected.
  return typeof item === 'string' && item === twin ? twin : item;
}
