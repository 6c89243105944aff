/**
 * Watching one file for changes, as the snapshot's manifest and the trusted documents' manifests
 * are watched: a file replaced by rename (as the sync and most deploy tools replace files) is a
 * new file, so its directory is watched, not the file; and because fs.watch can miss events
 * (network file systems, some containers), callers back it with a periodic {@link fileSignature}.
 */

import { type FSWatcher, watch } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Calls `onChange` on every change event of `file` (or an event fs.watch does not name). A
 * directory that cannot be watched, or stops being watchable, is reported once to `onError`; the
 * caller's poll then carries on alone.
 *
 * @returns what stops watching
 */
export function watchFileEvents(file: string, onChange: () => void, onError: (error: Error) => void): { close(): void } {
  const name = path.basename(file);
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(file), (_event, changed) => {
      if (changed === null || changed === name) onChange();
    });
    watcher.on('error', (error) => {
      onError(error);
      watcher?.close();
      watcher = null;
    });
  } catch (error) {
    onError(error as Error);
  }
  return { close: () => watcher?.close() };
}

/**
 * Identity of a file as it is now: inode, size and modification time, so that a rename over it
 * or a write to it gives a new one.
 *
 * @returns null when the file does not exist
 * @throws the error of fs.stat for anything but a missing file
 */
export async function fileSignature(file: string): Promise<string | null> {
  try {
    const s = await fs.stat(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
