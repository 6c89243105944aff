/**
 * The `updatedSince` argument of the lists whose records carry an upstream update time, and the
 * reading of ISO 8601 times it shares with `changes(since:)`.
 */

import { type Intersection, type PositionSet, positionSetOf } from '../search/positionSet.ts';
import type { AreaStore } from '../snapshot/store.ts';
import { badInput } from './args.ts';

/** A date, or a date and time with seconds and fractions optional and a zone (`Z` or an offset) required. */
const ISO_TIME = /^\d{4}-\d\d-\d\d(?:T\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:\d\d))?$/;

/**
 * An ISO 8601 time in ms since the epoch (a bare date is midnight UTC); null when `value` is not
 * one, or names no real time (`2026-02-30`).
 */
export function parseTime(value: string): number | null {
  if (!ISO_TIME.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  // Date.parse rolls an impossible day over into the next month; a real date reads back as itself.
  const day = value.slice(0, 10);
  if (new Date(Date.parse(`${day}T00:00:00Z`)).toISOString().slice(0, 10) !== day) return null;
  return at;
}

/**
 * `updatedSince` checked: the time in ms, or null when not given.
 *
 * @throws GraphQLError BAD_USER_INPUT for a malformed time
 */
export function checkUpdatedSince(value: string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const at = parseTime(value);
  if (at === null) throw badInput(`updatedSince: "${value}" is not an ISO 8601 time; allowed: e.g. 2026-11-20T04:00:00Z, 2026-11-20T05:00:00+01:00 or 2026-11-20`);
  return at;
}

/** Per area store, each record's update time in ms (NaN when it has none), by position. */
const timesCache = new WeakMap<object, Float64Array>();

/**
 * The positions of the records of `area` updated at or after `at`, by the time in `field`; a
 * record without a readable time is not among them.
 */
export function updatedSinceSet<R>(area: AreaStore<R, string>, field: keyof R & string, at: number): PositionSet {
  let times = timesCache.get(area);
  if (times === undefined) {
    times = Float64Array.from(area.records, (record) => {
      const value = record[field];
      return typeof value === 'string' ? Date.parse(value) : Number.NaN;
    });
    timesCache.set(area, times);
  }
  const positions: number[] = [];
  for (let i = 0; i < times.length; i++) if (times[i]! >= at) positions.push(i);
  return positionSetOf(times.length, positions);
}

/** `filter` narrowed to the records updated at or after `at`; `filter` itself when `at` is null. */
export function withUpdatedSince<R>(filter: Intersection | null, area: AreaStore<R, string>, field: keyof R & string, at: number | null): Intersection | null {
  if (at === null) return filter;
  return [updatedSinceSet(area, field, at), ...(filter ?? [])];
}
