/**
 * A snapshot's change lists (`<version>/changes.json.gz`, docs/snapshot-format.md): what changed
 * since each of the earlier versions the sync had at hand. Read and checked with the snapshot,
 * so that `changes` answers from the version served alone, in every way of deploying.
 */

import path from 'node:path';
import { CHANGE_AREAS, type ChangeLists, type Manifest } from '../../sync/format.ts';
import { LOCALES } from './locales.ts';
import { SnapshotError } from './snapshotError.ts';
import { readSnapshotFile } from './snapshotFile.ts';

/**
 * Reads, checks and parses the change lists the manifest names. A format-1 manifest names none:
 * its version lists no changes, as a first version does.
 *
 * @param root the data directory's real path
 * @throws SnapshotError naming the file when it is missing, fails its sha256, is not the JSON of
 *   {@link ChangeLists}, names another version, or lists another number of versions than the
 *   manifest's `changes.count`
 */
export async function readChangeLists(root: string, dataDir: string, manifest: Manifest, readTimeoutMs: number, maxFileBytes?: number): Promise<ChangeLists> {
  const entry = manifest.changes;
  if (entry === undefined) return { version: manifest.version, since: [] };
  const file = path.join(dataDir, entry.file);
  const bytes = await readSnapshotFile(root, dataDir, entry, readTimeoutMs, maxFileBytes);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  }
  const problem = problemOf(value, manifest);
  if (problem) throw new SnapshotError(`${file}: ${problem}`);
  return value as ChangeLists;
}

/** What is wrong with `value` as the change lists of `manifest`'s version; null when nothing. */
function problemOf(value: unknown, manifest: Manifest): string | null {
  if (!isObject(value) || !Array.isArray(value.since)) return 'expected { version, since: [] }';
  if (value.version !== manifest.version) return `lists the changes to version ${JSON.stringify(value.version)}, expected ${manifest.version}`;
  if (value.since.length !== manifest.changes!.count) return `${value.since.length} earlier versions, expected ${manifest.changes!.count}`;
  for (const [i, since] of value.since.entries()) {
    const at = `since[${i}]`;
    if (!isObject(since) || typeof since.version !== 'string' || typeof since.createdAt !== 'string' || Number.isNaN(Date.parse(since.createdAt)) || !isObject(since.locales)) {
      return `${at} must be { version, createdAt: ISO time, locales }`;
    }
    for (const [locale, areas] of Object.entries(since.locales)) {
      if (!(LOCALES as readonly string[]).includes(locale)) return `${at}.locales: unknown locale "${locale}"`;
      if (!isObject(areas)) return `${at}.locales.${locale} must be an object`;
      for (const [area, lists] of Object.entries(areas)) {
        if (!(CHANGE_AREAS as readonly string[]).includes(area)) return `${at}.locales.${locale}: unknown area "${area}" (expected one of ${CHANGE_AREAS.join(', ')})`;
        if (!isObject(lists) || !isIdList(lists.upserted) || !isIdList(lists.deleted)) return `${at}.locales.${locale}.${area} must be { upserted: ids, deleted: ids }`;
      }
    }
  }
  return null;
}

function isIdList(value: unknown): boolean {
  return Array.isArray(value) && value.every((id) => typeof id === 'string' || typeof id === 'number');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
