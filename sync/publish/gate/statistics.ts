/** Statistics of one locale and area's records: how often each field is filled, and medians. */

import type { AreaName } from '../../format.ts';
import { fieldPaths, valueAt } from './fieldPaths.ts';
import { PLAUSIBILITY_RULES } from './plausibilityRules.ts';
import type { AreaStatistics } from './types.ts';

/** Top-level keys left out of fill rates: `raw` is the upstream record as received, not a field. */
const NOT_FIELDS: ReadonlySet<string> = new Set(['raw']);

/** The numeric paths of an area whose medians are watched: those the plausibility table names. */
export function medianPaths(area: AreaName): string[] {
  return [...new Set(PLAUSIBILITY_RULES[area].flatMap((rule) => rule.medianPaths))];
}

/**
 * Fill rate per field path (every field path seen in any record; a record without it counts as
 * not filled) and the median per numeric path of the area's plausibility rules.
 */
export function areaStatistics(area: AreaName, records: readonly object[]): AreaStatistics {
  const filled = new Map<string, number>();
  for (const record of records) {
    for (const [path, isFilled] of fieldPaths(record, NOT_FIELDS)) filled.set(path, (filled.get(path) ?? 0) + (isFilled ? 1 : 0));
  }
  const fillRates: Record<string, number> = {};
  for (const [path, count] of [...filled].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) fillRates[path] = records.length === 0 ? 0 : count / records.length;
  const medians: Record<string, number | null> = {};
  for (const path of medianPaths(area)) medians[path] = median(records.map((record) => toNumber(valueAt(record, path))).filter((n): n is number => n !== null));
  return { count: records.length, fillRates, medians };
}

/** The median of some numbers (the mean of the middle two for an even count), null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function toNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}
