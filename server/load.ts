/**
 * Reads the snapshot a data directory's manifest points at, checks it, and returns it
 * frozen. Nothing is served from a snapshot that failed any check: the caller keeps the
 * previous one (or refuses to start).
 */

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { GraphQLSchema } from 'graphql';
import type { AreaName, AreaRecords, FileEntry, Manifest, SourceEntry, SourceName } from '../sync/snapshot.ts';
import { LOCALES, type Locale } from './locales.ts';
import { createRecordValidator } from './validateRecord.ts';

/** The snapshot format this server reads (sync/snapshot.ts FORMAT_VERSION). */
export const FORMAT_VERSION = 1;

/** Areas each source publishes, and the GraphQL type their records must match. */
const SOURCES: Record<SourceName, readonly AreaName[]> = {
  activities: ['activities', 'locations', 'types'],
  snowdata: ['stations', 'routes'],
  tours: ['tours'],
  attractions: ['attractions'],
};
const AREA_TYPES: Record<AreaName, string> = {
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

/** A snapshot that must not be served; the message names the file and what is wrong. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

/**
 * Loads and validates the snapshot that `<dataDir>/manifest.json` points at.
 *
 * @throws SnapshotError when the manifest is missing or malformed, its formatVersion is not
 *   {@link FORMAT_VERSION}, a file is missing, its sha256 or item count differs from the
 *   manifest, or a record does not match its GraphQL type.
 */
export async function loadSnapshot(dataDir: string, schema: GraphQLSchema): Promise<Snapshot> {
  const manifestPath = path.join(dataDir, 'manifest.json');
  const manifest = checkManifest(await readManifest(manifestPath), manifestPath);

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
  const reads: Promise<void>[] = [];
  for (const [source, entry] of Object.entries(manifest.sources) as [SourceName, SourceEntry][]) {
    for (const locale of LOCALES) {
      for (const area of SOURCES[source]) {
        const file = entry.locales[locale]?.[area];
        if (!file) continue;
        const validate = validators.get(area)!;
        reads.push(
          readRecords(dataDir, file, validate).then((records) => {
            locales[locale][area] = records;
          }),
        );
      }
    }
  }
  await Promise.all(reads);
  return deepFreeze({ version: manifest.version, manifest, locales }) as unknown as Snapshot;
}

async function readManifest(manifestPath: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(manifestPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SnapshotError(`${manifestPath} not found: run \`npm run sync\` (or \`npm run fixtures\`) to create a snapshot, or set DATA_DIR`);
    }
    throw error;
  }
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
  if (!isObject(value.sources)) return fail('"sources" must be an object');
  for (const [source, entry] of Object.entries(value.sources)) {
    if (!(source in SOURCES)) fail(`unknown source "${source}" (expected one of ${Object.keys(SOURCES).join(', ')})`);
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
        if (!SOURCES[source as SourceName].includes(area as AreaName)) {
          fail(`${fileAt}: source ${source} has no area "${area}" (expected one of ${SOURCES[source as SourceName].join(', ')})`);
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

async function readRecords(dataDir: string, entry: FileEntry, validate: (record: unknown) => string | null): Promise<unknown[]> {
  const file = path.join(dataDir, entry.file);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SnapshotError(`${file}: listed in the manifest but missing`);
    throw error;
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== entry.sha256) throw new SnapshotError(`${file}: sha256 ${actual}, expected ${entry.sha256} (the file was changed after the manifest was written)`);

  let records: unknown;
  try {
    records = JSON.parse(gunzipSync(bytes).toString('utf8'));
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(records)) throw new SnapshotError(`${file}: expected a JSON array of records`);
  if (records.length !== entry.count) throw new SnapshotError(`${file}: ${records.length} records, expected ${entry.count}`);
  for (let i = 0; i < records.length; i++) {
    const problem = validate(records[i]);
    if (problem) {
      const id = isObject(records[i]) ? (records[i] as { id?: unknown }).id : undefined;
      throw new SnapshotError(`${file}: record ${i}${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: ${problem}`);
    }
  }
  return records;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Freezes so a resolver that mutates a shared record fails loudly instead of corrupting later answers. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
