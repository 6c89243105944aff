/**
 * Reads the snapshot a data directory's manifest points at, checks it, and returns it
 * frozen. Nothing is served from a snapshot that failed any check: the caller keeps the
 * previous one (or refuses to start).
 */

import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import type { GraphQLSchema } from 'graphql';
import { FORMAT_VERSION, SOURCE_AREAS, type AreaName, type AreaRecords, type FileEntry, type Manifest, type SourceEntry, type SourceName } from '../../sync/format.ts';
import { LOCALES, type Locale } from './locales.ts';
import { SnapshotError } from './snapshotError.ts';
import { DEFAULT_READ_TIMEOUT_MS, readFileInside, readTimeoutError, withTimeLimit } from './snapshotFile.ts';
import { createRecordValidator } from './validateRecord.ts';

export { SnapshotError };

const gunzip = promisify(gunzipCallback);

/** Records validated and frozen per turn of the event loop while a file is loaded. */
const RECORDS_PER_TURN = 2000;

/** Files read and inflated ahead of the one being parsed. */
const FILES_AHEAD = 4;

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
/** Fields the server computes per request; a record must not carry them. */
const COMPUTED_FIELDS: Partial<Record<AreaName, string[]>> = {
  activities: ['distance'],
  tours: ['distance_km'],
  attractions: ['distance_km'],
};
/** Fields a record carries for filtering that the API does not expose. */
const EXTRA_FIELDS: Partial<Record<AreaName, string[]>> = {
  activities: ['attributeValues'],
};

export type LocaleContent = { readonly [A in AreaName]: readonly AreaRecords[A][] };

export interface Snapshot {
  readonly version: string;
  readonly manifest: Manifest;
  readonly locales: Readonly<Record<Locale, LocaleContent>>;
}

/** What {@link loadSnapshot} reads. */
export interface LoadOptions {
  /** Only these areas' files are read and checked; the others are left empty. Default: every area. */
  areas?: readonly AreaName[];
  /**
   * The longest the manifest, or one file it names, may take to be read (and that file checked
   * and inflated), in ms; SNAPSHOT_READ_TIMEOUT_MS, default 30000.
   */
  readTimeoutMs?: number;
}

/**
 * Loads and validates the snapshot that `<dataDir>/manifest.json` points at.
 *
 * @throws SnapshotError when the manifest is missing or malformed, its formatVersion is not
 *   {@link FORMAT_VERSION}, a file is missing, resolves outside the data directory, is not a
 *   regular file or is not read within `readTimeoutMs`, its sha256 or item count differs from
 *   the manifest, or a record does not match its GraphQL type.
 */
export async function loadSnapshot(dataDir: string, schema: GraphQLSchema, options: LoadOptions = {}): Promise<Snapshot> {
  const wanted = new Set(options.areas ?? (Object.keys(AREA_TYPES) as AreaName[]));
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const manifestPath = path.join(dataDir, 'manifest.json');
  const manifest = checkManifest(parseManifest(await readManifestText(dataDir, readTimeoutMs), manifestPath), manifestPath);
  const root = await fs.realpath(dataDir);

  const validators = new Map<AreaName, (record: unknown) => string | null>();
  for (const area of Object.keys(AREA_TYPES) as AreaName[]) {
    validators.set(
      area,
      createRecordValidator(schema, AREA_TYPES[area], {
        computedFields: COMPUTED_FIELDS[area] ?? [],
        extraFields: EXTRA_FIELDS[area] ?? [],
      }),
    );
  }

  const locales = {} as Record<Locale, Record<AreaName, unknown[]>>;
  for (const locale of LOCALES) {
    locales[locale] = { activities: [], locations: [], types: [], stations: [], routes: [], tours: [], attractions: [] };
  }
  const jobs: { locale: Locale; area: AreaName; file: FileEntry }[] = [];
  for (const [source, entry] of Object.entries(manifest.sources) as [SourceName, SourceEntry][]) {
    for (const locale of LOCALES) {
      for (const area of SOURCE_AREAS[source]) {
        const file = entry.locales[locale]?.[area];
        if (file && wanted.has(area)) jobs.push({ locale, area, file });
      }
    }
  }
  // Jobs run locale by locale (each source's de-CH files come first): later locales' records
  // share strings with the record of the same id read first (see deepFreeze).
  const firstRead = new Map<AreaName, ReadonlyMap<unknown, unknown>>();
  // Files are read and inflated a few ahead, off the event loop; parsed and checked one at a
  // time, with turns of the event loop in between, so that a snapshot loaded beside the one
  // being served (hot reload) holds up requests for one step at most.
  const inflated = jobs.map(() => null as Promise<Buffer> | null);
  const inflate = (index: number) => {
    if (index >= jobs.length) return;
    const pending = readFile(root, dataDir, jobs[index]!.file, readTimeoutMs);
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
    if (twins === undefined) firstRead.set(area, new Map(records.map((record) => [(record as { id: unknown }).id, record])));
    locales[locale][area] = records;
  }
  return deepFreeze({ version: manifest.version, manifest, locales }) as unknown as Snapshot;
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
  if (value.formatVersion !== FORMAT_VERSION) {
    fail(`formatVersion ${JSON.stringify(value.formatVersion)}, expected ${FORMAT_VERSION}`);
  }
  if (typeof value.version !== 'string' || !/^[\w.-]+$/.test(value.version)) fail('"version" must be a directory-safe string');
  // Optional: only the fixture generator writes it, and manifests written before it existed lack it.
  if (value.fixture !== undefined) {
    const fixture = value.fixture;
    if (!isObject(fixture) || !Number.isSafeInteger(fixture.seed) || typeof fixture.scale !== 'number' || !(fixture.scale > 0)) {
      fail(`"fixture" must be { seed: integer, scale: number > 0 } (written by npm run fixtures) or absent, found ${JSON.stringify(fixture)}`);
    }
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
 * Reads a file of the manifest (inside `root`, the data directory's real path, and regular),
 * checks its sha256 and inflates it, all within `readTimeoutMs`.
 */
function readFile(root: string, dataDir: string, entry: FileEntry, readTimeoutMs: number): Promise<Buffer> {
  const file = path.join(dataDir, entry.file);
  return withTimeLimit(
    readTimeoutMs,
    async (signal) => {
      let bytes: Buffer;
      try {
        bytes = await readFileInside(root, file, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SnapshotError(`${file}: listed in the manifest but missing`);
        throw error;
      }
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== entry.sha256) throw new SnapshotError(`${file}: sha256 ${actual}, expected ${entry.sha256} (the file was changed after the manifest was written)`);
      try {
        return await gunzip(bytes, { chunkSize: inflatedSizeHint(bytes) });
      } catch (error) {
        throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
      }
    },
    () => readTimeoutError(file, readTimeoutMs),
  );
}

/**
 * The size a gzip file inflates to, as its trailer states (ISIZE, the size of its last member
 * modulo 2^32), plus one byte so that zlib finds the end within the first chunk, which then is
 * the whole file. In zlib's default chunks each chunk costs a callback on the main thread and all
 * of them a copy into one buffer at the end. Only a hint: a file of several gzip members
 * inflates into more chunks, to the same bytes.
 */
function inflatedSizeHint(gzip: Buffer): number {
  const stated = gzip.length >= GZIP_TRAILER_BYTES ? gzip.readUInt32LE(gzip.length - 4) : 0;
  return Math.min(Math.max(stated + 1, MIN_INFLATE_CHUNK), MAX_INFLATE_CHUNK);
}

const GZIP_TRAILER_BYTES = 8;
const MIN_INFLATE_CHUNK = 64 * 1024;
const MAX_INFLATE_CHUNK = 1024 * 1024 * 1024;

/**
 * Parses an inflated file, checks its count and every record, and freezes them.
 * @param twins the area's records in the locale read first, by id (see deepFreeze); none when
 *   this is that locale
 */
async function readRecords(
  dataDir: string,
  entry: FileEntry,
  bytes: Buffer,
  validate: (record: unknown) => string | null,
  twins: ReadonlyMap<unknown, unknown> | undefined,
): Promise<unknown[]> {
  const file = path.join(dataDir, entry.file);
  let records: unknown;
  try {
    // The sync writes ASCII (sync/write.ts encodeRecords), which is also Latin-1 and decodes
    // as that at the speed of a copy, where UTF-8 decoding of accented text is much slower.
    // A file written otherwise is still read as UTF-8.
    records = JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(records)) throw new SnapshotError(`${file}: expected a JSON array of records`);
  if (records.length !== entry.count) throw new SnapshotError(`${file}: ${records.length} records, expected ${entry.count}`);
  for (let i = 0; i < records.length; i++) {
    if (i > 0 && i % RECORDS_PER_TURN === 0) await nextTurn();
    const problem = validate(records[i]);
    if (problem) {
      const id = isObject(records[i]) ? (records[i] as { id?: unknown }).id : undefined;
      throw new SnapshotError(`${file}: record ${i}${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: ${problem}`);
    }
    deepFreeze(records[i], twins?.get((records[i] as { id: unknown }).id));
  }
  return records;
}

/** Resolves after the event loop has had a turn: timers and I/O (requests) run first. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Freezes so a resolver that mutates a shared record fails loudly instead of corrupting later
 * answers. Stops at values already frozen: records are frozen as they are read.
 *
 * With a twin, the same record read in another locale, each string equal to the one at the same
 * place in the twin is replaced by the twin's. JSON.parse makes a string of every value, and a
 * record repeats most of its strings in all four locales: its id, URLs, enumerations, and the
 * texts no one translated. Sharing them shrinks the live heap and leaves fewer pages of the old
 * generation for every young-generation collection to go over (docs/deploy.md). Comparing with
 * the twin, place by place, is cheaper than pooling every string in one Map and saves as much.
 */
function deepFreeze<T>(value: T, twin?: unknown): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    const other = typeof twin === 'object' && twin !== null ? (twin as Record<string, unknown>) : undefined;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object') deepFreeze(item, other?.[i]);
        else if (typeof item === 'string' && other !== undefined && item === other[i]) value[i] = other[i];
      }
    } else {
      const container = value as Record<string, unknown>;
      for (const key in container) {
        const item = container[key];
        if (typeof item === 'object') deepFreeze(item, other?.[key]);
        // Equal strings are === whichever the copy: writing the twin's lets this one be collected.
        else if (typeof item === 'string' && other !== undefined && item === other[key]) container[key] = other[key];
      }
    }
    Object.freeze(value);
  }
  return value;
}
