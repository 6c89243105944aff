/**
 * One sandbox per state directory. Two server processes on one STATE_DIR (`npm start` beside
 * `node dist/server.mjs` in one checkout, or two containers on one volume during a replacement)
 * would each replay the journal into their own memory and each sell the same places, and their
 * appends would interleave into a journal that replays to negative places left.
 *
 * The lock is proper-lockfile's (https://github.com/moxystudio/node-proper-lockfile): a directory
 * made with mkdir, whose mtime its holder refreshes; a lock left by a process that died (a killed
 * container, say) is stale once its mtime is {@link STALE_MS} old, and a starting sandbox waits
 * that long for it before it gives up. Beside it, the holder writes who it is, so that the
 * refusal can name the process.
 */

import fs from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { lock } from 'proper-lockfile';

/** The lock's directory inside the state directory. */
export const STATE_LOCK_NAME = 'state.lock';

/** The file beside the lock naming its holder: `{ pid, host, since }`. */
export const STATE_OWNER_NAME = 'state.lock.owner.json';

/** A lock not refreshed for this long belongs to a process that stopped. */
const STALE_MS = 10_000;

/** How often the holder refreshes the lock's mtime. */
const UPDATE_MS = 2_000;

/** Pause between two attempts while waiting for a stale lock (an mkdir each). */
const RETRY_MS = 500;

/** The state directory is held by another process; the message names the directory and the holder. */
export class StateDirInUseError extends Error {
  override name = 'StateDirInUseError';
}

/**
 * Takes the state directory's lock, waiting for one left by a process that stopped to turn stale.
 *
 * @param onLost called if the lock is lost while held (its mtime could not be refreshed)
 * @returns a function that releases the lock
 * @throws StateDirInUseError when another process holds it, naming the directory and that process
 */
export async function lockStateDir(stateDir: string, onLost: (error: Error) => void): Promise<() => Promise<void>> {
  await fs.mkdir(stateDir, { recursive: true });
  const lockPath = path.join(stateDir, STATE_LOCK_NAME);
  const ownerPath = path.join(stateDir, STATE_OWNER_NAME);
  let release: () => Promise<void>;
  try {
    release = await lock(stateDir, {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      retries: { retries: Math.ceil(STALE_MS / RETRY_MS) + 1, factor: 1, minTimeout: RETRY_MS, maxTimeout: RETRY_MS },
      // The default throws from a timer, which would end the process.
      onCompromised: onLost,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new StateDirInUseError(
      `STATE_DIR ${path.resolve(stateDir)} is in use by ${await ownerOf(ownerPath)} (it holds ${lockPath}); two servers on one state directory would sell the same places twice. ` +
        'Stop the other server, or give this one a STATE_DIR of its own',
    );
  }
  await fs.writeFile(ownerPath, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
  return async () => {
    await fs.rm(ownerPath, { force: true });
    await release();
  };
}

/** Who holds the lock, as its owner file says. */
async function ownerOf(ownerPath: string): Promise<string> {
  try {
    const { pid, host, since } = JSON.parse(await fs.readFile(ownerPath, 'utf8')) as { pid: number; host: string; since: string };
    return `process ${pid} on ${host} (since ${since})`;
  } catch {
    return 'another process';
  }
}
