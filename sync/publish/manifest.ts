/**
 * A data directory's `manifest.json`, the commit point of a snapshot: read it as it is, and
 * replace it atomically.
 */

import type { KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { MANIFEST_SIGNATURE_FILE, type Manifest } from '../format.ts';
import { fsyncDir, readTextIfPresent } from './files.ts';
import { signManifest } from './sign.ts';

/**
 * Replaces `manifest.json` atomically: write-file-atomic writes a temp file beside it
 * (`manifest.json.<n>`), fsyncs and renames it, and removes it when anything fails; the
 * directory is fsynced after, which write-file-atomic does not do, so that the rename itself
 * outlives a power loss.
 *
 * With `signingKey`, its signature is written first, beside it (MANIFEST_SIGNATURE_FILE), so that
 * whoever copies the directory in name order, or uploads the manifest last, never finds a new
 * manifest with the old signature; without, a signature left by an earlier run is removed, since
 * it would sign another manifest.
 */
export async function writeManifest(dataDir: string, manifest: Manifest, signingKey: KeyObject | null = null): Promise<void> {
  const bytes = encodeManifest(manifest);
  const signatureFile = path.join(dataDir, MANIFEST_SIGNATURE_FILE);
  if (signingKey) await writeFileAtomic(signatureFile, signManifest(bytes, signingKey));
  else await fs.rm(signatureFile, { force: true });
  await writeFileAtomic(path.join(dataDir, 'manifest.json'), bytes);
  await fsyncDir(dataDir);
}

/**
 * Reads a data directory's `manifest.json` as it is, without checking it.
 *
 * @returns the parsed manifest, or null when there is none
 * @throws when the file cannot be read or is not JSON
 */
export async function readManifest(dataDir: string): Promise<Manifest | null> {
  const file = path.join(dataDir, 'manifest.json');
  const text = await readTextIfPresent(file);
  if (text === null) return null;
  try {
    return JSON.parse(text) as Manifest;
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
}

/** The manifest's bytes: indented JSON with a final newline. */
export function encodeManifest(manifest: Manifest): Buffer {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
}
