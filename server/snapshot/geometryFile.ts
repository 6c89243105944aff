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
  // The sync writes ASCII (sync/publish/write.ts encodeGeometry), which decodes as Latin-1 at the speed of a copy.
  const text = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const parsed = parseByLine(text, file) ?? parseWhole(text, file);
  if (parsed.version !== manifest.version) throw new SnapshotError(`${file}: holds the lines of version ${JSON.stringify(parsed.version)}, expected ${manifest.version}`);
  const lines = Object.create(null) as Record<string, TourGeometry>;
  let count = 0;
  for (const [id, line] of parsed.tours) {
    const problem = id === '' ? 'an empty tour id' : Object.hasOwn(lines, id) ? 'named twice' : geometryFault(line);
    if (problem !== null) throw new SnapshotError(`${file}: tour ${JSON.stringify(id)}: ${problem}`);
    lines[id] = deepFreeze(line as TourGeometry);
    count++;
    await pause?.();
  }
  if (count !== entry.count) throw new SnapshotError(`${file}: ${count} tours' lines, expected ${entry.count}`);
  return Object.freeze(lines);
}

/** A geometry file parsed: its version and each tour's line, parsed one at a time as they are asked for. */
interface ParsedLines {
  version: unknown;
  tours: Iterable<[string, unknown]>;
}

/**
 * The file as the sync writes it, a tour to a line, parsed a line at a time, so that a reload
 * parses it in slices rather than in one piece; null when it is not laid out so.
 * @throws SnapshotError naming the file and the line that is not one tour's JSON
 */
function parseByLine(text: string, file: string): ParsedLines | null {
  const rows = text.split('\n');
  const last = rows.at(-1) === '' ? rows.length - 2 : rows.length - 1;
  if (last < 2 || !rows[0]!.endsWith('"tours":{') || rows[last] !== '}}') return null;
  let head: unknown;
  try {
    head = JSON.parse(`${rows[0]}}}`);
  } catch {
    return null;
  }
  if (!isObject(head) || !isObject(head.tours) || Object.keys(head.tours).length > 0) return null;
  function* tours(): Generator<[string, unknown]> {
    for (let i = 1; i < last; i++) {
      const row = i < last - 1 ? rows[i]!.replace(/,$/, '') : rows[i]!;
      let entry: unknown;
      try {
        entry = JSON.parse(`{${row}}`);
      } catch (error) {
        throw new SnapshotError(`${file}: line ${i + 1} is not the JSON of one tour's line (${(error as Error).message})`);
      }
      const keys = Object.keys(entry as object);
      if (keys.length !== 1) throw new SnapshotError(`${file}: line ${i + 1} holds ${keys.length} tours' lines, expected one`);
      yield [keys[0]!, (entry as Record<string, unknown>)[keys[0]!]];
    }
  }
  return { version: head.version, tours: tours() };
}

/** A geometry file laid out otherwise, parsed in one piece. */
function parseWhole(text: string, file: string): ParsedLines {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || !isObject(value.tours)) throw new SnapshotError(`${file}: expected { version, tours: { <tour id>: LineString or MultiLineString } }`);
  return { version: value.version, tours: Object.entries(value.tours) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
