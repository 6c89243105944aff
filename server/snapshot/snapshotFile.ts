/**
 * Opening the files of a snapshot: the manifest and every file it names. The manifest is data
 * from outside the server, so its paths are not trusted: a file must resolve inside the data
 * directory (a symbolic link leading out of it is refused, never opened) and be a regular file
 * (a FIFO or a device is refused before a byte is read, so none can hold a load up). Reading gets
 * a time limit on top, for file systems that stall.
 */

import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createGunzip, gunzip as gunzipCallback } from 'node:zlib';
import type { FileEntry } from '../../sync/format.ts';
import { SnapshotError } from './snapshotError.ts';

const gunzip = promisify(gunzipCallback);

/** Default of SNAPSHOT_READ_TIMEOUT_MS: the longest one file of a snapshot may take to read, in ms. */
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

/** Default of SNAPSHOT_MAX_FILE_BYTES: the largest size one file of a snapshot may inflate to. */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

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

/**
 * Reads a file of the manifest (inside `root`, the data directory's real path, and regular),
 * checks its sha256 and inflates it, all within `readTimeoutMs`, to at most `maxFileBytes`.
 *
 * @throws SnapshotError when the file is missing, refused (see {@link readFileInside}), changed
 *   since the manifest was written, not gzip, inflates to more than `maxFileBytes` or is not
 *   read in time
 */
export function readSnapshotFile(root: string, dataDir: string, entry: FileEntry, readTimeoutMs: number, maxFileBytes = DEFAULT_MAX_FILE_BYTES): Promise<Buffer> {
  const file = path.join(dataDir, entry.file);
  return withTimeLimit(
    readTimeoutMs,
    async (signal) => {
      const bytes = await readChecked(root, file, entry, signal);
      return inflateBounded(file, bytes, maxFileBytes);
    },
    () => readTimeoutError(file, readTimeoutMs),
  );
}

/**
 * Checks a file of the manifest as {@link readSnapshotFile} does, without inflating it: for a
 * file whose records are already in memory, read from a file with the same sha256.
 *
 * @throws SnapshotError when the file is missing, refused, changed since the manifest was
 *   written or not read in time
 */
export function checkSnapshotFile(root: string, dataDir: string, entry: FileEntry, readTimeoutMs: number): Promise<void> {
  const file = path.join(dataDir, entry.file);
  return withTimeLimit(
    readTimeoutMs,
    async (signal) => {
      await readChecked(root, file, entry, signal);
    },
    () => readTimeoutError(file, readTimeoutMs),
  );
}

/** Reads `file` (see {@link readFileInside}) and checks its sha256 against the manifest's `entry`. */
async function readChecked(root: string, file: string, entry: FileEntry, signal: AbortSignal): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFileInside(root, file, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SnapshotError(`${file}: listed in the manifest but missing`);
    throw error;
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== entry.sha256) throw new SnapshotError(`${file}: sha256 ${actual}, expected ${entry.sha256} (the file was changed after the manifest was written)`);
  return bytes;
}

/**
 * Inflates a file to at most `maxFileBytes`, taking no more memory for a file it refuses than the
 * file's trailer states: a file's sha256 vouches for its bytes, not for what they inflate to.
 * A file that states more than the limit is refused before inflating. Otherwise it is inflated
 * to what it states, in one piece; zlib stops there, before it has allocated more. A file that
 * inflates to more (several gzip members, whose trailer states the last one's size, or a trailer
 * that lies) is inflated once more in small pieces that are dropped as they come, only to count
 * its size, and then, within the limit, to that size.
 *
 * @throws SnapshotError when it inflates to more than `maxFileBytes` or is not gzip
 */
async function inflateBounded(file: string, bytes: Buffer, maxFileBytes: number): Promise<Buffer> {
  const tooLarge = () => new SnapshotError(`${file}: inflates to more than ${maxFileBytes} bytes, the limit (SNAPSHOT_MAX_FILE_BYTES); raise it if the file is genuine`);
  const notGzip = (error: unknown) => new SnapshotError(`${file}: not gzip-compressed JSON (${(error as Error).message})`);
  const stated = statedSize(bytes);
  if (stated > maxFileBytes) throw tooLarge();
  try {
    return await gunzip(bytes, { chunkSize: inflatedSizeHint(bytes), maxOutputLength: Math.max(stated, 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw notGzip(error);
  }
  const size = await countInflated(bytes, maxFileBytes).catch((error: unknown) => {
    throw (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge() : notGzip(error);
  });
  try {
    return await gunzip(bytes, { chunkSize: Math.min(Math.max(size + 1, MIN_INFLATE_CHUNK), MAX_INFLATE_CHUNK), maxOutputLength: Math.max(size, 1) });
  } catch (error) {
    throw notGzip(error);
  }
}

/**
 * The size `gzip` inflates to, counted in pieces of {@link MIN_INFLATE_CHUNK} that are dropped
 * as they come.
 * @throws an error of code ERR_BUFFER_TOO_LARGE past `maxBytes`; zlib's error when it is not gzip
 */
function countInflated(gzip: Buffer, maxBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflater = createGunzip({ chunkSize: MIN_INFLATE_CHUNK });
    let size = 0;
    inflater.on('data', (piece: Buffer) => {
      size += piece.length;
      if (size > maxBytes) {
        inflater.destroy(Object.assign(new Error(`more than ${maxBytes} bytes`), { code: 'ERR_BUFFER_TOO_LARGE' }));
      }
    });
    inflater.on('error', reject);
    inflater.on('end', () => resolve(size));
    inflater.end(gzip);
  });
}

/** The size a gzip file's trailer states (ISIZE: the size of its last member modulo 2^32); 0 for a file too short to have one. */
function statedSize(gzip: Buffer): number {
  return gzip.length >= GZIP_TRAILER_BYTES ? gzip.readUInt32LE(gzip.length - 4) : 0;
}

/**
 * The size a gzip file inflates to, as its trailer states (ISIZE, the size of its last member
 * modulo 2^32), plus one byte so that zlib finds the end within the first chunk, which then is
 * the whole file. In zlib's default chunks each chunk costs a callback on the main thread and all
 * of them a copy into one buffer at the end. Only a hint: a file of several gzip members
 * inflates into more chunks, to the same bytes.
 */
function inflatedSizeHint(gzip: Buffer): number {
  const stated = statedSize(gzip);
  return Math.min(Math.max(stated + 1, MIN_INFLATE_CHUNK), MAX_INFLATE_CHUNK);
}

const GZIP_TRAILER_BYTES = 8;
const MIN_INFLATE_CHUNK = 64 * 1024;
const MAX_INFLATE_CHUNK = 1024 * 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}
