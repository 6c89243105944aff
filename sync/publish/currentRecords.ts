/**
 * Reading back what the current snapshot holds of a source, for the steps that need a source
 * this run did not fetch (the joins), and its tours' lines, which a new version carries over
 * and a fetch of the tours keeps where a tour is unchanged.
 */

import { gunzipSync } from 'node:zlib';
import { type AreaName, geometryFault, LOCALES, type Locale, type Manifest, type SourceName, type TourGeometry } from '../format.ts';
import type { ServedSource } from '../source.ts';
import { readManifest } from './manifest.ts';
import { readCarried } from './files.ts';

/**
 * The records of `source` in the snapshot `manifest.json` points at, per locale and area; null
 * when there is no snapshot or it has no such source.
 *
 * @throws Error naming the file when one cannot be read, fails its sha256 or is not a JSON array
 */
export async function readCurrentRecords(dataDir: string, source: SourceName): Promise<Partial<Record<Locale, Partial<Record<AreaName, unknown[]>>>> | null> {
  const entry = (await readManifest(dataDir))?.sources?.[source];
  if (!entry) return null;
  const out: Partial<Record<Locale, Partial<Record<AreaName, unknown[]>>>> = {};
  for (const locale of LOCALES) {
    const files = entry.locales[locale];
    if (!files) continue;
    const areas: Partial<Record<AreaName, unknown[]>> = {};
    for (const [area, file] of Object.entries(files) as [AreaName, NonNullable<(typeof files)[AreaName]>][]) {
      const bytes = await readCarried(dataDir, file);
      // The files are ASCII (encodeRecords escapes the rest), so Latin-1 decodes them as they are.
      const records: unknown = JSON.parse(gunzipSync(bytes).toString('latin1'));
      if (!Array.isArray(records)) throw new Error(`${file.file} in ${dataDir}: expected a JSON array of ${area}`);
      areas[area] = records;
    }
    out[locale] = areas;
  }
  return out;
}

/**
 * The tours' lines of the snapshot `manifest` (one of `dataDir`'s) by tour id; none when it
 * names no geometry file.
 *
 * @throws Error naming the file when it cannot be read, fails its sha256, or is not the JSON of
 *   a GeometryFile of that version, and naming the tour when a line is not one
 */
export async function readGeometryOf(dataDir: string, manifest: Manifest | null): Promise<Record<string, TourGeometry>> {
  const entry = manifest?.geometry;
  const lines = Object.create(null) as Record<string, TourGeometry>;
  if (!entry) return lines;
  const where = `${entry.file} in ${dataDir}`;
  const value: unknown = JSON.parse(gunzipSync(await readCarried(dataDir, entry)).toString('latin1'));
  const tours = (value as { tours?: unknown } | null)?.tours;
  if (typeof tours !== 'object' || tours === null || (value as { version?: unknown }).version !== manifest!.version) {
    throw new Error(`${where}: expected the lines of version ${manifest!.version} as { version, tours: { <tour id>: line } }`);
  }
  for (const [id, line] of Object.entries(tours)) {
    const fault = geometryFault(line);
    if (fault !== null) throw new Error(`${where}: tour ${JSON.stringify(id)}: ${fault}`);
    lines[id] = line as TourGeometry;
  }
  return lines;
}

/**
 * What the snapshot `manifest.json` points at holds of `source`: its records, and the tours'
 * lines; null when there is no snapshot or it has no such source.
 *
 * @throws Error as {@link readCurrentRecords} and {@link readGeometryOf} do
 */
export async function readServedSource(dataDir: string, source: SourceName): Promise<ServedSource | null> {
  const manifest = await readManifest(dataDir);
  if (!manifest?.sources?.[source]) return null;
  const locales = (await readCurrentRecords(dataDir, source)) as ServedSource['locales'] | null;
  if (locales === null) return null;
  return { locales, geometry: source === 'tours' ? await readGeometryOf(dataDir, manifest) : {} };
}
