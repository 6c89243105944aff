/**
 * What the gate is given and what it answers. The caller maps each source's fetch output onto
 * {@link SourceGateInput}; the gate never reads files or the network.
 */

import type { AreaName, Locale, SourceName } from '../../format.ts';

/** What a failed check does: refuse the whole source, reject one record, or clear one field. */
export type GateAction = 'refuse-source' | 'reject-record' | 'clear-field';

/** One record left out, and the rule that left it out (a plausibility, text or normalisation rule). */
export interface RecordRejection {
  /** The record's id as far as it could be read. */
  id: string | null;
  rule: string;
}

/** One locale and area of a source, as fetched and after the plausibility rules. */
export interface AreaInput {
  locale: Locale;
  area: AreaName;
  /** The records to publish, after the record rules (cleaned copies). */
  records: readonly object[];
  /** Records left out, each with its rule. */
  rejected: readonly RecordRejection[];
  /** Fields cleared, counted per rule. */
  cleared: Readonly<Record<string, number>>;
  /** How many records the upstream says it has (its total or result size), or null when it does not say. */
  declared: number | null;
  /** How many records arrived from the upstream, before any rule: rows, a record sent twice counted twice, as the upstream counts its declared total. */
  received: number;
  /** Records with a text whose double encoding was repaired, and with one whose marks remain after repair. */
  encoding?: { repaired: number; damaged: number };
  /** Records that arrived again under an id seen before (merged by id), and of those ids how many had copies that differ in content. */
  duplicates?: { count: number; differing: number };
  /**
   * Per upstream field path, in how many received records the field reader could not read it
   * (missing or of a shape it does not know: the sources count both, so an optional field
   * counts here whenever it is absent).
   */
  unreadable: Readonly<Record<string, number>>;
}

/** Statistics of one locale and area's published records. */
export interface AreaStatistics {
  /** Records published. */
  count: number;
  /** Per field path: the share (0–1) of records in which it is filled. */
  fillRates: Record<string, number>;
  /** Per numeric field path of the plausibility table: the median of its values, null when none is filled. */
  medians: Record<string, number | null>;
  /**
   * Per upstream field path, the share (0–1) of received records in which it could not be read;
   * absent in reports written before it was kept.
   */
  unreadableRates?: Record<string, number>;
}

/** The statistics of a source's published version, per locale and area. */
export type SourceStatistics = Partial<Record<Locale, Partial<Record<AreaName, AreaStatistics>>>>;

/** Everything the gate judges a source by. */
export interface SourceGateInput {
  source: SourceName;
  areas: readonly AreaInput[];
  /**
   * The statistics of the version served now; null on a first sync (fill rates are then held to
   * floors, and unreadable fields are not compared).
   */
  previous: SourceStatistics | null;
  /** `--force`: publish despite refusals, and say so in the report. */
  force: boolean;
}

/** A refusal rule that failed: it names the source, the area, the rule, the figures and what `--force` would do. */
export interface Refusal {
  source: SourceName;
  locale: Locale;
  area: AreaName;
  /** The rule's name in SOURCE_RULES (sourceRules.ts). */
  rule: string;
  /** The figures the rule compared, by name. */
  figures: Record<string, number | string>;
  /** One line: source, locale and area, rule, figures, and what `--force` would do. */
  message: string;
}

/** The gate's answer for one source. */
export interface Verdict {
  source: SourceName;
  /** `publish`: every rule held; `refuse`: keep the last good data, marked stale; `forced`: rules failed but `--force` publishes. */
  outcome: 'publish' | 'refuse' | 'forced';
  /** Every refusal rule that failed, forced or not. */
  refusals: Refusal[];
  /** The statistics of what would be published, to keep beside the version for the next comparison. */
  statistics: SourceStatistics;
}
