/**
 * The snapshot format: the only contract between the sync CLI and the server.
 *
 * A data directory holds `manifest.json` (the commit point) and one directory per
 * snapshot version with gzip-compressed JSON arrays of records:
 *
 *   data/manifest.json
 *   data/<version>/manifest.json          (a copy of the manifest that committed it, for rollback)
 *   data/<version>/<locale>/<area>.json.gz
 *
 * Every record is already in the shape the GraphQL API returns (see schema.graphql),
 * so the server only validates, indexes and slices. Derived values (a station's
 * coordinates from its first located track or run, the sledge/snowshoe views, a location's
 * activityCount) are computed by the sync, once, when the snapshot is written.
 *
 * Types and constants only, no I/O: the server imports this module, and nothing else of sync/
 * (it re-exports the locales of sync/locales.ts and the records of sync/records.ts and
 * sync/stationRecords.ts, which import nothing else).
 * The writer is sync/publish/write.ts.
 */
import type { Locale } from './locales.ts';
import type { ActivityRecord, ActivityTypeRecord, AttractionRecord, LocationRecord, TourRecord } from './records.ts';
import type { RouteRecord, StationRecord } from './stationRecords.ts';

/** Bumped on any incompatible change to the manifest or the records. */
export const FORMAT_VERSION = 1;

export { LOCALES, type Locale } from './locales.ts';

/** Which content areas each upstream source publishes. */
export const SOURCE_AREAS = {
  activities: ['activities', 'locations', 'types'],
  snowdata: ['stations', 'routes'],
  tours: ['tours'],
  attractions: ['attractions'],
} as const;
export type SourceName = keyof typeof SOURCE_AREAS;
export type AreaName = (typeof SOURCE_AREAS)[SourceName][number];
export const SOURCE_NAMES = Object.keys(SOURCE_AREAS) as SourceName[];

/**
 * The manifest's detached signature, beside it in the data directory: the base64 of the Ed25519
 * signature of `manifest.json`'s bytes exactly as written. Written by the sync when
 * SNAPSHOT_SIGNING_KEY is set; a server pulling with SNAPSHOT_PUBLIC_KEY set refuses a manifest
 * it does not verify. Keys travel as base64 of their DER: PKCS #8 for the private key, SPKI for
 * the public one.
 */
export const MANIFEST_SIGNATURE_FILE = 'manifest.json.sig';

/** Live data is served as fresh for 24 hours after a sync, then marked stale. */
export const TTL_MS = 24 * 60 * 60 * 1000;

export interface FileEntry {
  /** Path relative to the data directory: `<version>/<locale>/<area>.json.gz`. */
  file: string;
  /** Number of records in the file. */
  count: number;
  /** Hex sha256 of the file's bytes as stored (compressed). */
  sha256: string;
}

export interface SourceEntry {
  /**
   * Human-readable upstream name, served as `meta.source`; in a fixture snapshot followed by
   * `(fixture data, not from the upstream)`.
   */
  label: string;
  /** ISO 8601 time the data was fetched. */
  lastSync: string;
  /** ISO 8601: lastSync + 24 h. */
  expiresAt: string;
  /** True when the latest run failed for this source and its last good data was carried over. */
  stale: boolean;
  /**
   * One line on why the latest run did not refresh this source (the rule that refused it, or the
   * error that stopped its fetch); absent when it is fresh, and in snapshots written before it existed.
   */
  staleReason?: string;
  locales: Partial<Record<Locale, Partial<Record<AreaName, FileEntry>>>>;
}

/**
 * What marks a snapshot made by the fixture generator (`npm run fixtures`, sync/fixtures/main.ts)
 * from generated upstream payloads: its data was never fetched from an upstream and does not
 * expire. A sync never writes it, and never carries it over from the snapshot it builds on.
 */
export interface FixtureOrigin {
  /** The generator's seed (`--seed`). */
  seed: number;
  /** The generator's scale (`--scale`), 1 for the committed fixture snapshot. */
  scale: number;
}

export interface Manifest {
  formatVersion: typeof FORMAT_VERSION;
  /** Snapshot id, also the name of its directory, e.g. `2026-11-21T04-00-00Z`. */
  version: string;
  /** ISO 8601 time the manifest was written (for a fixture snapshot, the time it was generated for). */
  createdAt: string;
  /** Present only in a snapshot the fixture generator made; absent in every synced one. */
  fixture?: FixtureOrigin;
  /** A source that was never synced is absent; its areas are empty. */
  sources: Partial<Record<SourceName, SourceEntry>>;
}

// The records, one interface per GraphQL object type.
export type * from './records.ts';
export type * from './stationRecords.ts';

/** The record type stored in each area's files. */
export interface AreaRecords {
  activities: ActivityRecord;
  locations: LocationRecord;
  types: ActivityTypeRecord;
  stations: StationRecord;
  routes: RouteRecord;
  tours: TourRecord;
  attractions: AttractionRecord;
}

/** Snapshot ids sort by time and are safe as directory names: `2026-11-21T04-00-00Z`. */
export function versionId(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}

/** Relative path of one content file inside a data directory. */
export function contentPath(version: string, locale: Locale, area: AreaName): string {
  return `${version}/${locale}/${area}.json.gz`;
}
