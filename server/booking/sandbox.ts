/**
 * Sandbox mode: a complete offline implementation of the seven booking paths over the loaded
 * snapshot's activities, so a booking flow can be built and tested without the partner.
 *
 * State is event-sourced. Every change is one event, applied to memory and appended to the
 * journal (`<stateDir>/booking-journal.jsonl`, fsynced) before the client is answered; on start
 * the journal is replayed. A command checks and applies its event synchronously, with no await
 * in between, so two requests can never both take the last place; the journal gets the events in
 * the order they were applied. If a journal write fails, memory holds a change the disk does
 * not: that request gets a 500, and every later one 503 BOOKING_UNAVAILABLE until the sandbox is
 * restarted from the journal.
 *
 * Rules (docs/booking.md): slots as in availability.ts; a reservation holds its places for
 * HOLD_MS (sandbox/reserve.ts) and belongs to a cart; checking out a cart turns its holds into a
 * booking; a payment attempt settles the booking at once by any of PAYMENT_METHODS
 * (sandbox/pay.ts; DECLINED_PAYMENT_METHOD is declined); a paid booking has one ticket per booked
 * item; cancelling an item frees its places. Request and response bodies are the partner's
 * (partnerRequests.ts, partnerViews.ts).
 *
 * This module composes the parts in sandbox/: the records and their events (records.ts), the
 * state they build (state.ts, replay.ts), what is sold (catalog.ts), the reads (queries.ts), the
 * commands (reserve.ts, checkOut.ts, pay.ts, cancel.ts), how a command is made durable
 * (commit.ts) and the ticket files (ticketFileCache.ts).
 */

import path from 'node:path';
import type { ActivityRecord } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import type { IdempotencyStore } from './idempotency.ts';
import { openJournal } from './journal.ts';
import { lockStateDir } from './stateDirLock.ts';
import type { BookingBackend, BookingLogger } from './operations.ts';
import { warmUpTicketRendering } from './tickets.ts';
import { cancelBookingItem } from './sandbox/cancel.ts';
import { Catalog } from './sandbox/catalog.ts';
import { checkOutCart } from './sandbox/checkOut.ts';
import { Committer } from './sandbox/commit.ts';
import type { CartLimits, SandboxContext } from './sandbox/context.ts';
import { createPaymentAttempt } from './sandbox/pay.ts';
import { ActivityList, getBooking, listAvailabilities } from './sandbox/queries.ts';
import { journalFailed } from './sandbox/refusals.ts';
import { replayJournal } from './sandbox/replay.ts';
import { createReservation } from './sandbox/reserve.ts';
import { SandboxState } from './sandbox/state.ts';
import { TicketFileCache } from './sandbox/ticketFileCache.ts';

/** The journal's file name inside the state directory. */
export const JOURNAL_FILE = 'booking-journal.jsonl';

/** What a sandbox is made of. */
export interface SandboxOptions {
  /** Directory of the journal; created when missing. */
  stateDir: string;
  /** The caps that keep one client from holding the sandbox's places, or one cart from growing without end. */
  limits: CartLimits;
  /** The current snapshot's activities of a locale; called per request, so the snapshot may change. */
  activities: (locale: Locale) => readonly ActivityRecord[];
  /** Where responses stored under an Idempotency-Key are put back on start. */
  idempotency: IdempotencyStore;
  /** Milliseconds since the epoch. */
  clock: () => number;
  logger: BookingLogger;
}

/**
 * Takes the lock of `options.stateDir` (stateDirLock.ts), opens the journal under it, replays it
 * (holds that expired meanwhile are released) and returns the sandbox.
 *
 * @throws StateDirInUseError when another process holds the state directory
 * @throws Error when the journal cannot be read or has a corrupt line (naming file and line)
 */
export async function createSandbox(options: SandboxOptions): Promise<BookingBackend> {
  const { clock, logger } = options;
  const file = path.join(options.stateDir, JOURNAL_FILE);
  const unlock = await lockStateDir(options.stateDir, (error) =>
    logger.error(`booking sandbox: lost the lock of STATE_DIR ${path.resolve(options.stateDir)}, so another process may take it and sell the same places: ${error.message}`),
  );
  let opened: Awaited<ReturnType<typeof openJournal>>;
  try {
    opened = await openJournal(file);
  } catch (error) {
    await unlock();
    throw error;
  }
  const { journal } = opened;
  if (opened.truncatedBytes > 0) logger.warn(`booking sandbox: cut a torn last line (${opened.truncatedBytes} bytes) off ${file}; its request was never answered`);

  const context: SandboxContext = { state: new SandboxState(), catalog: new Catalog(options.activities), limits: options.limits };
  try {
    replayJournal(context.state, opened.entries, file, options.idempotency, clock);
  } catch (error) {
    await journal.close();
    await unlock();
    throw error;
  }
  await warmUpTicketRendering();
  const released = context.state.sweepExpiredHolds(clock());
  logger.info(
    `booking sandbox: ${opened.entries.length} journal entries replayed from ${file} (${context.state.bookings.size} bookings, ${released} expired holds released)`,
  );

  const committer = new Committer(context.state, journal, file, logger);
  const activityList = new ActivityList(context.catalog);
  const ticketFiles = new TicketFileCache(context.state);
  return {
    async execute(call) {
      if (committer.failed) throw journalFailed();
      const now = clock();
      switch (call.operation.id) {
        case 'listActivities':
          return activityList.reply(call);
        case 'listAvailabilities':
          return listAvailabilities(context, call, now);
        case 'getBooking':
          return getBooking(context, call);
        case 'createReservation':
          return committer.commit(call, createReservation(context, call, now));
        case 'checkOutCart':
          return committer.commit(call, checkOutCart(context, call, now));
        case 'createPaymentAttempt':
          return committer.commit(call, createPaymentAttempt(context, call, now));
        case 'cancelBookingItem':
          return committer.commit(call, cancelBookingItem(context, call, now));
      }
    },
    async ticketFile(id, kind, headers) {
      if (committer.failed) throw journalFailed();
      return ticketFiles.reply(id, kind, headers);
    },
    async close() {
      await journal.close();
      await unlock();
    },
  };
}
