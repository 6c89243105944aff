/**
 * The gate's report per source and area: records before → after, declared against received,
 * rejections and clearings per rule, fill rates and medians that moved, and what was refused or
 * forced. JSON-serialisable, to keep beside a published version; {@link formatGateReport} prints it.
 */

import type { AreaName, Locale, SourceName } from '../../format.ts';
import type { LinesReport } from './geometryRules.ts';
import type { AreaStatistics, Refusal, SourceGateInput, Verdict } from './types.ts';

/** A fill rate that moved by at least this much (as a share of records) is reported. */
export const REPORTED_FILL_CHANGE = 0.1;
/** A median that moved by at least this factor, either way, is reported. */
export const REPORTED_MEDIAN_FACTOR = 1.5;

export interface FieldMove {
  field: string;
  /** Null when the field is new. */
  before: number | null;
  now: number | null;
}

export interface AreaReport {
  locale: Locale;
  area: AreaName;
  /** Records in the version served now; null on a first sync. */
  before: number | null;
  /** Records that would be published. */
  after: number;
  declared: number | null;
  /** Rows received, duplicates included. */
  received: number;
  /** Rows that repeated an id seen before (merged by id), and how many of those ids came with differing content. */
  duplicates: { count: number; differing: number };
  /** Records with a text whose double encoding was repaired, and with one whose marks remain. */
  encoding: { repaired: number; damaged: number };
  /** Records rejected, per rule. */
  rejected: Record<string, number>;
  /** Fields cleared, per plausibility rule. */
  cleared: Record<string, number>;
  /** Fill rates (shares of records) that moved by at least {@link REPORTED_FILL_CHANGE}. */
  fillRatesMoved: FieldMove[];
  /** Medians that moved by at least {@link REPORTED_MEDIAN_FACTOR}. */
  mediansMoved: FieldMove[];
}

export interface SourceReport {
  source: SourceName;
  outcome: Verdict['outcome'];
  /** Rules that refused the source (when `outcome` is `refuse`). */
  refused: Refusal[];
  /** Rules that failed and were overridden by `--force` (when `outcome` is `forced`). */
  forced: Refusal[];
  areas: AreaReport[];
  /** The tours' lines: fetched, kept, failed per rule, simplified, published; only the tours source has them. */
  lines?: LinesReport;
}

/** The report of one source, from what the gate was given and its verdict. */
export function gateReport(input: SourceGateInput, verdict: Verdict): SourceReport {
  const areas = input.areas.map((area): AreaReport => {
    const previous = input.previous?.[area.locale]?.[area.area] ?? null;
    const now = verdict.statistics[area.locale]?.[area.area] ?? null;
    // A previous version known only by its record count has no fill rates or medians to move from.
    const compared = previous && Object.keys(previous.fillRates).length > 0 ? previous : null;
    return {
      locale: area.locale,
      area: area.area,
      before: previous?.count ?? null,
      after: area.records.length,
      declared: area.declared,
      received: area.received,
      duplicates: { ...(area.duplicates ?? { count: 0, differing: 0 }) },
      encoding: { ...(area.encoding ?? { repaired: 0, damaged: 0 }) },
      rejected: countBy(area.rejected.map((rejection) => rejection.rule)),
      cleared: { ...area.cleared },
      fillRatesMoved: compared && now ? fillRatesMoved(compared, now) : [],
      mediansMoved: compared && now ? mediansMoved(compared, now) : [],
    };
  });
  return {
    source: input.source,
    outcome: verdict.outcome,
    refused: verdict.outcome === 'refuse' ? verdict.refusals : [],
    forced: verdict.outcome === 'forced' ? verdict.refusals : [],
    areas,
  };
}

function fillRatesMoved(previous: AreaStatistics, now: AreaStatistics): FieldMove[] {
  const fields = [...new Set([...Object.keys(previous.fillRates), ...Object.keys(now.fillRates)])].sort();
  return fields
    .map((field) => ({ field, before: previous.fillRates[field] ?? null, now: now.fillRates[field] ?? 0 }))
    .filter(({ before, now }) => Math.abs(now - (before ?? 0)) >= REPORTED_FILL_CHANGE);
}

function mediansMoved(previous: AreaStatistics, now: AreaStatistics): FieldMove[] {
  return Object.entries(now.medians)
    .map(([field, median]) => ({ field, before: previous.medians[field] ?? null, now: median }))
    .filter(({ before, now }) => {
      if (before === null || now === null) return before !== now;
      if (before <= 0 || now <= 0) return before !== now;
      return Math.max(now / before, before / now) >= REPORTED_MEDIAN_FACTOR;
    });
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

const OUTCOME = { publish: 'publishes', refuse: 'REFUSED, last good data stays (stale)', forced: 'FORCED, publishes despite the gate' } as const;

/**
 * The reports as plain text for people (`--dry-run`): per source its outcome, a table of its
 * areas with aligned columns, then per area what was rejected, cleared or moved, and each
 * refused or forced rule on its own line.
 */
export function formatGateReport(reports: readonly SourceReport[]): string {
  return reports.map(formatSource).join('\n\n') + '\n';
}

function formatSource(report: SourceReport): string {
  const header = ['locale', 'area', 'before', 'after', 'declared', 'received', 'rejected', 'cleared'];
  const rows = report.areas.map((area) => [
    area.locale,
    area.area,
    area.before === null ? '—' : String(area.before),
    String(area.after),
    area.declared === null ? '—' : String(area.declared),
    String(area.received),
    String(sum(area.rejected)),
    String(sum(area.cleared)),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  // Text columns align left, counts right.
  const line = (cells: readonly string[]) =>
    `  ${cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`.trimEnd();
  const lines = [`${report.source}: ${OUTCOME[report.outcome]}`, line(header), ...rows.map(line)];
  for (const area of report.areas) {
    const where = `  ${area.locale} ${area.area}`;
    if (area.encoding.repaired > 0) lines.push(`${where} text encoding: ${area.encoding.repaired} records with UTF-8 read as Latin-1 repaired`);
    if (area.encoding.damaged > 0) lines.push(`${where} text encoding: ${area.encoding.damaged} records with damaged text that could not be repaired`);
    if (area.duplicates.count > 0) lines.push(`${where} duplicates: ${area.duplicates.count} records sent again under an id already received, merged; ${area.duplicates.differing} ids with differing content (the last copy kept)`);
    if (sum(area.rejected) > 0) lines.push(`${where} rejected: ${listCounts(area.rejected)}`);
    if (sum(area.cleared) > 0) lines.push(`${where} cleared: ${listCounts(area.cleared)}`);
    for (const move of area.fillRatesMoved) lines.push(`${where} fill rate ${move.field}: ${share(move.before)} → ${share(move.now)}`);
    for (const move of area.mediansMoved) lines.push(`${where} median ${move.field}: ${move.before ?? '—'} → ${move.now ?? '—'}`);
  }
  if (report.lines) lines.push(`  lines: ${formatLines(report.lines)}`);
  for (const refusal of report.refused) lines.push(`  refused: ${refusal.message}`);
  for (const refusal of report.forced) lines.push(`  forced: ${refusal.message}`);
  return lines.join('\n');
}

/** The lines' counts in one line: `fetched 600, kept 0, failed 2 (geometry-jump 2), simplified 1, published 598`. */
export function formatLines(report: LinesReport): string {
  const failed = report.failed > 0 ? ` (${listCounts(report.rejected)})` : '';
  return `fetched ${report.fetched}, kept ${report.kept}, failed ${report.failed}${failed}, simplified ${report.simplified}, published ${report.published}`;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}

function listCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([rule, count]) => `${rule} ${count}`)
    .join(', ');
}

function share(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)}%`;
}
