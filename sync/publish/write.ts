/**
 * Writes snapshots in the format of sync/format.ts: content files first, then the manifest,
 * which is the commit point.
 */

import type { KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CHANGE_AREAS, changesPath, FORMAT_VERSION, LOCALES, type Locale, SOURCE_AREAS, type SourceName, type AreaName, SOURCE_NAMES, TTL_MS, type FileEntry, type SourceEntry, type FixtureOrigin, type Manifest, type AreaRecords, type ChangeLists, contentPath, geometryPath, type GeometryFile, type TourGeometry } from '../format.ts';
import { fsyncDir, pathExists, readCarried, sha256, writeDurably } from './files.ts';
import { computeChanges, DEFAULT_CHANGE_VERSIONS, type NewContent } from './changes.ts';
import { encodeManifest, writeManifest } from './manifest.ts';
import { escapeNonAscii, recordLine } from './recordLine.ts';
import { encodeVersionReport, REPORT_FILE, type VersionReport } from './versionReport.ts';

/** A content file of an earlier version of the same data directory, copied as it is. */
export interface CarriedFile {
  carry: FileEntry;
}

/** What one source contributes to a snapshot. */
export interface SourceSnapshot {
  label: string;
  /** ISO 8601 time the data was fetched (of the oldest part, when some files are carried). */
  lastSync: string;
  stale?: boolean;
  /** One line on why it is stale; written only when it is. */
  staleReason?: string;
  /** Per locale and area: fresh records to write, or a file to carry over from an earlier version. */
  locales: Partial<Record<Locale, Partial<{ [A in AreaName]: AreaRecords[A][] | CarriedFile }>>>;
}

/**
 * Writes a complete snapshot and then commits it by replacing `manifest.json`.
 *
 * Content goes to `<version>.tmp/` first, every file is fsynced, the directory is renamed
 * to `<version>/`, and only then is the manifest replaced through temp-then-rename. A crash
 * at any point leaves the previous manifest, and so the previous snapshot, intact.
 * A {@link CarriedFile} is copied from its earlier version after checking its sha256.
 *
 * @param options.fixture marks the snapshot as the fixture generator's (see {@link FixtureOrigin}),
 *   and every source's label as fixture data
 * @param options.report the publish gate's report, written as `<version>/report.json`
 * @param options.changeVersions how many earlier versions of `dataDir` the change lists reach
 *   back to (sync/publish/changes.ts); default {@link DEFAULT_CHANGE_VERSIONS}
 * @param options.onChangeLists told how many earlier versions the change lists reach and how
 *   long computing them took, in ms
 * @param options.signingKey signs the manifest (SNAPSHOT_SIGNING_KEY; writeManifest in manifest.ts)
 * @param options.geometry the tours' lines by tour id, written once for the version as
 *   `<version>/geometry.json.gz`; none (or none in it) writes no file, and the manifest names none
 * @throws if `<version>/` already exists (versions are immutable once published), or a carried
 *   file is missing or no longer matches its sha256
 */
export async function writeSnapshot(
  dataDir: string,
  version: string,
  sources: Partial<Record<SourceName, SourceSnapshot>>,
  now = new Date(),
  options: { fixture?: FixtureOrigin; report?: VersionReport; changeVersions?: number; onChangeLists?: (versions: number, ms: number) => void; signingKey?: KeyObject | null; geometry?: Readonly<Record<string, TourGeometry>> } = {},
): Promise<Manifest> {
  const finalDir = path.join(dataDir, version);
  const tmpDir = `${finalDir}.tmp`;
  if (await pathExists(finalDir)) throw new Error(`snapshot version ${version} already exists in ${dataDir}`);
  await fs.rm(tmpDir, { recursive: true, force: true });

  const { fixture } = options;
  const manifest: Manifest = {
    formatVersion: FORMAT_VERSION,
    version,
    createdAt: now.toISOString(),
    ...(fixture && { fixture: { seed: fixture.seed, scale: fixture.scale } }),
    sources: {},
    changes: { file: changesPath(version), count: 0, sha256: '' },
  };
  try {
    const started = performance.now();
    const changes = await computeChanges(dataDir, version, (locale, area) => contentOf(sources, locale, area), options.changeVersions ?? DEFAULT_CHANGE_VERSIONS);
    options.onChangeLists?.(changes.since.length, performance.now() - started);
    const changeBytes = encodeChangeLists(changes);
    await writeDurably(path.join(tmpDir, 'changes.json.gz'), changeBytes);
    manifest.changes = { file: changesPath(version), count: changes.since.length, sha256: sha256(changeBytes) };
    const lines = options.geometry ?? {};
    const count = Object.keys(lines).length;
    if (count > 0) {
      const geometryBytes = encodeGeometry({ version, tours: lines });
      await writeDurably(path.join(tmpDir, 'geometry.json.gz'), geometryBytes);
      manifest.geometry = { file: geometryPath(version), count, sha256: sha256(geometryBytes) };
    }
    for (const name of SOURCE_NAMES) {
      const source = sources[name];
      if (!source) continue;
      const entry: SourceEntry = {
        // Whoever reads an answer sees `meta.source`: generated data must not pass for the upstream's,
        // nor a generated line for a route someone walked.
        label: fixture ? `${source.label}${name === 'tours' && count > 0 ? ', route lines generated' : ''} (fixture data, not from the upstream)` : source.label,
        lastSync: source.lastSync,
        expiresAt: new Date(Date.parse(source.lastSync) + TTL_MS).toISOString(),
        stale: source.stale ?? false,
        ...(source.stale && source.staleReason !== undefined && { staleReason: source.staleReason }),
        locales: {},
      };
      for (const locale of LOCALES) {
        const areas = source.locales[locale];
        if (!areas) continue;
        const files: Partial<Record<AreaName, FileEntry>> = {};
        for (const area of SOURCE_AREAS[name]) {
          const content = (areas as Partial<Record<AreaName, unknown[] | CarriedFile>>)[area];
          if (!content) continue;
          const file = contentPath(version, locale, area);
          const bytes = Array.isArray(content) ? encodeRecords(content) : await readCarried(dataDir, content.carry);
          await writeDurably(path.join(tmpDir, locale, `${area}.json.gz`), bytes);
          files[area] = { file, count: Array.isArray(content) ? content.length : content.carry.count, sha256: sha256(bytes) };
        }
        entry.locales[locale] = files;
      }
      manifest.sources[name] = entry;
    }
    if (options.report) await writeDurably(path.join(tmpDir, REPORT_FILE), encodeVersionReport(options.report));
    await writeDurably(path.join(tmpDir, 'manifest.json'), encodeManifest(manifest));
    await fsyncDir(tmpDir);
    await fs.rename(tmpDir, finalDir);
    await fsyncDir(dataDir);
  } catch (error) {
    await fs.rm(tmpDir, { recursive: true, force: true });
    throw error;
  }
  await writeManifest(dataDir, manifest, options.signingKey ?? null);
  return manifest;
}

/** What the new snapshot holds in an area and locale, for its change lists. */
function contentOf(sources: Partial<Record<SourceName, SourceSnapshot>>, locale: Locale, area: (typeof CHANGE_AREAS)[number]): NewContent | undefined {
  for (const name of SOURCE_NAMES) {
    if (!(SOURCE_AREAS[name] as readonly AreaName[]).includes(area)) continue;
    return (sources[name]?.locales[locale] as Partial<Record<AreaName, NewContent>> | undefined)?.[area];
  }
  return undefined;
}

/**
 * The change lists as stored: JSON, each earlier version's lists on lines of their own,
 * gzip-compressed deterministically and ASCII like the content files.
 */
export function encodeChangeLists(changes: ChangeLists): Buffer {
  const since = changes.since.map((entry) => JSON.stringify(entry)).join(',\n');
  const json = `{"version":${JSON.stringify(changes.version)},"since":[${since === '' ? '' : `\n${since}\n`}]}\n`;
  return gzipSync(escapeNonAscii(json), { level: 9 });
}

/**
 * The geometry file as stored: JSON, one tour's line per line of text in the order of the ids
 * (so that the same lines write the same bytes), gzip-compressed deterministically. Numbers only
 * and ids as the upstream sends them, escaped to ASCII like the content files.
 */
export function encodeGeometry(file: GeometryFile): Buffer {
  const ids = Object.keys(file.tours).sort();
  const tours = ids.map((id) => `${JSON.stringify(id)}:${JSON.stringify(file.tours[id])}`).join(',\n');
  const json = `{"version":${JSON.stringify(file.version)},"tours":{${tours === '' ? '' : `\n${tours}\n`}}}\n`;
  return gzipSync(escapeNonAscii(json), { level: 9 });
}

/**
 * One JSON array, one record per line (readable with `zcat`), gzip-compressed deterministically.
 * Characters outside ASCII are written as `\uXXXX` escapes, so the file is ASCII: the server
 * decodes an ASCII file as Latin-1 (server/snapshot/load.ts), a plain copy, where UTF-8 with
 * accented letters has to be decoded; the escapes cost little, since gzip takes most of them back.
 */
export function encodeRecords(records: readonly unknown[]): Buffer {
  const json = records.length === 0 ? '[]\n' : `[\n${records.map(recordLine).join(',\n')}\n]\n`;
  return gzipSync(json, { level: 9 });
}
