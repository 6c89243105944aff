/**
 * A snapshot's tours' lines (`<version>/geometry.json.gz`, docs/snapshot-format.md): read, checked
 * and frozen with the snapshot's other files. The lines come from an upstream through the sync,
 * so every one is checked as hostile input (geometryFault in sync/format.ts) before it is served.
 */

import { isAscii } from 'node:buffer';
import path from 'node:path';
import { geometryFault, type Manifest, type TourGeometry } from '../../sync/format.ts';
import { deepFreeze } from '../util/deepFreeze.ts';
import { SnapshotError } from './snapshotError.ts';
import { readSnapshotFile } from './snapshotFile.ts';

/** Each tour's line by tour id; a tour without one is absent. */
export type TourLines = Readonly<Record<string, TourGeometry>>;

/** No tour has a line: what a snapshot whose manifest names no geometry file serves. */
export const NO_LINES: TourLines = Object.freeze(Object.create(null) as Record<string, TourGeometry>);

/**
 * Reads, checks, parses and freezes the geometry file the manifest names.
 *
 * @param root the data directory's real path
 * @param pause called after each tour's line; a caller that shares its thread with requests
 *   gives way there (offThread.ts)
 * @returns the lines by tour id, in an object without prototype (a tour id such as `__proto__`
 *   is a key like any other); {@link NO_LINES} when the manifest names no file
 * @throws SnapshotError naming the file when it is missing, fails its sha256, inflates past
 *   `maxFileBytes`, is not the JSON of a GeometryFile, names another version, holds another number
 *   of lines than the manifest's `geometry.count`, and naming the tour too when a line is not one
 */
export async function readGeometry(
  root: string,
  dataDir: string,
  manifest: Manifest,
  readTimeoutMs: number,
  maxFileBytes?: number,
  pause?: () => Promise<void> | undefined,
): Promise<TourLines> {
  const entry = manifest.geometry;
  if (entry === undefined) return NO_LINES;
  const file = path.join(dataDir, entry.file);
  const bytes = await readSnapshotFile(root, dataDir, entry, readTimeoutMs, maxFileBytes);
  let value: unknown;
  try {
    // The sync writes ASCII (sync/publish/write.ts encodeGeometry), which decodes as Latin-1 at the speed of a copy.
    value = JSON.parse(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'));
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || !isObject(value.tours)) throw new SnapshotError(`${file}: expected { version, tours: { <tour id>: LineString or MultiLineString } }`);
  if (value.version !== manifest.version) throw new SnapshotError(`${file}: holds the lines of version ${JSON.stringify(value.version)}, expected ${manifest.version}`);
  const tours = value.tours;
  const lines = Object.create(null) as Record<string, TourGeometry>;
  let count = 0;
  for (const id in tours) {
    if (!Object.hasOwn(tours, id)) continue;
    const problem = id === '' ? 'an empty tour id' : geometryFault(tours[id]);
    if (problem !== null) throw new SnapshotError(`${file}: tour ${JSON.stringify(id)}: ${problem}`);
    lines[id] = deepFreeze(tours[id] as TourGeometry);
    count++;
    await pause?.();
  }
  if (count !== entry.count) throw new SnapshotError(`${file}: ${count} tours' lines, expected ${entry.count}`);
  return Object.freeze(lines);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
