/**
 * Reads the snapshot a data directory's manifest points at, checks it, and returns it
 * frozen. Nothing is served from a snapshot that failed any check: the caller keeps the
 * previous one (or refuses to start).
 */

import { isAscii } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GraphQLSchema } from 'graphql';
import { FORMAT_VERSION, recordLimitFault, SOURCE_AREAS, type AreaName, type AreaRecords, type ChangeLists, type FileEntry, type Manifest, type SourceEntry, type SourceName } from '../../sync/format.ts';
import { deepFreeze } from '../util/deepFreeze.ts';
import { readChangeLists } from './changeLists.ts';
import { NO_LINES, readGeometry, type TourLines } from './geometryFile.ts';
import { LOCALES, type Locale } from './locales.ts';
import { SnapshotError } from './snapshotError.ts';
import { DEFAULT_READ_TIMEOUT_MS, readFileInside, readSnapshotFile, readTimeoutError, withTimeLimit } from './snapshotFile.ts';
import { readAvailableDates } from './activityIndex.ts';
import { createRecordValidator, type RecordValidator } from './validateRecord.ts';

export { SnapshotError };

/** Records validated and frozen per turn of the event loop while a file is loaded. */
const RECORDS_PER_TURN = 2000;

/** Files read and inflated ahead of the one being parsed. */
export const FILES_AHEAD = 4;

/** The GraphQL type each area's records must match. */
export const AREA_TYPES: Record<AreaName, string> = {
  activities: 'Activity',
  locations: 'Location',
  types: 'ActivityType',
  stations: 'SnowdataStation',
  routes: 'SnowdataRoute',
  tours: 'Tour',
  attractions: 'Attraction',
};
/** The fields of a record's terms, answered from the server's settings (server/resolvers/terms.ts). */
const TERMS_FIELDS = ['license', 'attribution'];
/**
 * Fields the server computes, per request (distances, the terms, a tour's line fields from the line
 * the snapshot keeps apart from its records) or when it builds its store (a route's point,
 * server/snapshot/store.ts PlacedRoute); a record must not carry them.
 */
const COMPUTED_FIELDS: Partial<Record<AreaName, string[]>> = {
  activities: ['distance', ...TERMS_FIELDS],
  stations: ['distance_km', 'isOpen'],
  routes: ['latitude', 'longitude', 'name', 'stationName', 'distance_km'],
  tours: ['distance_km', 'geometry', 'bounds', 'elevationProfile', ...TERMS_FIELDS],
  attractions: ['distance_km', ...TERMS_FIELDS],
};
/**
 * Fields a record carries that the API does not expose as they are: for filtering, or the licence
 * the upstream states on a tour or attraction, which its `license` answers (server/resolvers/terms.ts).
 */
const EXTRA_FIELDS: Partial<Record<AreaName, string[]>> = {
  activities: ['attributeValues', 'availableDates'],
  tours: ['upstreamLicense'],
  attractions: ['upstreamLicense'],
};
/**
 * The format versions read: version 1 lacks activities' `availableDates`, and reads each
 * activity's next available date as its one bookable day (server/snapshot/activityIndex.ts).
 */
const READABLE_FORMAT_VERSIONS: readonly number[] = [1, FORMAT_VERSION];

export type LocaleContent = { readonly [A in AreaName]: readonly AreaRecords[A][] };

export interface Snapshot {
  readonly version: string;
  readonly manifest: Manifest;
  readonly locales: Readonly<Record<Locale, LocaleContent>>;
  /** What changed since each of the earlier versions the sync had at hand (changeLists.ts). */
  readonly changes: ChangeLists;
  /**
   * Each tour's line by tour id, once for every locale (geometryFile.ts); empty when the manifest
   * names no geometry file, or when the load keeps no tours ({@link LoadOptions.areas}).
   */
  readonly geometry: TourLines;
}

/** What {@link loadSnapshot} reads. */
export interface LoadOptions {
  /**
   * Only these areas' records are kept; the others are left empty. Every file the manifest names
   * is read and checked all the same, so that a process serving some areas refuses exactly the
   * snapshots one serving all of them refuses. Default: every area.
   */
  areas?: readonly AreaName[];
  /**
   * The longest the manifest, or one file it names, may take to be read (and that file checked
   * and inflated), in ms; SNAPSHOT_READ_TIMEOUT_MS, default 30000.
   */
  readTimeoutMs?: number;
  /** The largest size one file may inflate to, in bytes; SNAPSHOT_MAX_FILE_BYTES, default 256 MiB. */
  maxFileBytes?: number;
}

/**
 * Loads and validates the snapshot that `<dataDir>/manifest.json` points at, on this thread:
 * for a start, before anything is served. A hot reload loads beside the served snapshot with
 * loadSnapshotOffThread (offThread.ts), which gives the same snapshot and the same errors.
 *
 * @throws SnapshotError when the manifest is missing or malformed, its formatVersion is not
 *   {@link FORMAT_VERSION}, a file is missing, resolves outside the data directory, is not a
 *   regular file or is not read within `readTimeoutMs`, inflates to more than `maxFileBytes`, its sha256 or item count differs from
 *   the manifest, a record does not match its GraphQL type, or a tour's line is not one (geometryFile.ts).
 */
export async function loadSnapshot(dataDir: string, schema: GraphQLSchema, options: LoadOptions = {}): Promise<Snapshot> {
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const { manifest, root } = await readCheckedManifest(dataDir, readTimeoutMs);
  const validators = createValidators(schema);
  const locales = emptyLocales();
  const jobs = snapshotJobs(manifest);
  const kept = keptAreas(options.areas);
  // Jobs run locale by locale (each source's de-CH files come first): later locales' records
  // share strings with the record of the same id read first (see deepFreeze).
  const firstRead = new Map<AreaName, ReadonlyMap<unknown, unknown>>();
  // Files are read and inflated a few ahead, off the event loop; parsed and checked one at a
  // time, with turns of the event loop in between.
  const inflated = jobs.map(() => null as Promise<Buffer> | null);
  const inflate = (index: number) => {
    if (index >= jobs.length) return;
    const pending = readSnapshotFile(root, dataDir, jobs[index]!.file, readTimeoutMs, options.maxFileBytes);
    // Awaited in turn below; once an earlier file has failed, nobody awaits it.
    pending.catch(() => {});
    inflated[index] = pending;
  };
  for (let i = 0; i < FILES_AHEAD; i++) inflate(i);
  for (const [index, { locale, area, file }] of jobs.entries()) {
    inflate(index + FILES_AHEAD);
    const bytes = await inflated[index]!;
    await nextTurn();
    const twins = firstRead.get(area);
    const records = await readRecords(dataDir, file, bytes, validators.get(area)!, twins);
    if (!kept.has(area)) continue;
    if (twins === undefined) firstRead.set(area, recordsById(records));
    locales[locale][area] = records;
  }
  const changes = await readChangeLists(root, dataDir, manifest, readTimeoutMs, options.maxFileBytes);
  const lines = await readGeometry(root, dataDir, manifest, readTimeoutMs, options.maxFileBytes, pauseEvery(RECORDS_PER_TURN));
  const geometry = kept.has('tours') ? lines : NO_LINES;
  return deepFreeze({ version: manifest.version, manifest, locales, changes, geometry }) as unknown as Snapshot;
}

/** One file of a snapshot to load: which locale and area its records are. */
export interface SnapshotJob {
  locale: Locale;
  area: AreaName;
  file: FileEntry;
}

/**
 * Reads and checks `<dataDir>/manifest.json`.
 * @returns the manifest and `root`, the data directory's real path
 * @throws SnapshotError as {@link loadSnapshot} does for the manifest
 */
export async function readCheckedManifest(dataDir: string, readTimeoutMs: number): Promise<{ manifest: Manifest; root: string }> {
  const manifestPath = path.join(dataDir, 'manifest.json');
  const manifest = checkManifest(parseManifest(await readManifestText(dataDir, readTimeoutMs), manifestPath), manifestPath);
  return { manifest, root: await fs.realpath(dataDir) };
}

/** A record validator per area, for the GraphQL type its records must match. */
export function createValidators(schema: GraphQLSchema): Map<AreaName, RecordValidator> {
  const validators = new Map<AreaName, RecordValidator>();
  for (const area of Object.keys(AREA_TYPES) as AreaName[]) {
    const validate = createRecordValidator(schema, AREA_TYPES[area], {
      computedFields: COMPUTED_FIELDS[area] ?? [],
      extraFields: EXTRA_FIELDS[area] ?? [],
    });
    validators.set(area, area === 'activities' ? withAvailableDates(validate) : area === 'tours' || area === 'attractions' ? withUpstreamLicense(validate) : validate);
  }
  return validators;
}

/** Checks an activity's `availableDates` too, an extra field the type does not describe. */
function withAvailableDates(validate: RecordValidator): RecordValidator {
  return (record) => {
    const problem = validate(record);
    if (problem !== null) return problem;
    const dates = (record as { availableDates?: unknown }).availableDates;
    if (dates === undefined) return null;
    const runs = readAvailableDates(dates);
    return typeof runs === 'string' ? `field "availableDates": ${runs}` : null;
  };
}

/** Checks a tour's or attraction's `upstreamLicense` too: absent (an older snapshot), null, or a licence's text. */
function withUpstreamLicense(validate: RecordValidator): RecordValidator {
  return (record) => {
    const problem = validate(record);
    if (problem !== null) return problem;
    const stated = (record as { upstreamLicense?: unknown }).upstreamLicense;
    if (stated === undefined || stated === null) return null;
    if (typeof stated !== 'string' || stated.trim() === '') return `field "upstreamLicense": expected a non-empty string or null, found ${JSON.stringify(stated)}`;
    return null;
  };
}

/** Every area of every locale, empty: the areas a load leaves out stay so. */
export function emptyLocales(): Record<Locale, Record<AreaName, readonly unknown[]>> {
  const locales = {} as Record<Locale, Record<AreaName, readonly unknown[]>>;
  for (const locale of LOCALES) {
    locales[locale] = { activities: [], locations: [], types: [], stations: [], routes: [], tours: [], attractions: [] };
  }
  return locales;
}

/** The areas whose records a load keeps ({@link LoadOptions.areas}). */
export function keptAreas(areas?: readonly AreaName[]): ReadonlySet<AreaName> {
  return new Set(areas ?? (Object.keys(AREA_TYPES) as AreaName[]));
}

/** Every file of `manifest`, locale by locale in LOCALES order (each source's de-CH files first). */
export function snapshotJobs(manifest: Manifest): SnapshotJob[] {
  const jobs: SnapshotJob[] = [];
  for (const [source, entry] of Object.entries(manifest.sources) as [SourceName, SourceEntry][]) {
    for (const locale of LOCALES) {
      for (const area of SOURCE_AREAS[source]) {
        const file = entry.locales[locale]?.[area];
        if (file) jobs.push({ locale, area, file });
      }
    }
  }
  return jobs;
}

/** The manifest's entry of the file of `area` in `locale`, whichever source it belongs to; undefined when it lists none. */
export function fileEntryOf(manifest: Manifest, locale: Locale, area: AreaName): FileEntry | undefined {
  for (const source of Object.values(manifest.sources) as SourceEntry[]) {
    const entry = source.locales[locale]?.[area];
    if (entry) return entry;
  }
  return undefined;
}

/** The records of the locale read first, by id: the twins of later locales' records (see deepFreeze). */
export function recordsById(records: readonly unknown[]): ReadonlyMap<unknown, unknown> {
  return new Map(records.map((record) => [(record as { id: unknown }).id, record]));
}

/**
 * The text of `<dataDir>/manifest.json`, read as every file of a snapshot is: it must resolve
 * inside the data directory, be a regular file and be read within `readTimeoutMs`.
 *
 * @throws SnapshotError when it is missing or is refused (server/snapshot/snapshotFile.ts)
 */
export async function readManifestText(dataDir: string, readTimeoutMs = DEFAULT_READ_TIMEOUT_MS): Promise<string> {
  const manifestPath = path.join(dataDir, 'manifest.json');
  try {
    const root = await fs.realpath(dataDir);
    const bytes = await withTimeLimit(readTimeoutMs, (signal) => readFileInside(root, manifestPath, signal), () => readTimeoutError(manifestPath, readTimeoutMs));
    return bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SnapshotError(`${manifestPath} not found: run \`npm run sync\` (or \`npm run fixtures\`) to create a snapshot, or set DATA_DIR`);
    }
    throw error;
  }
}

function parseManifest(text: string, manifestPath: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`${manifestPath}: not valid JSON (${(error as Error).message})`);
  }
}

/** Checks the manifest's shape; every message names the manifest and the offending key. */
function checkManifest(value: unknown, where: string): Manifest {
  const fail = (what: string): never => {
    throw new SnapshotError(`${where}: ${what}`);
  };
  if (!isObject(value)) return fail('expected a JSON object');
  if (!READABLE_FORMAT_VERSIONS.includes(value.formatVersion as number)) {
    fail(`formatVersion ${JSON.stringify(value.formatVersion)}, expected ${READABLE_FORMAT_VERSIONS.join(' or ')}`);
  }
  if (typeof value.version !== 'string' || !/^[\w.-]+$/.test(value.version)) fail('"version" must be a directory-safe string');
  // Optional: only the fixture generator writes it, and manifests written before it existed lack it.
  if (value.fixture !== undefined) {
    const fixture = value.fixture;
    if (!isObject(fixture) || !Number.isSafeInteger(fixture.seed) || typeof fixture.scale !== 'number' || !(fixture.scale > 0)) {
      fail(`"fixture" must be { seed: integer, scale: number > 0 } (written by npm run fixtures) or absent, found ${JSON.stringify(fixture)}`);
    }
  }
  // Format 1 had no change lists; a format-2 manifest always names them.
  const changes = value.changes;
  if (changes !== undefined || value.formatVersion !== 1) {
    if (!isObject(changes) || typeof changes.file !== 'string' || typeof changes.sha256 !== 'string' || !Number.isSafeInteger(changes.count)) {
      fail('"changes" must be { file: string, count: integer, sha256: string } (the change lists, docs/snapshot-format.md)');
    }
    const changesFile = (changes as { file: string }).file;
    if (path.isAbsolute(changesFile) || changesFile.split(/[\\/]/).includes('..')) fail(`changes.file must be a relative path inside the data directory, found "${changesFile}"`);
  }
  // Optional: absent when no tour has a line, and in snapshots written before lines existed.
  const geometry = value.geometry;
  if (geometry !== undefined) {
    if (!isObject(geometry) || typeof geometry.file !== 'string' || typeof geometry.sha256 !== 'string' || !Number.isSafeInteger(geometry.count) || (geometry.count as number) < 1) {
      fail('"geometry" must be { file: string, count: integer ≥ 1, sha256: string } (the tours\' lines, docs/snapshot-format.md) or absent');
    }
    const geometryFile = (geometry as { file: string }).file;
    if (path.isAbsolute(geometryFile) || geometryFile.split(/[\\/]/).includes('..')) fail(`geometry.file must be a relative path inside the data directory, found "${geometryFile}"`);
  }
  if (!isObject(value.sources)) return fail('"sources" must be an object');
  for (const [source, entry] of Object.entries(value.sources)) {
    if (!(source in SOURCE_AREAS)) fail(`unknown source "${source}" (expected one of ${Object.keys(SOURCE_AREAS).join(', ')})`);
    const at = `sources.${source}`;
    if (!isObject(entry)) return fail(`${at} must be an object`);
    for (const key of ['label', 'lastSync', 'expiresAt'] as const) {
      if (typeof entry[key] !== 'string') fail(`${at}.${key} must be a string`);
    }
    if (typeof entry.stale !== 'boolean') fail(`${at}.stale must be a boolean`);
    // Optional: snapshots written before it existed lack it. One line, as the status page shows it.
    if (entry.staleReason !== undefined && (typeof entry.staleReason !== 'string' || /[\r\n]/.test(entry.staleReason))) {
      fail(`${at}.staleReason must be a one-line string or absent, found ${JSON.stringify(entry.staleReason)}`);
    }
    if (!isObject(entry.locales)) return fail(`${at}.locales must be an object`);
    for (const [locale, areas] of Object.entries(entry.locales)) {
      if (!(LOCALES as readonly string[]).includes(locale)) fail(`${at}.locales: unknown locale "${locale}" (expected one of ${LOCALES.join(', ')})`);
      if (!isObject(areas)) return fail(`${at}.locales.${locale} must be an object`);
      for (const [area, file] of Object.entries(areas)) {
        const fileAt = `${at}.locales.${locale}.${area}`;
        if (!(SOURCE_AREAS[source as SourceName] as readonly AreaName[]).includes(area as AreaName)) {
          fail(`${fileAt}: source ${source} has no area "${area}" (expected one of ${SOURCE_AREAS[source as SourceName].join(', ')})`);
        }
        if (!isObject(file) || typeof file.file !== 'string' || typeof file.sha256 !== 'string' || !Number.isSafeInteger(file.count)) {
          fail(`${fileAt} must be { file: string, count: integer, sha256: string }`);
        }
        // The file must stay inside the data directory, whatever the manifest says.
        const rel = (file as { file: string }).file;
        if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) fail(`${fileAt}.file must be a relative path inside the data directory, found "${rel}"`);
      }
    }
  }
  return value as unknown as Manifest;
}

/**
 * Parses an inflated file, checks its count and every record, and freezes them.
 * @param twins the area's records in the locale read first, by id (see deepFreeze); none when
 *   this is that locale
 */
async function readRecords(
  dataDir: string,
  entry: FileEntry,
  bytes: Buffer,
  validate: RecordValidator,
  twins: ReadonlyMap<unknown, unknown> | undefined,
): Promise<unknown[]> {
  const file = path.join(dataDir, entry.file);
  const records = parseRecords(file, entry, bytes);
  const ids = new Map<unknown, number>();
  for (let i = 0; i < records.length; i++) {
    if (i > 0 && i % RECORDS_PER_TURN === 0) await nextTurn();
    checkRecord(file, records, i, validate, ids);
    deepFreeze(records[i], twins?.get((records[i] as { id: unknown }).id));
  }
  return records;
}

/**
 * Parses an inflated file of records and checks their count.
 * @param file the path errors name
 * @throws SnapshotError when it is not a JSON array of `entry.count` items
 */
export function parseRecords(file: string, entry: FileEntry, bytes: Buffer): unknown[] {
  let records: unknown;
  try {
    records = JSON.parse(decodeText(bytes));
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(records)) throw new SnapshotError(`${file}: expected a JSON array of records`);
  if (records.length !== entry.count) throw new SnapshotError(`${file}: ${records.length} records, expected ${entry.count}`);
  return records;
}

/**
 * The text of (part of) an inflated file. The sync writes ASCII (sync/publish/write.ts encodeRecords),
 * which is also Latin-1 and decodes as that at the speed of a copy, where UTF-8 decoding of
 * accented text is much slower. A file written otherwise is still read as UTF-8.
 * @param ascii whether the whole file is ASCII, when the caller knows
 */
function decodeText(bytes: Buffer, ascii = isAscii(bytes)): string {
  return bytes.toString(ascii ? 'latin1' : 'utf8');
}

/**
 * Checks record `i` of a file: against the limits of every record (RECORD_LIMITS in
 * sync/format.ts), its GraphQL type, and the ids of the records before it in the file.
 * @param ids the ids of records 0 to i−1 of the file, with the index of each; record i's is added
 * @throws SnapshotError naming the file, the record (index and id) and the problem
 */
export function checkRecord(file: string, records: readonly unknown[], i: number, validate: RecordValidator, ids: Map<unknown, number>): void {
  // The limits come first: the type check and everything after it may then count on them.
  const problem = recordLimitFault(records[i]) ?? validate(records[i]);
  const id = isObject(records[i]) ? (records[i] as { id?: unknown }).id : undefined;
  if (problem) {
    throw new SnapshotError(`${file}: record ${i}${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: ${problem}`);
  }
  // Every area's type has an id; one that two records share would answer either of them by chance.
  const first = ids.get(id);
  if (first !== undefined) throw new SnapshotError(`${file}: records ${first} and ${i} share the id ${JSON.stringify(id)}; each id may appear once in a file`);
  ids.set(id, i);
}

/** A pause for readGeometry: a turn of the event loop after every `count` calls. */
function pauseEvery(count: number): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % count === 0 ? nextTurn() : undefined);
}

/** Resolves after the event loop has had a turn: timers and I/O (requests) run first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
