/**
 * The `updatedSince` argument of the lists whose records carry an upstream update time, and the
 * reading of ISO 8601 times it shares with `changes(since:)`.
 */

import type { PositionSet } from '../search/positionSet.ts';
import type { AreaStore } from '../snapshot/store.ts';
import { badInput } from './args.ts';
import { rangeSetOf } from './listQuery.ts';

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
/**
 * The positions of the records of `area` updated at or after `at`, by the time in `field`; a
 * record without a readable time is not among them.
 */
export function updatedSinceSet<R>(area: AreaStore<R, string>, field: keyof R & string, at: number): PositionSet {
  return rangeSetOf(area.records, `updatedSince:${field}`, (record) => timeOf(record[field]), at, null)!;
}

function timeOf(value: unknown): number | null {
  return typeof value === 'string' ? Date.parse(value) : null;
}
