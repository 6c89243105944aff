/**
 * The snapshot format: the only contract between the sync CLI and the server.
 *
 * A data directory holds `manifest.json` (the commit point) and one directory per
 * snapshot version with gzip-compressed JSON arrays of records:
 *
 *   data/manifest.json
 *   data/<version>/manifest.json          (a copy of the manifest that committed it, for rollback)
 *   data/<version>/<locale>/<area>.json.gz
 *   data/<version>/geometry.json.gz        (the tours' lines, once per version, when a tour has one)
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

/**
 * Bumped on any incompatible change to the manifest or the records. 2: activities keep their
 * bookable dates (`availableDates`), routes their station (`stationId`), and each version names its
 * change lists (`changes`); the server still reads version 1 (docs/snapshot-format.md). The tours'
 * lines (`geometry`) came within version 2: an optional file that a server not knowing it leaves
 * unread, while every record it does read means what it did.
 */
export const FORMAT_VERSION = 2;

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
  /**
   * The version's change lists ({@link ChangeLists}): `<version>/changes.json.gz`, its sha256, and
   * as `count` the number of earlier versions they reach back to. Absent in a format-1 manifest,
   * which lists no changes.
   */
  changes?: FileEntry;
  /**
   * The tours' lines ({@link GeometryFile}): `<version>/geometry.json.gz`, once per version rather
   * than per locale, `count` the number of tours with a line. Absent when no tour has one (and in
   * every snapshot written before lines existed): then no tour has a line.
   */
  geometry?: FileEntry;
}

/**
 * A GeoJSON (RFC 7946) position: longitude, latitude in degrees (WGS 84), then altitude in m
 * (above sea level) when known.
 */
export type Position = [number, number] | [number, number, number];

/**
 * A tour's line as GeoJSON (RFC 7946): one line, or several parts of one route (a route the
 * upstream sends in pieces), each of at least two positions. Either every position of a line has
 * an altitude or none has.
 */
export type TourGeometry = { type: 'LineString'; coordinates: Position[] } | { type: 'MultiLineString'; coordinates: Position[][] };

/**
 * The content of `<version>/geometry.json.gz`: each tour's line by tour id, the same in every
 * locale. A tour without a line (none upstream, or one the publish gate refused) is absent.
 */
export interface GeometryFile {
  /** The version this file belongs to. */
  version: string;
  tours: Record<string, TourGeometry>;
}

/**
 * Bounds on every line of a snapshot: the server refuses a version with a line past one
 * (server/snapshot/geometryFile.ts), and the publish gate simplifies a denser line below them
 * or leaves it out (sync/publish/gate/geometryRules.ts), so that what the sync publishes loads.
 * They keep one tour's answer (its line, a GPX file) small and quick to write.
 */
export const GEOMETRY_LIMITS = {
  /** Most positions in one tour's line, all its parts together. */
  maxPositions: 5_000,
  /** Most parts of a MultiLineString. */
  maxParts: 100,
  /** Lowest and highest altitude a position may have, in m: below the Dead Sea, above Everest is not on Earth's surface. */
  minAltitudeM: -500,
  maxAltitudeM: 9_000,
} as const;

/**
 * Checks a tour's line as stored: a LineString or MultiLineString of {@link GEOMETRY_LIMITS},
 * each line of at least two positions, each position two or three finite numbers, longitude in
 * [-180, 180], latitude in [-90, 90], every position of it with an altitude or none.
 * @returns null when it is one, otherwise one message naming the first fault:
 *   `coordinates[3][1]: latitude 91, expected -90 to 90`
 */
export function geometryFault(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected a GeoJSON LineString or MultiLineString object';
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown };
  const keys = Object.keys(value);
  if (keys.length !== 2 || !keys.includes('type') || !keys.includes('coordinates')) return `expected the keys type and coordinates, found ${keys.join(', ') || 'none'}`;
  if (type !== 'LineString' && type !== 'MultiLineString') return `type ${JSON.stringify(type)}, expected "LineString" or "MultiLineString"`;
  if (!Array.isArray(coordinates)) return 'coordinates must be a list';
  const lines = (type === 'LineString' ? [coordinates] : coordinates) as unknown[];
  if (lines.length === 0) return 'coordinates: a MultiLineString of no line';
  if (lines.length > GEOMETRY_LIMITS.maxParts) return `coordinates: ${lines.length} lines, at most ${GEOMETRY_LIMITS.maxParts} allowed`;
  let positions = 0;
  let dimensions: number | null = null;
  for (const [l, line] of lines.entries()) {
    const at = type === 'LineString' ? 'coordinates' : `coordinates[${l}]`;
    if (!Array.isArray(line) || line.length < 2) return `${at}: a line needs a list of at least 2 positions`;
    positions += line.length;
    if (positions > GEOMETRY_LIMITS.maxPositions) return `more than ${GEOMETRY_LIMITS.maxPositions} positions, at most ${GEOMETRY_LIMITS.maxPositions} allowed`;
    for (const [i, position] of (line as unknown[]).entries()) {
      const where = `${at}[${i}]`;
      if (!Array.isArray(position) || (position.length !== 2 && position.length !== 3)) return `${where}: a position is [longitude, latitude] or [longitude, latitude, altitude]`;
      dimensions ??= position.length;
      if (position.length !== dimensions) return `${where}: ${position.length} numbers where the first position has ${dimensions}; every position has an altitude or none has`;
      const [lng, lat, alt] = position as unknown[];
      if (typeof lng !== 'number' || !Number.isFinite(lng) || lng < -180 || lng > 180) return `${where}[0]: longitude ${JSON.stringify(lng)}, expected -180 to 180`;
      if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) return `${where}[1]: latitude ${JSON.stringify(lat)}, expected -90 to 90`;
      if (alt !== undefined && (typeof alt !== 'number' || !Number.isFinite(alt) || alt < GEOMETRY_LIMITS.minAltitudeM || alt > GEOMETRY_LIMITS.maxAltitudeM)) {
        return `${where}[2]: altitude ${JSON.stringify(alt)}, expected ${GEOMETRY_LIMITS.minAltitudeM} to ${GEOMETRY_LIMITS.maxAltitudeM} m`;
      }
    }
  }
  return null;
}

/** The parts of a line: one for a LineString, each of a MultiLineString's, in their order. */
export function lineParts(geometry: TourGeometry): readonly (readonly Position[])[] {
  return geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates;
}

/** The number of positions of a line, every part counted (a part that is no list, in a line not yet checked, counts none). */
export function positionCount(geometry: TourGeometry): number {
  let count = 0;
  for (const part of lineParts(geometry)) if (Array.isArray(part)) count += part.length;
  return count;
}

/** Relative path of a version's geometry file inside a data directory. */
export function geometryPath(version: string): string {
  return `${version}/geometry.json.gz`;
}

/** The areas whose records the change lists follow; the others (locations, types) are derived from them. */
export const CHANGE_AREAS = ['activities', 'stations', 'routes', 'tours', 'attractions'] as const satisfies readonly AreaName[];
export type ChangeArea = (typeof CHANGE_AREAS)[number];

/** What changed in one area and locale between an earlier version and this one. */
export interface AreaChanges {
  /** Ids of the records added since, or whose content differs from the earlier version's. */
  upserted: (string | number)[];
  /** Ids of the records the earlier version had and this one has not. */
  deleted: (string | number)[];
}

/** The changes since one earlier version. */
export interface ChangesSince {
  /** The earlier version's id. */
  version: string;
  /** Its manifest's `createdAt`: a `since` given as a time picks the newest version at or before it. */
  createdAt: string;
  /** Per locale and change area; an area and locale with no change in it is absent. */
  locales: Partial<Record<Locale, Partial<Record<ChangeArea, AreaChanges>>>>;
}

/**
 * The content of `<version>/changes.json.gz`: what changed since each of the earlier versions
 * the sync had at hand when it wrote this one, newest first. Computed by the sync from the
 * records' content (sync/publish/changes.ts), so the server needs no earlier version's files.
 */
export interface ChangeLists {
  /** The version these lists lead to. */
  version: string;
  since: ChangesSince[];
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

/** Relative path of a version's change lists inside a data directory. */
export function changesPath(version: string): string {
  return `${version}/changes.json.gz`;
}

/** Relative path of one content file inside a data directory. */
export function contentPath(version: string, locale: Locale, area: AreaName): string {
  return `${version}/${locale}/${area}.json.gz`;
}

/**
 * Bounds on every record of a snapshot, whatever its area: the server refuses a version with a
 * record past one (server/snapshot/load.ts), and the sync leaves such a record out before it
 * publishes (sync/sources/recordLimits.ts), so that what the sync publishes always loads. They
 * keep the cost of one record (checking, indexing, writing it into an answer) small whatever
 * a file holds. docs/snapshot-format.md gives the reason for each.
 */
export const RECORD_LIMITS = {
  /** Longest string anywhere in a record, `raw` and object keys included, in UTF-16 code units. */
  maxStringChars: 200_000,
  /** Most items in any list of a record, `raw` included. */
  maxListItems: 5_000,
  /** Deepest nesting of objects and lists; the record itself is level 1. */
  maxDepth: 32,
  /** Most characters in all the strings and keys of a record together. */
  maxRecordChars: 1_000_000,
  /** Most values in a record: every string, number, boolean, null, list and object counts one. */
  maxRecordValues: 100_000,
} as const;

/**
 * Checks a record against {@link RECORD_LIMITS}.
 * @returns null when it keeps within them, otherwise one message naming the field (a dotted
 *   path with `[i]`) and the limit: `field "abstract": 52428800 characters, at most 200000 allowed`
 */
export function recordLimitFault(record: unknown): string | null {
  let chars = 0;
  let values = 0;
  // The path of the value being checked, kept only while a fault unwinds.
  const walk = (value: unknown, depth: number): { path: (string | number)[]; what: string } | null => {
    values++;
    if (values > RECORD_LIMITS.maxRecordValues) return { path: [], what: `the record has more than ${RECORD_LIMITS.maxRecordValues} values in all` };
    if (typeof value === 'string') {
      if (value.length > RECORD_LIMITS.maxStringChars) return { path: [], what: `${value.length} characters, at most ${RECORD_LIMITS.maxStringChars} allowed` };
      chars += value.length;
      if (chars > RECORD_LIMITS.maxRecordChars) return { path: [], what: `the record's strings pass ${RECORD_LIMITS.maxRecordChars} characters in all` };
      return null;
    }
    if (typeof value !== 'object' || value === null) return null;
    if (depth >= RECORD_LIMITS.maxDepth) return { path: [], what: `nested deeper than ${RECORD_LIMITS.maxDepth} levels` };
    if (Array.isArray(value)) {
      if (value.length > RECORD_LIMITS.maxListItems) return { path: [], what: `a list of ${value.length} items, at most ${RECORD_LIMITS.maxListItems} allowed` };
      for (let i = 0; i < value.length; i++) {
        const fault = walk(value[i], depth + 1);
        if (fault) return fault.path.push(i), fault;
      }
      return null;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (key.length > RECORD_LIMITS.maxStringChars) return { path: [], what: `a key of ${key.length} characters, at most ${RECORD_LIMITS.maxStringChars} allowed` };
      chars += key.length;
      if (chars > RECORD_LIMITS.maxRecordChars) return { path: [key], what: `the record's strings pass ${RECORD_LIMITS.maxRecordChars} characters in all` };
      const fault = walk((value as Record<string, unknown>)[key], depth + 1);
      if (fault) return fault.path.push(key), fault;
    }
    return null;
  };
  const fault = walk(record, 1);
  if (!fault) return null;
  if (fault.path.length === 0) return fault.what;
  let path = '';
  for (let i = fault.path.length - 1; i >= 0; i--) {
    const segment = fault.path[i]!;
    path += typeof segment === 'number' ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return `field "${path}": ${fault.what}`;
}
