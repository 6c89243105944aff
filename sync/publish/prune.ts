/**
 * Removing old versions and the leftovers of killed runs from a data directory.
 */

import fs from 'node:fs/promises';
import path from 'node:path';
import { readManifest } from './manifest.ts';
import { compareVersions, VERSION_DIR } from './versions.ts';

/** A temp file of a manifest being replaced (see writeManifest in manifest.ts). */
const MANIFEST_TEMP = /^manifest\.json\.\d+(\.tmp)?$/;

/**
 * Removes all but the newest `keep` version directories, never the one the manifest points
 * at, plus leftovers of interrupted runs (`*.tmp`). Only safe under the publish lock, which
 * publish() holds: another run's files in the making look like leftovers.
 *
 * @returns the names removed
 */
export async function prune(dataDir: string, keep: number): Promise<string[]> {
  const current = (await readManifest(dataDir))?.version;
  const entries = await fs.readdir(dataDir, { withFileTypes: true });
  const versions = entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name))
    .map((e) => e.name)
    .sort(compareVersions)
    .reverse();
  const doomed = versions.slice(keep).filter((name) => name !== current);
  // Leftovers of a run that was killed: its version dir before the rename, its manifest temp
  // file (write-file-atomic's `manifest.json.<n>`, or `manifest.json.<pid>.tmp` in a data
  // directory an older sync wrote into).
  const leftovers = entries
    .filter((e) => (e.isDirectory() && e.name.endsWith('.tmp') && VERSION_DIR.test(e.name.slice(0, -4))) || (e.isFile() && MANIFEST_TEMP.test(e.name)))
    .map((e) => e.name);
  for (const name of [...doomed, ...leftovers]) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  return doomed;
}
