/**
 * An append-only journal of JSON lines: one entry per line, each write fsynced before its
 * promise resolves. Appends made while a write is in flight are written and fsynced together
 * (group commit), in the order they were made.
 */

import fs from 'node:fs/promises';
import path from 'node:path';

export interface Journal {
  /**
   * Appends one entry (a JSON object) as one line.
   *
   * @returns a promise that resolves once the line is on disk (fsync), rejects when the write or
   *   the fsync failed
   */
  append(entry: unknown): Promise<void>;
  /** Waits for pending appends, then closes the file. */
  close(): Promise<void>;
}

export interface OpenedJournal {
  readonly journal: Journal;
  /** Every entry already in the file, oldest first. */
  readonly entries: unknown[];
  /** Bytes of a torn last line (a write cut short by a crash, not valid JSON) cut off the file; 0 normally. */
  readonly truncatedBytes: number;
}

/**
 * Opens (creating it and its directory when missing) the journal at `file` and reads its entries.
 *
 * A last line without its newline is either a whole entry whose newline was not written (it is
 * kept, and the newline added) or the trace of a write cut short, whose caller was never
 * answered (it is cut off the file). A complete line that is not JSON is corruption.
 *
 * @throws Error naming the file and line when a complete line is not valid JSON; fs errors
 */
export async function openJournal(file: string): Promise<OpenedJournal> {
  const { entries, truncatedBytes, created } = await readJournalFile(file);
  const handle = await fs.open(file, 'a');
  // A new file's directory entry must be durable too, or a crash could lose the whole file.
  if (created) await syncDirectory(path.dirname(file));

  let pending: { line: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing: Promise<void> | null = null;

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await handle.appendFile(batch.map((item) => item.line).join(''));
        await handle.sync();
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    writing = null;
  }

  return {
    entries,
    truncatedBytes,
    journal: {
      append(entry) {
        // JSON.stringify escapes every newline inside strings, so one entry is one line.
        const line = `${JSON.stringify(entry)}\n`;
        return new Promise<void>((resolve, reject) => {
          pending.push({ line, resolve, reject });
          writing ??= flush();
        });
      },
      async close() {
        await writing;
        await handle.close();
      },
    },
  };
}

/**
 * Reads the entries of the journal at `file`, creating its directory, adding a missing last
 * newline and cutting a torn last line off (see {@link openJournal}).
 *
 * @returns the entries, the bytes cut off, and whether the file did not exist yet
 */
async function readJournalFile(file: string): Promise<{ entries: unknown[]; truncatedBytes: number; created: boolean }> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  let text = '';
  let created = false;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    created = true;
  }

  let complete = text.lastIndexOf('\n') + 1;
  let truncatedBytes = 0;
  const tail = text.slice(complete);
  if (tail !== '') {
    if (isJsonLine(tail)) {
      // The entry was written whole and only its newline is missing: its caller may have been
      // answered, so it stays; the newline is added so the next entry starts on a line of its own.
      await fs.appendFile(file, '\n');
      text += '\n';
      complete = text.length;
    } else {
      truncatedBytes = Buffer.byteLength(tail);
      await fs.truncate(file, Buffer.byteLength(text.slice(0, complete)));
    }
  }

  const entries: unknown[] = [];
  const lines = text.slice(0, complete).split('\n');
  lines.pop();
  for (const [index, line] of lines.entries()) {
    try {
      entries.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`${file}:${index + 1}: not a JSON line (${(error as Error).message}); the journal is corrupt`);
    }
  }
  return { entries, truncatedBytes, created };
}

/** Whether a line is one whole journal entry: JSON whose top level is an object. */
function isJsonLine(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
