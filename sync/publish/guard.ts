/**
 * The checks a fetched source must pass before it is published (a source is published whole or
 * not at all); publish.ts calls {@link guardSource} once per source, before writing anything.
 *
 * - validation: more than {@link MAX_REJECTED_SHARE} of a locale and area's upstream records
 *   failed normalisation;
 * - shrink: a locale and area has fewer than {@link MIN_KEPT_SHARE} of the records it had in
 *   the current snapshot.
 */

import type { SourceEntry, SourceName } from '../format.ts';
import type { FetchedSource } from '../source.ts';
import type { AreaReport } from './report.ts';

/** Largest share of rejected upstream records a locale and area may have and still publish. */
export const MAX_REJECTED_SHARE = 0.02;
/** Smallest share of the previous item count a locale and area must keep to publish. */
export const MIN_KEPT_SHARE = 0.5;

/** Everything known of one source at the moment it is judged. */
export interface GuardInput {
  name: SourceName;
  /** What the fetch returned, per locale and area (declared and received counts, field misses). */
  fetched: FetchedSource;
  /** The merged counts per locale and area, against the current snapshot. */
  areas: readonly AreaReport[];
  /** The source's entry in the current manifest, when it has one. */
  previous: SourceEntry | undefined;
}

/**
 * The reasons a source must not be published, each naming the locale, the area and the
 * figures; empty when it may be.
 */
export function guardSource({ areas }: GuardInput): string[] {
  const problems: string[] = [];
  for (const a of areas) {
    const received = a.count + a.duplicates + a.rejected;
    if (received > 0 && a.rejected / received > MAX_REJECTED_SHARE) {
      problems.push(`${a.locale} ${a.area}: ${a.rejected} of ${received} records failed validation (${percent(a.rejected / received)}, at most ${percent(MAX_REJECTED_SHARE)} allowed)`);
    }
    if (a.previous !== null && a.previous > 0 && a.count < a.previous * MIN_KEPT_SHARE) {
      problems.push(`${a.locale} ${a.area}: ${a.count} items, down from ${a.previous} (more than ${percent(1 - MIN_KEPT_SHARE)} fewer)`);
    }
  }
  return problems;
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}
