/**
 * Cooperative time slicing: long CPU work that runs beside request handling (a hot reload's
 * parsing and indexing) checks a budget as it goes and, once a slice has used it up, lets the
 * event loop run before going on. A time budget rather than a fixed count of items: items
 * differ in cost, and so do machines.
 *
 * While requests are being answered, the work also gives way: it takes at most a fixed share
 * of the event loop's time, so a busy server answers at nearly its usual rate and latency while
 * the work goes on more slowly. On an idle server the slices follow each other at once.
 *
 * A thread of its own (the reload's reader) slices its work the same way, with a different
 * test of "busy": whether the server's event loop is (eventLoopLoad.ts), so that it takes at
 * most a share of a core while requests need the machine's cores.
 */

import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** Default length of one slice, in ms: a request that arrives during a slice waits this long at most. */
export const SLICE_BUDGET_MS = 2;

/**
 * Default share of the event loop's time the work may take while other work (requests) runs
 * between its slices: the rest of the time is theirs.
 */
const BUSY_SHARE = 0.1;

/**
 * Other work between two slices that takes longer than this, in ms, means the server is busy;
 * a turn of an idle event loop (its timers included) takes far less.
 */
const BUSY_TURN_MS = 0.5;

/**
 * Whether the work must give way after a slice, given how long the turn of the event loop
 * between two slices took, in ms.
 */
export type BusyTest = (othersMs: number) => boolean;

/** The default test: that turn found other work (requests) to do. */
const turnWasBusy: BusyTest = (othersMs) => othersMs > BUSY_TURN_MS;

/** The clock of one run of sliced work. */
export class TimeSlice {
  readonly #budgetMs: number;
  readonly #share: number;
  readonly #busy: BusyTest;
  #startedAt: number;
  #endsAt: number;
  #workedMs = 0;

  /**
   * @param budgetMs the longest one slice may run, in ms
   * @param share the share of the time the work may take while it is busy, in (0, 1]
   * @param busy when the work must give way; by default, when other work ran between its slices
   */
  constructor(budgetMs = SLICE_BUDGET_MS, share = BUSY_SHARE, busy: BusyTest = turnWasBusy) {
    if (!(share > 0 && share <= 1)) throw new RangeError(`share must be in (0, 1], not ${share}`);
    this.#budgetMs = budgetMs;
    this.#share = share;
    this.#busy = busy;
    this.#startedAt = performance.now();
    this.#endsAt = this.#startedAt + budgetMs;
  }

  /** Whether the current slice has used up its budget. */
  get spent(): boolean {
    return performance.now() >= this.#endsAt;
  }

  /** The time the slices ended so far took, in ms: the work's own share of the event loop's. */
  get workedMs(): number {
    return this.#workedMs;
  }

  /**
   * Resolves after the event loop has had a turn (timers and I/O, so requests, run first); a
   * new slice starts then. When the work must give way (by default: that turn found other work
   * to do), it also waits until the slice just ended is no more than the work's share of the
   * time since it began.
   */
  async pause(): Promise<void> {
    const endedAt = performance.now();
    const workedMs = endedAt - this.#startedAt;
    this.#workedMs += workedMs;
    await nextTurn();
    const othersMs = performance.now() - endedAt;
    if (this.#busy(othersMs)) {
      const restMs = (workedMs * (1 - this.#share)) / this.#share - othersMs;
      if (restMs >= 1) await sleep(restMs);
    }
    this.restart();
  }

  /** Starts a new slice now: for work that waited on something else, while the event loop ran freely. */
  restart(): void {
    this.#startedAt = performance.now();
    this.#endsAt = this.#startedAt + this.#budgetMs;
  }

  /** {@link pause}s when the slice is spent; otherwise resolves at once. */
  async check(): Promise<void> {
    if (this.spent) await this.pause();
  }
}

/**
 * Work written as steps: a generator that yields between steps, each a small part of the whole
 * (well under {@link SLICE_BUDGET_MS}), and returns the result.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end at once and returns the result. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end in slices of `slice`'s budget, the event loop running between them. */
export async function runStepsSliced<T>(steps: Steps<T>, slice = new TimeSlice()): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slice.spent) await slice.pause();
  }
}
