/**
 * What a source is: one small interface that every upstream adapter implements (like hono's
 * `Router`), and the page and record types a fetch hands to the publisher. The CLI, the probe,
 * the settings and `--help` know sources only through this interface (sync/sources/index.ts
 * lists them).
 */

import type { HttpClient, RetryEvent } from './client.ts';
import type { AreaName, AreaRecords, Locale, SourceName, TourGeometry } from './format.ts';
import type { Setting } from './settings.ts';

/** An upstream record that failed normalisation, left out of the snapshot. */
export interface Rejection {
  /** The record's id as far as it could be read. */
  id: string | null;
  reason: string;
  /** The publish-gate rule that rejected it (such as `text-cap`); absent when normalising failed. */
  rule?: string;
}

/**
 * One locale and area as fetched: normalised records (duplicates allowed), rejections, and what
 * the upstream said it would send against what arrived.
 */
export interface AreaBatch<R> {
  records: R[];
  rejected: Rejection[];
  /** Records the upstream declared (its total count); null when it declares none. */
  declared: number | null;
  /** Upstream records received, rejected and duplicate ones included. */
  received: number;
  /** Per field path, the records in which the field reader found the field missing or unreadable. */
  fieldMisses: Record<string, number>;
  /**
   * Records kept with a text whose double encoding was repaired, and with one whose marks of it
   * remain; set when the texts are made plain (sync/sources/textFields.ts).
   */
  encoding?: { repaired: number; damaged: number };
}

/** The tours' lines as a fetch had them, before the publish gate judges them. */
export interface GeometryBatch {
  /** Per tour id, its line (GeoJSON, longitude first): read from the upstream, or kept. */
  lines: Record<string, TourGeometry>;
  /** Tours whose line was asked for and read. */
  fetched: number;
  /** Tours whose line was kept from the version served, without a request: their record is unchanged. */
  kept: number;
  /** Tours whose line could not be had (the request failed for good, or the answer held no line), with why. */
  failed: Rejection[];
}

/** What a source's fetch returns: its label and, per locale and area, a batch. */
export interface SourceData {
  /** Human-readable upstream name, served as `meta.source`. */
  label: string;
  locales: Partial<Record<Locale, Partial<{ [A in AreaName]: AreaBatch<AreaRecords[A]> }>>>;
  /** The tours' lines, once for every locale; only the tours source fetches them. */
  geometry?: GeometryBatch;
}

/** What the version served holds of a source, for a fetch that keeps what has not changed. */
export interface ServedSource {
  /** Its records, per locale and area. */
  locales: Partial<Record<Locale, Partial<{ [A in AreaName]: AreaRecords[A][] }>>>;
  /** The tours' lines of that version, by tour id. */
  geometry: Readonly<Record<string, TourGeometry>>;
}

/** A source's data with the time its fetch started. */
export interface FetchedSource extends SourceData {
  /** ISO 8601. */
  fetchedAt: string;
}

/** Progress of one part of a fetch (a locale, or a part shared by all locales). */
export interface PageProgress {
  /** Pages (or requests) done so far. */
  pages: number;
  /** Pages expected in all, when the upstream says. */
  totalPages: number | null;
  /** Upstream records received so far. */
  items: number;
}

/** What a source's fetch gets from the CLI. */
export interface FetchContext<C = unknown> {
  http: HttpClient;
  /** The source's own settings, as its {@link Source.configure} built them. */
  config: C;
  /** Locales to fetch, in order. */
  locales: readonly Locale[];
  /** The sync's calendar day (see {@link syncDay}): an upstream date before it lies in the past. */
  syncDay: string;
  /** Called after each page; `part` is a locale or a name such as `content`. */
  onPage(part: string, progress: PageProgress): void;
  /** Pass to every request of `part` as its `onRetry`. */
  onRetry(part: string, event: RetryEvent): void;
  /**
   * What the version served now holds of this source, read when first asked; null when there
   * is no snapshot or it has no such source.
   */
  served(): Promise<ServedSource | null>;
}

/** One endpoint called once by a probe. */
export interface ProbeEndpoint {
  /** What was called, e.g. `content API` or `booking summaries`. */
  name: string;
  /** The URL called, credentials redacted. */
  url: string;
  /** An HTTP answer arrived (any status). */
  reachable: boolean;
  /** false on 401/403, true on another answer, null when nothing arrived. */
  keyAccepted: boolean | null;
  /** Records on the first page, null when the answer could not be read. */
  records: number | null;
  /** Fields in the answer's records that the adapter does not read, as dotted paths. */
  unexpectedFields: string[];
  /** Fields the adapter reads that no record of the answer has, as dotted paths. */
  missingFields: string[];
  /** Why the call or the answer failed, when it did. */
  error?: string;
}

/**
 * An upstream adapter. `C` is its configuration, built from its settings once they are checked.
 * Sources that share an upstream share its settings (the same `Setting` objects of settings.ts).
 */
export interface Source<C = unknown> {
  name: SourceName;
  /** The areas it fills, in the order of sync/format.ts's SOURCE_AREAS. */
  areas: readonly AreaName[];
  settings: readonly Setting[];
  /** The configuration from the checked values of {@link settings}, by variable name. */
  configure(values: Readonly<Record<string, string>>): C;
  /**
   * Fetches every locale of the context, page by page.
   *
   * @throws FetchError when a request fails for good; Error naming the page when an answer is
   *   not of the upstream's shape or paging goes wrong
   */
  fetch(context: FetchContext<C>): Promise<SourceData>;
  /** Calls each endpoint once and reports what came back; never throws for an upstream failure. */
  probe(context: { http: HttpClient; config: C }): Promise<ProbeEndpoint[]>;
}

/**
 * The calendar day of an instant in Europe/Zurich, the day the upstreams' dates are in.
 *
 * @returns `YYYY-MM-DD`
 */
export function syncDay(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Zurich', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}
