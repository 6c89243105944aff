/** Rebuilds the sandbox's state from its journal's entries on start. */

import type { IdempotencyStore } from '../idempotency.ts';
import { JSON_CONTENT_TYPE } from '../operations.ts';
import type { JournalEntry } from './records.ts';
import type { SandboxState } from './state.ts';

/**
 * Applies every entry to `state`, oldest first, and puts each stored idempotent response back
 * into `idempotency` (which drops those older than it keeps, by `clock`).
 *
 * @param file the journal's path, for the errors
 * @param clock milliseconds since the epoch
 * @throws Error naming file and line for an entry of another version or one that cannot be applied
 */
export function replayJournal(state: SandboxState, entries: readonly unknown[], file: string, idempotency: IdempotencyStore, clock: () => number): void {
  for (const [index, entry] of (entries as (JournalEntry | null)[]).entries()) {
    if (entry?.v !== 1) throw new Error(`${file}:${index + 1}: journal entry version ${JSON.stringify(entry?.v)}, expected 1`);
    const problem = state.replayProblem(entry);
    if (problem !== undefined) throw new Error(`${file}:${index + 1}: ${problem}; the journal is corrupt`);
    state.apply(entry);
    if (entry.idempotency) {
      const { client, key, fingerprint, status, body } = entry.idempotency;
      const reply = { status, headers: { 'content-type': JSON_CONTENT_TYPE }, body: Buffer.from(body) };
      idempotency.restore(client, key, { fingerprint, storedAt: entry.at, reply }, clock());
    }
  }
}
