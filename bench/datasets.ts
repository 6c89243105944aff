/**
 * The datasets the bench measures: the committed fixture (`data/`, scale 1) and larger ones
 * (`bench/data/x<N>`) written by the fixture generator at the start of a run.
 *
 * A larger dataset is kept between runs, since writing the 10x one takes minutes, and written
 * again once the code that wrote it has changed: a dataset in an older format would measure
 * work the server no longer does.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The file beside a generated dataset's manifest naming the code that wrote it. */
export const STAMP_FILE = 'generator.sha256';

export function datasetDir(scale: number): string {
  return scale === 1 ? 'data' : `bench/data/x${scale}`;
}

/**
 * A hash of every file under `root` (the sync and its fixture generator): their paths and bytes,
 * in path order.
 */
export function generatorHash(root = 'sync'): string {
  const hash = createHash('sha256');
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(path.join(root, file))).update('\0');
  return hash.digest('hex');
}

/** Why the dataset in `dir` must be written again, or null when it was written by the code of `hash`. */
export function staleReason(dir: string, hash: string): string | null {
  if (!existsSync(path.join(dir, 'manifest.json'))) return 'missing';
  const stamp = path.join(dir, STAMP_FILE);
  if (!existsSync(stamp)) return `no ${STAMP_FILE}: written before datasets were stamped`;
  return readFileSync(stamp, 'utf8').trim() === hash ? null : 'written by other code of sync/ than this checkout';
}

/**
 * Writes bench/data/x<scale> with the fixture generator when it is missing, stale (see
 * {@link staleReason}) or `regenerate` asks for it.
 * @param log where to say what is written and why
 * @throws Error when the generator fails
 */
export function ensureDataset(scale: number, regenerate: boolean, log: (message: string) => void): void {
  if (scale === 1) return;
  const dir = datasetDir(scale);
  const hash = generatorHash();
  const reason = regenerate ? 'asked by --regenerate' : staleReason(dir, hash);
  if (reason === null) return;
  log(`generating the ${scale}x dataset in ${dir} (${reason}): npm run fixtures -- --scale ${scale} --out ${dir}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'sync/fixtures/main.ts', '--scale', String(scale), '--out', dir], { stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error(`generating the ${scale}x dataset failed (exit ${result.status ?? result.signal})`);
  writeFileSync(path.join(dir, STAMP_FILE), `${hash}\n`);
}
