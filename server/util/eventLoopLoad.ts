/**
 * Whether this thread's event loop is busy with other work than a sliced job of its own,
 * published in shared memory where another thread reads it at once. The hot reload's reader
 * thread slices its work by it (server/snapshot/loadWorker.ts): while the server answers
 * requests it takes at most a share of a core, so that the requests keep the cores; on an idle
 * server it reads at full speed.
 */

import { performance } from 'node:perf_hooks';
import type { TimeSlice } from './timeSlice.ts';

/** How often the event loop's use is sampled, in ms. */
const SAMPLE_MS = 50;

/**
 * The share of the event loop's time, the job's own slices aside, above which it is busy: the
 * server then needs a core for itself, and another thread's work slows its answers down.
 */
const BUSY_UTILIZATION = 0.5;

/** One 32-bit integer in shared memory: 1 while the event loop is busy, 0 otherwise. */
export type BusyFlag = Int32Array;

export function createBusyFlag(): BusyFlag {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** Whether `flag` says that the event loop it watches is busy; from any thread. */
export function isBusy(flag: BusyFlag): boolean {
  return Atomics.load(flag, 0) === 1;
}

/**
 * Samples this thread's event loop every {@link SAMPLE_MS} and sets `flag` while other work
 * than `own`'s slices takes more than {@link BUSY_UTILIZATION} of its time.
 * @returns stops the sampling and clears the flag
 */
export function watchEventLoop(flag: BusyFlag, own: TimeSlice): () => void {
  let last = performance.eventLoopUtilization();
  let ownLast = own.workedMs;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { active, idle } = performance.eventLoopUtilization(now, last);
    const othersMs = active - (own.workedMs - ownLast);
    Atomics.store(flag, 0, othersMs > BUSY_UTILIZATION * (active + idle) ? 1 : 0);
    last = now;
    ownLast = own.workedMs;
  }, SAMPLE_MS);
  // The sampling never keeps the process alive by itself.
  timer.unref();
  return () => {
    clearInterval(timer);
    Atomics.store(flag, 0, 0);
  };
}
