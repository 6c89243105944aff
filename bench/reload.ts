/**
 * The hot-reload scenario: a new snapshot version is published into the data directory a
 * server is serving, as the sync does (version directory first, then the manifest by rename),
 * and the server loads and swaps it in while requests keep arriving. The served directory is a
 * copy of the dataset, so the committed one is never touched.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Manifest } from '../sync/format.ts';

/**
 * Copies the snapshot a dataset's manifest points at (its version directory and the manifest)
 * into a new temporary directory.
 * @returns the copy's path; the caller removes it
 */
export async function copyDataset(dataDir: string): Promise<string> {
  const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-reload-'));
  const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')) as Manifest;
  await fs.cp(path.join(dataDir, manifest.version), path.join(copy, manifest.version), { recursive: true });
  await fs.copyFile(path.join(dataDir, 'manifest.json'), path.join(copy, 'manifest.json'));
  return copy;
}

/**
 * Publishes the served snapshot again as version `version`: its files copied into a directory of
 * that name, then a manifest naming them renamed over the served one, the sync's commit point.
 * The content is the same; the server loads, checks and indexes it all again.
 */
export async function publishVersion(dataDir: string, version: string): Promise<void> {
  const manifestPath = path.join(dataDir, 'manifest.json');
  const manifest = JSON.parse(await fs.readFile(manifestPath, 'utf8')) as Manifest;
  await fs.cp(path.join(dataDir, manifest.version), path.join(dataDir, version), { recursive: true });
  const from = `${manifest.version}/`;
  const text = JSON.stringify({ ...manifest, version }, (key, value) =>
    key === 'file' && typeof value === 'string' && value.startsWith(from) ? `${version}/${value.slice(from.length)}` : value,
  );
  await fs.writeFile(`${manifestPath}.tmp`, text);
  await fs.rename(`${manifestPath}.tmp`, manifestPath);
}
