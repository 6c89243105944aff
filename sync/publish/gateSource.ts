/**
 * Runs the publish gate (gate/) on one fetched source: duplicates merged by id, the plausibility
 * rules applied per locale and area, and the verdict against the statistics of the version
 * served now.
 */

import type { AreaName, Locale, SourceName } from '../format.ts';
import type { AreaBatch, FetchedSource } from '../source.ts';
import { applyPlausibility } from './gate/applyPlausibility.ts';
import { gateReport, type SourceReport as GateReport } from './gate/gateReport.ts';
import { judgeSource } from './gate/judgeSource.ts';
import type { RuleContext } from './gate/plausibilityRules.ts';
import type { AreaInput, SourceStatistics, Verdict } from './gate/types.ts';

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
}

/**
 * Judges one fetched source.
 *
 * @param previous the statistics of the source's data served now; null when there are none, and
 *   fill rates are then held to the first-sync floors
 */
export function gateSource(
  name: SourceName,
  fetched: FetchedSource,
  previous: SourceStatistics | null,
  context: RuleContext,
  force: boolean,
): GatedSource {
  const areas: AreaInput[] = [];
  const duplicates: GatedSource['duplicates'] = {};
  for (const [locale, batches] of Object.entries(fetched.locales) as [Locale, Partial<Record<AreaName, AreaBatch<{ id: string | number }>>>][]) {
    for (const [area, batch] of Object.entries(batches) as [AreaName, AreaBatch<{ id: string | number }>][]) {
      const merged = mergeById(batch.records);
      (duplicates[locale] ??= {})[area] = batch.records.length - merged.length;
      const plausible = applyPlausibility(area, merged, context);
      areas.push({
        locale,
        area,
        records: plausible.records,
        rejected: [...batch.rejected.map((r) => ({ id: r.id, rule: r.rule ?? NORMALISE_RULE })), ...plausible.rejected],
        cleared: plausible.cleared,
        declared: batch.declared,
        received: batch.received,
        unreadable: batch.fieldMisses,
      });
    }
  }
  const input = { source: name, areas, previous, force };
  const verdict = judgeSource(input);
  const records: GatedSource['records'] = {};
  for (const area of areas) (records[area.locale] ??= {})[area.area] = [...area.records];
  return { verdict, report: gateReport(input, verdict), records, duplicates };
}

/**
 * Keeps one record per id: the last copy seen, in the place of the first, since a record that
 * moved while we paged appears on two pages and its later copy is the one fetched last.
 */
export function mergeById<R extends { id: string | number }>(records: readonly R[]): R[] {
  const byId = new Map<string | number, R>();
  for (const record of records) byId.set(record.id, record);
  return [...byId.values()];
}
