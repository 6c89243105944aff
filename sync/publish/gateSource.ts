/**
 * Runs the publish gate (gate/) on one fetched source: duplicates merged by id, the plausibility
 * rules applied per locale and area, and the verdict against the statistics of the version
 * served now.
 */

import type { AreaName, Locale, SourceEntry, SourceName, TourGeometry } from '../format.ts';
import type { AreaBatch, FetchedSource } from '../source.ts';
import { applyPlausibility } from './gate/applyPlausibility.ts';
import { gateReport, type SourceReport as GateReport } from './gate/gateReport.ts';
import { judgeLines, MAX_FAILED_LINE_SHARE } from './gate/geometryRules.ts';
import { judgeSource } from './gate/judgeSource.ts';
import type { RuleContext } from './gate/plausibilityRules.ts';
import type { AreaInput, AreaStatistics, SourceStatistics, Verdict } from './gate/types.ts';

/** The rule a record that failed normalisation is counted under. */
export const NORMALISE_RULE = 'normalise';

/** A source after the gate: its verdict, its report, and the records it would publish. */
export interface GatedSource {
  verdict: Verdict;
  report: GateReport;
  /** Per locale and area fetched, the records after merging and the plausibility rules. */
  records: Partial<Record<Locale, Partial<Record<AreaName, object[]>>>>;
  /** Per locale and area fetched, records dropped because an earlier page had the same id. */
  duplicates: Partial<Record<Locale, Partial<Record<AreaName, number>>>>;
  /** The tours' lines that passed the gate, by tour id; null when the fetch had none (every source but the tours). */
  lines: Record<string, TourGeometry> | null;
}

/**
 * Judges one fetched source.
 *
 * @param statistics the statistics of the source's data served now, from its version's report;
 *   null when there is none
 * @param served the source's entry in the manifest served now: without statistics, its record
 *   counts still hold an area to the shrink rule (its fields are then held to the first-sync floors)
 */
export function gateSource(
  name: SourceName,
  fetched: FetchedSource,
  statistics: SourceStatistics | null,
  served: SourceEntry | undefined,
  context: RuleContext,
  force: boolean,
): GatedSource {
  const areas: AreaInput[] = [];
  const duplicates: GatedSource['duplicates'] = {};
  for (const [locale, batches] of Object.entries(fetched.locales) as [Locale, Partial<Record<AreaName, AreaBatch<{ id: string | number }>>>][]) {
    for (const [area, batch] of Object.entries(batches) as [AreaName, AreaBatch<{ id: string | number }>][]) {
      const { records: merged, differing } = mergeDuplicates(batch.records);
      const repeated = batch.records.length - merged.length;
      (duplicates[locale] ??= {})[area] = repeated;
      const plausible = applyPlausibility(area, merged, context);
      areas.push({
        locale,
        area,
        records: plausible.records,
        rejected: [...batch.rejected.map((r) => ({ id: r.id, rule: r.rule ?? NORMALISE_RULE })), ...plausible.rejected],
        cleared: plausible.cleared,
        declared: batch.declared,
        // Rows, as the upstream counts what it declares: an upstream whose lists overlap (the
        // same record under two queries) declares each copy, so distinct ids would fall short.
        received: batch.received,
        duplicates: { count: repeated, differing },
        encoding: batch.encoding ?? { repaired: 0, damaged: 0 },
        unreadable: batch.fieldMisses,
      });
    }
  }
  const input = { source: name, areas, previous: previousOf(areas, statistics, served), force };
  const verdict = judgeSource(input);
  const records: GatedSource['records'] = {};
  for (const area of areas) (records[area.locale] ??= {})[area.area] = [...area.records];
  if (!fetched.geometry) return { verdict, report: gateReport(input, verdict), records, duplicates, lines: null };
  // The lines of the tours about to be published, each judged against its tour's distance.
  const distances = new Map<string, number | null>();
  for (const area of areas) {
    for (const record of area.records as { id: string; distance?: number | null }[]) if (!distances.has(record.id)) distances.set(record.id, record.distance ?? null);
  }
  const judged = judgeLines(fetched.geometry, distances);
  if (judged.refuse) {
    const locale = areas[0]?.locale ?? 'de-CH';
    const share = `${Math.round(judged.failedShare * 1000) / 10}%`;
    verdict.refusals.push({
      source: name,
      locale,
      area: 'tours',
      rule: 'lines-failed',
      figures: { failed: judged.report.failed, share: judged.failedShare, max: MAX_FAILED_LINE_SHARE },
      message: `${name} tours' lines: lines-failed: ${judged.report.failed} lines (${share}) failed, at most ${MAX_FAILED_LINE_SHARE * 100}% allowed; --force would publish the tours with the lines that passed`,
    });
    verdict.outcome = force ? 'forced' : 'refuse';
  }
  return { verdict, report: { ...gateReport(input, verdict), lines: judged.report }, records, duplicates, lines: judged.lines };
}

/** Per area fetched, its statistics served now, else its record count in the manifest; null when neither exists. */
function previousOf(areas: readonly AreaInput[], statistics: SourceStatistics | null, served: SourceEntry | undefined): SourceStatistics | null {
  const previous: SourceStatistics = {};
  for (const { locale, area } of areas) {
    const known: AreaStatistics | undefined = statistics?.[locale]?.[area];
    const count = served?.locales[locale]?.[area]?.count;
    if (known) (previous[locale] ??= {})[area] = known;
    else if (count !== undefined) (previous[locale] ??= {})[area] = { count, fillRates: {}, medians: {} };
  }
  return Object.keys(previous).length > 0 ? previous : null;
}

/**
 * Keeps one record per id: the last copy seen, in the place of the first, since a record that
 * moved while we paged appears on two pages and its later copy is the one fetched last.
 */
export function mergeById<R extends { id: string | number }>(records: readonly R[]): R[] {
  return mergeDuplicates(records).records;
}

/**
 * {@link mergeById}, also counting the ids whose copies differ in content (`raw` left out, since
 * the upstream's own links name the query a copy came from).
 */
export function mergeDuplicates<R extends { id: string | number }>(records: readonly R[]): { records: R[]; differing: number } {
  const byId = new Map<string | number, R>();
  const differs = new Set<string | number>();
  for (const record of records) {
    const earlier = byId.get(record.id);
    if (earlier !== undefined && !differs.has(record.id) && contentOf(earlier) !== contentOf(record)) differs.add(record.id);
    byId.set(record.id, record);
  }
  return { records: [...byId.values()], differing: differs.size };
}

function contentOf(record: object): string {
  const { raw: _raw, ...rest } = record as { raw?: unknown };
  return JSON.stringify(rest);
}
