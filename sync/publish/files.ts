/**
 * The durable file steps every writer of a data directory shares: a checksum as the manifest
 * stores it, a write that is on disk when it returns, and a directory fsync so a rename is too.
 */

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileEntry } from '../format.ts';

/** Hex sha256 of some bytes, as stored in a manifest's `FileEntry.sha256`. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes `bytes` to `file` (creating its directory) and fsyncs it before returning. */
export async function writeDurably(file: string, bytes: Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const handle = await fs.open(file, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Fsyncs a directory, so that a rename or a new entry in it outlives a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** True when something exists at `p`. */
export async function pathExists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/**
 * The text of `file`, or null when there is no such file.
 *
 * @throws when it exists but cannot be read
 */
export async function readTextIfPresent(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The bytes of a file an earlier version holds, checked against the sha256 its manifest gives.
 *
 * @throws naming the file and both checksums when they differ
 */
export async function readCarried(dataDir: string, entry: FileEntry): Promise<Buffer> {
  const file = path.join(dataDir, entry.file);
  const bytes = await fs.readFile(file);
  const actual = sha256(bytes);
  if (actual !== entry.sha256) throw new Error(`cannot carry ${file} over: sha256 ${actual}, expected ${entry.sha256}`);
  return bytes;
}
