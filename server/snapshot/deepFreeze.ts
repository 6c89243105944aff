/**
 * Freezing the records of a snapshot as they are read, sharing the strings they repeat across
 * locales.
 */

/**
 * Freezes so a resolver that mutates a shared record fails loudly instead of corrupting later
 * answers. Stops at values already frozen: records are frozen as they are read.
 *
 * With a twin, the same record read in another locale, each string equal to the one at the same
 * place in the twin is replaced by the twin's. JSON.parse makes a string of every value, and a
 * record repeats most of its strings in all four locales: its id, URLs, enumerations, and the
 * texts no one translated. Sharing them shrinks the live heap and leaves fewer pages of the old
 * generation for every young-generation collection to go over (docs/deploy.md). Comparing with
 * the twin, place by place, is cheaper than pooling every string in one Map and saves as much.
 *
 * @returns `value`, frozen
 */
export function deepFreeze<T>(value: T, twin?: unknown): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    const other = typeof twin === 'object' && twin !== null ? (twin as Record<string, unknown>) : undefined;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object') deepFreeze(item, other?.[i]);
        else if (typeof item === 'string' && other !== undefined && item === other[i]) value[i] = other[i];
      }
    } else {
      const container = value as Record<string, unknown>;
      for (const key in container) {
        const item = container[key];
        if (typeof item === 'object') deepFreeze(item, other?.[key]);
        // Equal strings are === whichever the copy: writing the twin's lets this one be collected.
        else if (typeof item === 'string' && other !== undefined && item === other[key]) container[key] = other[key];
      }
    }
    Object.freeze(value);
  }
  return value;
}
