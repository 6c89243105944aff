/**
 * A small snapshot cut from the committed one in data/: the first records of each of its files,
 * written with sync/publish/write.ts writeSnapshot under the same version, dates and fixture mark. Its
 * records are as real as data/'s (every locale, UTF-8, nested lists), its tours with their lines, but few, so a test that
 * needs some real records loads and indexes them in a fraction of the time data/ takes.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AreaName, GeometryFile, Manifest, SourceName } from '../../sync/format.ts';
import { writeSnapshot, type SourceSnapshot } from '../../sync/publish/write.ts';
import { DATA_DIR } from './api.ts';
import type { TinySnapshot } from './tinySnapshot.ts';

/** Records kept of each file of data/ unless a test asks for another number. */
export const SMALL_SNAPSHOT_RECORDS = 40;

/** Writes a small snapshot into a new temporary directory; see {@link writeSmallSnapshot}. */
export async function createSmallSnapshot(recordsPerFile = SMALL_SNAPSHOT_RECORDS): Promise<TinySnapshot> {
  const dir = await mkdtemp(path.join(tmpdir(), 'small-snapshot-'));
  const manifest = await writeSmallSnapshot(dir, recordsPerFile);
  return { dir, manifest, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Writes into `dataDir` the first `recordsPerFile` records of each file of the committed snapshot.
 *
 * @throws when `recordsPerFile` is not a positive integer
 */
export function writeSmallSnapshot(dataDir: string, recordsPerFile = SMALL_SNAPSHOT_RECORDS): Promise<Manifest> {
  if (!Number.isInteger(recordsPerFile) || recordsPerFile < 1) throw new Error(`recordsPerFile must be a positive integer, got ${recordsPerFile}`);
  const committed = JSON.parse(readFileSync(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as Manifest;
  const sources: Partial<Record<SourceName, SourceSnapshot>> = {};
  for (const [name, source] of Object.entries(committed.sources) as [SourceName, NonNullable<Manifest['sources'][SourceName]>][]) {
    const locales: SourceSnapshot['locales'] = {};
    for (const [locale, areas] of Object.entries(source.locales) as [keyof SourceSnapshot['locales'], Record<AreaName, { file: string }>][]) {
      locales[locale] = Object.fromEntries(
        Object.entries(areas).map(([area, { file }]) => [area, (JSON.parse(gunzipSync(readFileSync(path.join(DATA_DIR, file))).toString('utf8')) as unknown[]).slice(0, recordsPerFile)]),
      );
    }
    sources[name] = { label: source.label, lastSync: source.lastSync, stale: source.stale, locales };
  }
  // The lines of the tours kept, from the committed geometry file.
  const lines = committed.geometry ? (JSON.parse(gunzipSync(readFileSync(path.join(DATA_DIR, committed.geometry.file))).toString('utf8')) as GeometryFile).tours : {};
  const kept = new Set(Object.values(sources.tours?.locales ?? {}).flatMap((areas) => (Array.isArray(areas?.tours) ? areas.tours.map((tour) => tour.id) : [])));
  const geometry = Object.fromEntries(Object.entries(lines).filter(([id]) => kept.has(id)));
  return writeSnapshot(dataDir, committed.version, sources, new Date(committed.createdAt), { fixture: committed.fixture ?? undefined, geometry });
}
