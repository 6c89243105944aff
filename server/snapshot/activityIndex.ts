/**
 * What activities' list query needs beyond the store's shared indexes: the starting price as a
 * range, the bookable days (sync/records.ts `availableDates`) as sets per day, the orders of its
 * `sort` values, and, per Zurich day, the records as served that day: their `nextAvailableDate`
 * and `isBookable` worked out from the bookable days, so that a snapshot synced weeks ago never
 * answers a day already past. Built on first use per area and kept with it.
 */

import type { ActivityRecord } from '../../sync/format.ts';
import { createDaySets, type DaySets } from '../search/daySets.ts';
import type { PositionSet } from '../search/positionSet.ts';
import { createRangeIndex, type RangeIndex } from '../search/orderIndex.ts';
import { dayNumber, dayNumberOf, dayOfNumber } from '../util/zurichDay.ts';

/** The orders of `activities(sort:)` that do not depend on the day, as positions. */
export type StaticActivityOrder = 'PRICE_ASC' | 'PRICE_DESC' | 'POPULARITY_DESC';

/** The activities of one area as served on one day. */
export interface ActivitiesOnDay {
  /** Per position, the record with that day's `nextAvailableDate` and `isBookable` (the stored record when they are unchanged). */
  readonly records: readonly ActivityRecord[];
  readonly byId: ReadonlyMap<string, ActivityRecord>;
  /** Positions by that day's `nextAvailableDate` ascending, records without one last, then by id. */
  readonly nextDateOrder: Uint32Array;
}

export interface ActivityIndex {
  /** The positions whose starting price in CHF lies in `[min, max]` (null: open); a record without one, or in another currency, in none. */
  priceBetween(min: number | null, max: number | null): PositionSet;
  /** The positions of active records bookable on at least one day from `first` to `last` (`YYYY-MM-DD`, both included). */
  bookableBetween(first: string, last: string): PositionSet;
  /** Positions in the order of a sort value, ties by id. */
  order(sort: StaticActivityOrder): Uint32Array;
  /** The records as served on `today` (`YYYY-MM-DD`, Europe/Zurich). */
  on(today: string): ActivitiesOnDay;
}

/**
 * The days of `availableDates` as runs of day numbers `[first, last, …]`, or a message naming the
 * problem: each entry a `YYYY-MM-DD` day or a `YYYY-MM-DD/YYYY-MM-DD` run, ascending, not overlapping.
 */
export function readAvailableDates(value: unknown): number[] | string {
  if (!Array.isArray(value)) return `expected a list of days, found ${JSON.stringify(value)}`;
  const runs: number[] = [];
  for (const [i, entry] of value.entries()) {
    const text = typeof entry === 'string' ? entry : '';
    const from = dayNumberOf(text.length === 21 && text.charCodeAt(10) === 47 ? text.slice(0, 10) : text);
    const to = text.length === 21 ? dayNumberOf(text.slice(11)) : from;
    if (from === null || to === null) return `[${i}]: ${JSON.stringify(entry)} is not YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD`;
    if (to < from) return `[${i}]: ${entry} ends before it starts`;
    if (runs.length > 0 && from <= runs[runs.length - 1]!) return `[${i}]: ${entry} is not after the entry before it`;
    runs.push(from, to);
  }
  return runs;
}

/**
 * The bookable days of a record; a record of format version 1 has no `availableDates`, and
 * its next available date is the one bookable day known of it.
 */
function runsOf(record: ActivityRecord): number[] {
  const dates = (record as Partial<ActivityRecord>).availableDates;
  if (dates === undefined) return record.nextAvailableDate === null ? [] : [dayNumber(record.nextAvailableDate), dayNumber(record.nextAvailableDate)];
  const runs = readAvailableDates(dates);
  // The snapshot's validation (load.ts) refused any record whose dates do not read.
  if (typeof runs === 'string') throw new Error(`activity ${record.id}: availableDates${runs}`);
  return runs;
}

const built = new WeakMap<readonly ActivityRecord[], ActivityIndex>();

/** The index of an area's records (in the store's order), built once per records array. */
export function activityIndexOf(records: readonly ActivityRecord[]): ActivityIndex {
  let index = built.get(records);
  if (index === undefined) built.set(records, (index = buildIndex(records)));
  return index;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The starting price in CHF, null when there is none. */
function francs(record: ActivityRecord): number | null {
  const price = record.summary.startingPrice;
  if (price === null || price.currency !== 'CHF') return null;
  const amount = Number(price.amount);
  return Number.isFinite(amount) ? amount : null;
}

function buildIndex(records: readonly ActivityRecord[]): ActivityIndex {
  const runs = records.map(runsOf);
  const prices = records.map(francs);
  const price: RangeIndex = createRangeIndex(records, francs);
  // Inactive activities are listed but not bookable on any day (docs/swissactivities-mapping.md).
  const days: DaySets = createDaySets(records.length, records.map((record, p) => (record.summary.isActive ? runs[p]! : null)));
  const orders = new Map<StaticActivityOrder, Uint32Array>();
  const positions = () => Array.from(records.keys());
  const byPrice = (direction: 1 | -1) => (a: number, b: number) => {
    const x = prices[a]!;
    const y = prices[b]!;
    if (x === null || y === null) return x === y ? compareIds(records[a]!.id, records[b]!.id) : x === null ? 1 : -1;
    return (x - y) * direction || compareIds(records[a]!.id, records[b]!.id);
  };
  const compare: Record<StaticActivityOrder, (a: number, b: number) => number> = {
    PRICE_ASC: byPrice(1),
    PRICE_DESC: byPrice(-1),
    POPULARITY_DESC: (a, b) => records[b]!.summary.popularity - records[a]!.summary.popularity || compareIds(records[a]!.id, records[b]!.id),
  };
  // A request in flight across midnight still reads the day before: two days are kept.
  const daysServed: { today: string; view: ActivitiesOnDay }[] = [];
  return {
    priceBetween: (min, max) => price.within(min, max),
    bookableBetween: (first, last) => days.anyBetween(dayNumber(first), dayNumber(last)),
    order(sort) {
      let order = orders.get(sort);
      if (order === undefined) orders.set(sort, (order = Uint32Array.from(positions().sort(compare[sort]))));
      return order;
    },
    on(today) {
      const known = daysServed.find((served) => served.today === today);
      if (known) return known.view;
      const view = viewOn(records, runs, dayNumber(today));
      daysServed.unshift({ today, view });
      daysServed.length = Math.min(daysServed.length, 2);
      return view;
    },
  };
}

/** The records as served on the day numbered `today`. */
function viewOn(records: readonly ActivityRecord[], runs: readonly number[][], today: number): ActivitiesOnDay {
  const served: ActivityRecord[] = new Array(records.length);
  const byId = new Map<string, ActivityRecord>();
  // Records without a next day sort after every day.
  const next = new Float64Array(records.length).fill(Infinity);
  const texts = new Map<number, string>();
  for (let p = 0; p < records.length; p++) {
    const record = records[p]!;
    const day = firstDayFrom(runs[p]!, today);
    let nextAvailableDate: string | null = null;
    if (day !== null) {
      next[p] = day;
      nextAvailableDate = texts.get(day) ?? null;
      if (nextAvailableDate === null) texts.set(day, (nextAvailableDate = dayOfNumber(day)));
    }
    const isBookable = record.summary.isActive && nextAvailableDate !== null;
    const same = nextAvailableDate === record.nextAvailableDate && isBookable === record.isBookable;
    // A copy keeps the record's keys in their order: its answer's bytes differ only in these two fields.
    served[p] = same ? record : Object.freeze({ ...record, isBookable, nextAvailableDate });
    byId.set(record.id, served[p]!);
  }
  // Two records without a next day differ by NaN (Infinity - Infinity), which falls to the ids as 0 does.
  const order = Uint32Array.from(records.keys()).sort((a, b) => next[a]! - next[b]! || compareIds(records[a]!.id, records[b]!.id));
  return { records: served, byId, nextDateOrder: order };
}

/** The first day of `runs` on or after `today`, or null. */
function firstDayFrom(runs: readonly number[], today: number): number | null {
  // Runs are few per record, and the first ones are the likeliest to hold today.
  for (let r = 0; r + 1 < runs.length; r += 2) {
    if (runs[r + 1]! < today) continue;
    return Math.max(runs[r]!, today);
  }
  return null;
}
