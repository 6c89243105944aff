/**
 * A deadline that records its verdicts, so that a second execution of an operation (after
 * graphql-jit or the answer writer gave up) takes the same decisions as the first.
 */

import type { Deadline } from './deadline.ts';

/**
 * server/execution/deadline.ts reads `atMs` once before each root field starts, in execution
 * order, and compares it with the clock. The recording answers with the verdict of the real
 * deadline (+/-Infinity); its replay answers the recorded verdicts in turn, then the real deadline's.
 */
export class RecordingDeadline implements Deadline {
  readonly #verdicts: boolean[] = [];

  constructor(readonly real: Deadline) {}

  get budgetMs(): number {
    return this.real.budgetMs;
  }

  get atMs(): number {
    const expired = performance.now() > this.real.atMs;
    this.#verdicts.push(expired);
    return expired ? -Infinity : Infinity;
  }

  /** A deadline that answers the verdicts recorded so far, in turn, then the real deadline's. */
  replay(): Deadline {
    const verdicts = this.#verdicts;
    const real = this.real;
    let next = 0;
    return {
      budgetMs: real.budgetMs,
      get atMs() {
        const expired = verdicts[next++];
        if (expired === undefined) return real.atMs;
        return expired ? -Infinity : Infinity;
      },
    };
  }
}
