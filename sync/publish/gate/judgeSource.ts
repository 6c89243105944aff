/** The verdict on one source: every refusal rule of sourceRules.ts, checked per locale and area. */

import type { AreaName } from '../../format.ts';
import {
  DRIFT_FILLED_BEFORE,
  DRIFT_FILLED_NOW,
  FILL_FLOORS,
  MAX_CLEARED_SHARE,
  MAX_DAMAGED_TEXT_SHARE,
  MAX_MEDIAN_FACTOR,
  WEATHER_FIELDS,
  MAX_REJECTED_SHARE,
  MAX_UNREADABLE_SHARE,
  MIN_KEPT_SHARE,
  MIN_LOCALE_SHARE,
  MIN_RECEIVED_SHARE,
} from './sourceRules.ts';
import { areaStatistics } from './statistics.ts';
import type { AreaInput, AreaStatistics, Refusal, SourceGateInput, SourceStatistics, Verdict } from './types.ts';

const percent = (share: number) => `${(Math.round(share * 1000) / 10).toString()}%`;

/**
 * Judges a source: computes each area's statistics and checks them, with the counts, against the
 * version served now (or, on a first sync, against the fill floors).
 *
 * @returns `refuse` when a rule failed and `force` is off, `forced` when a rule failed and it is on, else `publish`
 */
export function judgeSource(input: SourceGateInput): Verdict {
  const statistics: SourceStatistics = {};
  const refusals: Refusal[] = [];
  const largestLocale = new Map<AreaName, number>();
  for (const area of input.areas) largestLocale.set(area.area, Math.max(largestLocale.get(area.area) ?? 0, area.records.length));

  for (const area of input.areas) {
    const now = { ...areaStatistics(area.area, area.records), unreadableRates: unreadableRates(area) };
    (statistics[area.locale] ??= {})[area.area] = now;
    const previous = input.previous?.[area.locale]?.[area.area] ?? null;
    const refuse = (rule: string, figures: Refusal['figures'], finding: string, force: string) =>
      refusals.push({
        source: input.source,
        locale: area.locale,
        area: area.area,
        rule,
        figures,
        message: `${input.source} ${area.locale} ${area.area}: ${rule}: ${finding}; --force would ${force}`,
      });
    checkArea(area, now, previous, largestLocale.get(area.area) ?? 0, refuse);
  }
  const outcome = refusals.length === 0 ? 'publish' : input.force ? 'forced' : 'refuse';
  return { source: input.source, outcome, refusals, statistics };
}

type Refuse = (rule: string, figures: Refusal['figures'], finding: string, force: string) => void;

function checkArea(area: AreaInput, now: AreaStatistics, previous: AreaStatistics | null, largestLocale: number, refuse: Refuse): void {
  const kept = area.records.length;

  if (area.declared !== null && area.received < area.declared * MIN_RECEIVED_SHARE) {
    refuse(
      'completeness',
      { received: area.received, declared: area.declared },
      `received ${area.received} of ${area.declared} declared (${percent(area.received / area.declared)}, at least ${percent(MIN_RECEIVED_SHARE)} needed)`,
      `publish the ${area.received} received as if complete`,
    );
  }

  // Optional fields are absent in many records of a healthy upstream, so only a rise against
  // the version served now says that the upstream changed a field's name or shape.
  const ratesBefore = previous?.unreadableRates;
  if (ratesBefore) {
    for (const [path, rate] of Object.entries(now.unreadableRates ?? {})) {
      const before = ratesBefore[path] ?? 0;
      if (rate - before > MAX_UNREADABLE_SHARE) {
        const count = area.unreadable[path] ?? 0;
        refuse(
          'unreadable-field',
          { field: path, unreadable: count, received: area.received, unreadableBefore: before },
          `${path} could not be read in ${count} of ${area.received} records (${percent(rate)}, against ${percent(before)} in the version served now; at most ${percent(MAX_UNREADABLE_SHARE)} more allowed)`,
          `publish ${path} as null where it could not be read`,
        );
      }
    }
  }

  // A previous version known only by its record count (no report kept) has no fill rates to
  // compare with, so its fields are held to the floors as on a first sync.
  if (previous && Object.keys(previous.fillRates).length > 0) {
    for (const [path, before] of Object.entries(previous.fillRates)) {
      const rate = now.fillRates[path] ?? 0;
      if (kept > 0 && before >= DRIFT_FILLED_BEFORE && rate <= DRIFT_FILLED_NOW) {
        refuse(
          'field-drift',
          { field: path, filledBefore: before, filledNow: rate },
          `${path} was filled in ${percent(before)} of records and is now in ${percent(rate)} (drift when ≥ ${percent(DRIFT_FILLED_BEFORE)} before and ≤ ${percent(DRIFT_FILLED_NOW)} now)`,
          `publish ${path} empty in ${percent(1 - rate)} of records`,
        );
      }
    }
  } else {
    for (const [path, floor] of Object.entries(FILL_FLOORS[area.area])) {
      const rate = now.fillRates[path] ?? 0;
      if (kept > 0 && rate < floor) {
        refuse(
          'fill-floor',
          { field: path, filledNow: rate, floor },
          `first sync: ${path} is filled in ${percent(rate)} of records, below its floor of ${percent(floor)}`,
          `publish ${path} empty in ${percent(1 - rate)} of records`,
        );
      }
    }
  }

  if (largestLocale > 0 && kept < largestLocale * MIN_LOCALE_SHARE) {
    refuse(
      'locale-missing',
      { records: kept, largestLocale },
      `${kept} records against ${largestLocale} in the largest locale (${percent(kept / largestLocale)}, at least ${percent(MIN_LOCALE_SHARE)} needed)`,
      `publish ${area.locale} with ${largestLocale - kept} records fewer than the other locales`,
    );
  }

  if (previous) {
    for (const [path, median] of Object.entries(now.medians)) {
      const before = previous.medians[path];
      if (WEATHER_FIELDS.has(path)) continue;
      if (median === null || before === null || before === undefined || median <= 0 || before <= 0) continue;
      const factor = Math.max(median / before, before / median);
      if (factor > MAX_MEDIAN_FACTOR) {
        refuse(
          'unit-change',
          { field: path, medianBefore: before, medianNow: median },
          `the median of ${path} moved from ${before} to ${median} (${round(factor)}×, at most ${MAX_MEDIAN_FACTOR}× allowed)`,
          `publish ${path} in what is likely another unit`,
        );
      }
    }
  }

  if (area.received > 0 && area.rejected.length / area.received > MAX_REJECTED_SHARE) {
    refuse(
      'too-many-rejected',
      { rejected: area.rejected.length, received: area.received, byRule: perRule(area.rejected.map((r) => r.rule)) },
      `${area.rejected.length} of ${area.received} records rejected (${percent(area.rejected.length / area.received)}, at most ${percent(MAX_REJECTED_SHARE)} allowed; ${perRule(area.rejected.map((r) => r.rule))})`,
      `publish the ${kept} records kept, without the ${area.rejected.length} rejected`,
    );
  }

  for (const [rule, count] of Object.entries(area.cleared)) {
    if (kept > 0 && count / kept > MAX_CLEARED_SHARE) {
      refuse(
        'too-many-cleared',
        { plausibilityRule: rule, cleared: count, records: kept },
        `${rule} cleared a field in ${count} of ${kept} records (${percent(count / kept)}, at most ${percent(MAX_CLEARED_SHARE)} allowed)`,
        `publish those ${count} records with the field cleared`,
      );
    }
  }

  const damaged = area.encoding?.damaged ?? 0;
  if (kept > 0 && damaged / kept > MAX_DAMAGED_TEXT_SHARE) {
    refuse(
      'damaged-text',
      { damaged, records: kept },
      `${damaged} of ${kept} records hold a text with the marks of UTF-8 read as Latin-1 that could not be repaired (${percent(damaged / kept)}, at most ${percent(MAX_DAMAGED_TEXT_SHARE)} allowed)`,
      `publish those ${damaged} records with their garbled text`,
    );
  }

  if (previous && previous.count > 0 && kept < previous.count * MIN_KEPT_SHARE) {
    refuse(
      'shrink',
      { records: kept, before: previous.count },
      `${kept} records, down from ${previous.count} (${percent(kept / previous.count)} kept, at least ${percent(MIN_KEPT_SHARE)} needed)`,
      `replace ${previous.count} records with ${kept}`,
    );
  }
}

/** Per field path, the share of received records in which it could not be read. */
function unreadableRates(area: AreaInput): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const [path, count] of Object.entries(area.unreadable).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) rates[path] = area.received === 0 ? 0 : count / area.received;
  return rates;
}

/** `rule count, rule count`, most first. */
function perRule(rules: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const rule of rules) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([rule, count]) => `${rule} ${count}`)
    .join(', ');
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
