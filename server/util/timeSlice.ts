/**
 * Cooperative time slicing: long CPU work that runs beside request handling (a hot reload's
 * parsing and indexing) checks a budget as it goes and, once a slice has used it up, lets the
 * event loop run before going on. A time budget rather than a fixed count of items: items
 * differ in cost, and so do machines.
 */

/** Default length of one slice, in ms: well under the longest pause a request should see. */
export const SLICE_BUDGET_MS = 5;

/** The clock of one run of sliced work. */
export class TimeSlice {
  readonly #budgetMs: number;
  #endsAt: number;

  /** @param budgetMs the longest one slice may run, in ms */
  constructor(budgetMs = SLICE_BUDGET_MS) {
    this.#budgetMs = budgetMs;
    this.#endsAt = performance.now() + budgetMs;
  }

  /** Whether the current slice has used up its budget. */
  get spent(): boolean {
    return performance.now() >= this.#endsAt;
  }

  /** Resolves after the event loop has had a turn (timers and I/O, so requests, run first); a new slice starts then. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#endsAt = performance.now() + this.#budgetMs;
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
