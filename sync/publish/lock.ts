/**
 * One publisher at a time per data directory. Two syncs that publish into one directory at once
 * (cron entries for stations and activities both firing at 04:00, or a run by hand during a
 * scheduled one) would each build their manifest from the one they read first, so the later
 * commit silently drops the other's fresh sources, and each would prune the other's unfinished
 * files as leftovers of a killed run. Fetching needs no lock: publish() reads the current
 * manifest only once it holds this one.
 *
 * The lock is proper-lockfile's (https://github.com/moxystudio/node-proper-lockfile): a directory
 * made with mkdir, atomic on local and network file systems, whose mtime its holder refreshes;
 * a lock left by a process that died (a killed container on a shared volume, say) is stale once
 * its mtime is {@link STALE_MS} old and is then taken over.
 */

import fs from 'node:fs/promises';
import path from 'node:path';
import { lock } from 'proper-lockfile';

/** The lock's directory inside the data directory. */
export const LOCK_NAME = '.publish.lock';

/** A lock not refreshed for this long belongs to a process that stopped. */
const STALE_MS = 30_000;

/** How often the holder refreshes the lock's mtime. */
const UPDATE_MS = 5_000;

/** Longest wait for another publisher by default: a publish holds the lock for seconds. */
const DEFAULT_LOCK_WAIT_MS = 120_000;

/** Pause between two attempts while waiting (an mkdir each). */
const RETRY_MS = 250;

export class PublishLockedError extends Error {
  constructor(dataDir: string, waitedMs: number) {
    super(
      `another sync is publishing into ${dataDir} (it holds ${path.join(dataDir, LOCK_NAME)}); gave up after ${(waitedMs / 1000).toFixed(1)} s. ` +
        `A lock whose process stopped is taken over once it is ${STALE_MS / 1000} s old`,
    );
    this.name = 'PublishLockedError';
  }
}

/**
 * Runs `publish` while holding the data directory's publish lock, waiting for another holder
 * to finish first.
 *
 * @param options.waitMs longest wait for the lock; default {@link DEFAULT_LOCK_WAIT_MS}
 * @throws PublishLockedError when the lock stays held for `waitMs` (rounded up to a quarter of a
 *   second); Error when the lock was lost while held (its mtime could not be refreshed), once
 *   `publish` has finished
 */
export async function withPublishLock<T>(dataDir: string, publish: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  await fs.mkdir(dataDir, { recursive: true });
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  const started = performance.now();
  try {
    release = await lock(dataDir, {
      lockfilePath: path.join(dataDir, LOCK_NAME),
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      retries: { retries: Math.ceil(waitMs / RETRY_MS), factor: 1, minTimeout: RETRY_MS, maxTimeout: RETRY_MS },
      // The default throws from a timer, which would end the process mid-write.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new PublishLockedError(dataDir, performance.now() - started);
    throw error;
  }
  let result: T;
  try {
    result = await publish();
  } finally {
    // A compromised lock is no longer ours to remove.
    if (compromised === null) await release();
  }
  if (compromised !== null) {
    throw new Error(`lost the publish lock ${path.join(dataDir, LOCK_NAME)} while publishing, so another sync may have published at the same time: ${(compromised as Error).message}`);
  }
  return result;
}
