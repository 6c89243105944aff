/**
 * Opening the files of a snapshot: the manifest and every file it names. The manifest is data
 * from outside the server, so its paths are not trusted: a file must resolve inside the data
 * directory (a symbolic link leading out of it is refused, never opened) and be a regular file
 * (a FIFO or a device is refused before a byte is read, so none can hold a load up). Reading gets
 * a time limit on top, for file systems that stall.
 */

import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SnapshotError } from './snapshotError.ts';

/** Default of SNAPSHOT_READ_TIMEOUT_MS: the longest one file of a snapshot may take to read, in ms. */
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, before fstat can refuse it.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads `file`, which must resolve inside `root` and be a regular file.
 *
 * @param root the data directory, as fs.realpath gives it
 * @param file the path as the data directory and the manifest name it (reported in errors)
 * @param signal stops the read between chunks once aborted
 * @throws SnapshotError when the file resolves outside `root` or is not a regular file; the
 *   file system's error (ENOENT when it is missing) otherwise
 */
export async function readFileInside(root: string, file: string, signal?: AbortSignal): Promise<Buffer> {
  const real = await fs.realpath(file);
  const inside = path.relative(root, real);
  if (inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
    throw new SnapshotError(`${file}: resolves to ${real}, outside the data directory ${root}; a snapshot's files must be inside it (symbolic links leading out are refused)`);
  }
  let handle: fs.FileHandle;
  try {
    // The resolved path, with O_NOFOLLOW: a link swapped in since realpath is refused, not followed.
    handle = await fs.open(real, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new SnapshotError(`${file}: became a symbolic link while it was opened; a snapshot's files must be regular files`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new SnapshotError(`${file}: ${kindOf(stats)}, not a regular file; a snapshot's files must be regular files inside the data directory`);
    return await handle.readFile({ signal });
  } finally {
    await handle.close();
  }
}

/**
 * Runs `work` with a time limit: past `timeoutMs` the returned promise rejects with
 * `timeoutError()` and the signal given to `work` aborts, whatever `work` is still waiting for.
 */
export async function withTimeLimit<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>, timeoutError: () => Error): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(timeoutError());
      controller.abort();
    }, timeoutMs);
  });
  const working = work(controller.signal);
  // Once the time is up nobody awaits `working`; its late failure must not go unhandled.
  working.catch(() => {});
  try {
    return await Promise.race([working, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error of a file of a snapshot that was not read within `timeoutMs`. */
export function readTimeoutError(file: string, timeoutMs: number): SnapshotError {
  return new SnapshotError(`${file}: not read within ${timeoutMs} ms (SNAPSHOT_READ_TIMEOUT_MS); is the file system stalled?`);
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}
