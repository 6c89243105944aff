/**
 * What publishing says of each requested source: published, refused by the publish gate, or
 * failed, with its counts per locale and area and the gate's report. The CLI prints it; nothing
 * here does I/O.
 */

import type { AreaName, Locale, SourceName } from '../format.ts';
import type { FetchedSource } from '../source.ts';
import type { SourceReport as GateReport } from './gate/gateReport.ts';

/** A requested source's fetch: its data, or why there is none. */
export type SourceOutcome = { ok: true; fetched: FetchedSource } | { ok: false; error: unknown };

/** One locale and area of a source as published, refused or carried. */
export interface AreaReport {
  locale: Locale;
  area: AreaName;
  /** Records in the new snapshot (after merging duplicates), or in the carried file. */
  count: number;
  /** Records in the snapshot this run started from; null when it had none. */
  previous: number | null;
  rejected: number;
  /** Records dropped because an earlier page had the same id. */
  duplicates: number;
  /** Records the upstream declared it would send; null when it declares none. */
  declared: number | null;
  /** Upstream records that arrived (rejected and duplicate ones included); 0 for a carried file. */
  received: number;
}

/** One requested source: what became of it and why. */
export interface SourceReport {
  source: SourceName;
  /** published: fresh data is live; refused: the publish gate stopped it; failed: the fetch failed. */
  status: 'published' | 'refused' | 'failed';
  /** Why it was refused or failed, in one line. */
  reason: string | null;
  /** The gate's refusals that `force` overrode, one line each. */
  forced: string[];
  /** True when the last good data was carried into the new version (stale in the manifest). */
  carried: boolean;
  areas: AreaReport[];
  /** What the publish gate found, when the fetch succeeded. */
  gate: GateReport | null;
}
