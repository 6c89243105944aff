/**
 * Runs the sync CLI as a child process, as an operator does: this run's bundle of it
 * (dist/sync.mjs, what the image runs), which starts without compiling TypeScript first.
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { bundleDist, REPO_ROOT } from '../../helpers/bundle.ts';

/** Small enough that a run which keeps every page of an endless listing runs out of it. */
export const CHILD_HEAP_MB = 256;
/** The safety net of a run that never ends; a run that ends by itself is far quicker. */
export const CHILD_KILL_MS = 60_000;

export interface CliRun {
  /** null when the child was killed by a signal (out of memory, or the safety net). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bundled sync CLI with `env` (an upstream's settings) on top of this process's
 * environment, publishing into `dataDir`.
 *
 * @param heapMb the child's heap, null for node's default
 */
export function runSyncCli(env: Record<string, string>, dataDir: string, args: string[], heapMb: number | null = CHILD_HEAP_MB): Promise<CliRun> {
  const node = [...(heapMb === null ? [] : [`--max-old-space-size=${heapMb}`]), path.join(bundleDist(), 'sync.mjs'), ...args, '--data-dir', dataDir];
  return new Promise((resolve) => {
    execFile(process.execPath, node, { cwd: REPO_ROOT, env: { ...process.env, ...env, CI: '1' }, timeout: CHILD_KILL_MS, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0;
      resolve({ exitCode: (error as { signal?: string } | null)?.signal ? null : code, stdout, stderr });
    });
  });
}

/** sha256 of every file under `dir`, by path relative to it. */
export async function fileHashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256').update(await fs.readFile(file)).digest('hex');
  }
  return out;
}
