/**
 * The publish gate's report kept beside each version's files (`<version>/report.json`): what
 * the gate found per source, and the statistics the next run compares against. The server
 * never reads it (docs/snapshot-format.md).
 */

import path from 'node:path';
import type { SourceName } from '../format.ts';
import { readTextIfPresent } from './files.ts';
import type { SourceReport as GateReport } from './gate/gateReport.ts';
import type { SourceStatistics } from './gate/types.ts';

/** The report's file name inside a version directory. */
export const REPORT_FILE = 'report.json';

/** What a version holds of one source, and what the gate said of it in the run that wrote it. */
export interface SourceVersionReport {
  /** published: fresh data; refused or failed: last good data carried; carried: not fetched in this run. */
  status: 'published' | 'refused' | 'failed' | 'carried';
  /** One line on why it was refused or failed; null otherwise. */
  reason: string | null;
  /** The gate's report when the source was fetched in this run; null otherwise. */
  gate: GateReport | null;
  /** The statistics of the data this version serves for it (carried with carried data); null when unknown. */
  statistics: SourceStatistics | null;
}

/** The whole `report.json` of a version. */
export interface VersionReport {
  version: string;
  /** ISO 8601. */
  createdAt: string;
  /** The sync's day in Europe/Zurich, which the date rules compared against. */
  syncDay: string;
  sources: Partial<Record<SourceName, SourceVersionReport>>;
}

/** The report's bytes: indented JSON with a final newline. */
export function encodeVersionReport(report: VersionReport): Buffer {
  return Buffer.from(`${JSON.stringify(report, null, 2)}\n`);
}

/**
 * A version's report.
 *
 * @returns null when the version has none (written before the gate, or by hand)
 * @throws naming the file when it cannot be read or is not a report
 */
export async function readVersionReport(dataDir: string, version: string): Promise<VersionReport | null> {
  const file = path.join(dataDir, version, REPORT_FILE);
  const text = await readTextIfPresent(file);
  if (text === null) return null;
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message}); delete it to judge the next sync against the first-sync floors`);
  }
  if (report === null || typeof report !== 'object' || typeof (report as VersionReport).sources !== 'object' || (report as VersionReport).sources === null) {
    throw new Error(`${file}: expected an object with "sources"; delete it to judge the next sync against the first-sync floors`);
  }
  return report as VersionReport;
}
