/**
 * How a command's decision becomes durable: applied to memory, then appended to the journal
 * (fsynced) with the response stored under the request's Idempotency-Key, then answered.
 */

import type { Journal } from '../journal.ts';
import { type BookingCall, type BookingLogger, type BookingReply, jsonReply } from '../operations.ts';
import type { JournalEntry, SandboxEvent } from './records.ts';
import type { SandboxState } from './state.ts';

/** What a command decided: the event to commit, and the response, built once it is applied. */
export interface Decision {
  event: SandboxEvent;
  status: number;
  view: () => unknown;
}

/** Commits decisions to one state and its journal, and remembers whether a journal write failed. */
export class Committer {
  /**
   * Set once a journal write has failed: memory then holds a change the disk does not, so the
   * sandbox refuses every call until restarted from the journal.
   */
  failed = false;

  constructor(
    private readonly state: SandboxState,
    private readonly journal: Journal,
    /** The journal's path, for the log. */
    private readonly file: string,
    private readonly logger: BookingLogger,
  ) {}

  /**
   * Applies a decision, journals it with the idempotent response, and answers once it is on
   * disk; a reply decided without a change is answered as it is.
   *
   * @throws the journal's error when the write or fsync failed (and sets {@link failed})
   */
  async commit(call: BookingCall, decision: Decision | BookingReply): Promise<BookingReply> {
    if (!('event' in decision)) return decision;
    // No await before the event is applied: two requests can never both take the last place.
    this.state.apply(decision.event);
    const reply = jsonReply(decision.status, decision.view());
    const entry: JournalEntry = { v: 1, ...decision.event };
    if (call.idempotency) entry.idempotency = { client: call.client, ...call.idempotency, status: reply.status, body: reply.body.toString('utf8') };
    try {
      await this.journal.append(entry);
    } catch (error) {
      this.failed = true;
      this.logger.error(`booking sandbox: journal write to ${this.file} failed; answering 503 until restarted: ${(error as Error).message}`);
      throw error;
    }
    return reply;
  }
}
