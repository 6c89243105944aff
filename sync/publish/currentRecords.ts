/**
 * Reading back what the current snapshot holds of a source, for the steps that need a source
 * this run did not fetch (the joins).
 */

import { gunzipSync } from 'node:zlib';
import { type AreaName, LOCALES, type Locale, type SourceName } from '../format.ts';
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
