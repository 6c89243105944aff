/**
 * `--rollback`: point the manifest back at the previous intact version.
 */

import type { KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileEntry, Manifest } from '../format.ts';
import { pathExists, sha256 } from './files.ts';
import { withPublishLock } from './lock.ts';
import { readManifest, writeManifest } from './manifest.ts';
import { compareVersions, VERSION_DIR } from './versions.ts';

/**
 * Points the manifest back at the newest version older than the current one whose files are
 * all present and intact (each version keeps a copy of its manifest). When `manifest.json` is
 * missing or unreadable, restores the newest intact version instead.
 *
 * @returns the version left (null when the manifest was unreadable) and the version now current
 * @param options.signingKey signs the manifest written (SNAPSHOT_SIGNING_KEY)
 * @throws when `dataDir` does not exist or there is no version to go back to; PublishLockedError
 *   when a sync is publishing into it for longer than `lockWaitMs` (default 2 minutes)
 */
export async function rollback(dataDir: string, options: { lockWaitMs?: number; signingKey?: KeyObject | null } = {}): Promise<{ from: string | null; to: string }> {
  // Checked first: taking the lock would create the directory.
  if (!(await pathExists(dataDir))) throw new Error(`${dataDir} does not exist: there is no snapshot to roll back`);
  return withPublishLock(dataDir, () => rollbackLocked(dataDir, options.signingKey ?? null), { waitMs: options.lockWaitMs });
}

async function rollbackLocked(dataDir: string, signingKey: KeyObject | null): Promise<{ from: string | null; to: string }> {
  const current = await readManifest(dataDir).catch(() => null);
  const from = typeof current?.version === 'string' ? current.version : null;
  const entries = await fs.readdir(dataDir, { withFileTypes: true });
  const older = entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name) && (from === null || compareVersions(e.name, from) < 0))
    .map((e) => e.name)
    .sort(compareVersions)
    .reverse();
  const problems: string[] = [];
  for (const version of older) {
    const problem = await checkVersion(dataDir, version);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const manifest = (await readManifest(path.join(dataDir, version)))!;
    await writeManifest(dataDir, manifest, signingKey);
    return { from, to: version };
  }
  const what = from === null ? `no intact version in ${dataDir} to restore` : `no version older than ${from} to roll back to`;
  throw new Error(`${what}${problems.length ? ` (${problems.join('; ')})` : ''}`);
}

/** Why a version cannot be served, or null when its manifest copy and every file are intact. */
async function checkVersion(dataDir: string, version: string): Promise<string | null> {
  let manifest: Manifest | null;
  try {
    manifest = await readManifest(path.join(dataDir, version));
  } catch (error) {
    return `${version}: ${(error as Error).message}`;
  }
  if (!manifest || manifest.version !== version) return `${version}: no manifest copy`;
  // A version's change lists and lines come back with it: `changes` then answers from that version.
  const files: FileEntry[] = [manifest.changes, manifest.geometry].filter((entry) => entry !== undefined);
  for (const entry of Object.values(manifest.sources)) {
    for (const areas of Object.values(entry?.locales ?? {})) files.push(...Object.values(areas ?? {}));
  }
  for (const file of files) {
    const bytes = await fs.readFile(path.join(dataDir, file.file)).catch(() => null);
    if (!bytes) return `${version}: ${file.file} is missing`;
    if (sha256(bytes) !== file.sha256) return `${version}: ${file.file} does not match its sha256`;
  }
  return null;
}
