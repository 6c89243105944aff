import { describe, expect, it } from 'vitest';
import { runStepsSliced, TimeSlice, type BusyTest, type Steps } from '../../../server/util/timeSlice.ts';
import { burn, startRival } from '../../helpers/busyLoop.ts';

/** `count` steps of `ms` each; counts the time spent in them into `spent.ms`. */
function* steps(count: number, ms: number, spent: { ms: number }): Steps<number> {
  for (let i = 0; i < count; i++) {
    const startedAt = performance.now();
    burn(ms);
    spent.ms += performance.now() - startedAt;
    yield;
  }
  return count;
}

/**
 * Runs 400 steps of 0.1 ms in slices of 2 ms with the given share, optionally beside a rival
 * that takes 1 ms of every turn of the event loop (requests being answered), and returns the
 * share of the elapsed time the steps took.
 */
async function shareOfSteps(share: number, rival: boolean, busy?: BusyTest): Promise<number> {
  const stopRival = rival ? startRival(1) : () => {};
  const spent = { ms: 0 };
  const startedAt = performance.now();
  try {
    expect(await runStepsSliced(steps(400, 0.1, spent), new TimeSlice(2, share, busy))).toBe(400);
  } finally {
    stopRival();
  }
  return spent.ms / (performance.now() - startedAt);
}

describe('TimeSlice', () => {
  it('takes at most its share of the time while other work runs between its slices', async () => {
    expect(await shareOfSteps(0.25, true)).toBeLessThan(0.35);
  });

  it('runs its slices one after the other when nothing else is waiting', async () => {
    expect(await shareOfSteps(0.25, false)).toBeGreaterThan(0.5);
  });

  it('gives way by a test of its own: on an idle event loop while the test says busy, at full speed while it does not', async () => {
    expect(await shareOfSteps(0.25, false, () => true)).toBeLessThan(0.35);
    expect(await shareOfSteps(0.25, true, () => false)).toBeGreaterThan(0.5);
  });

  it('tallies the time its slices took', async () => {
    const spent = { ms: 0 };
    const slice = new TimeSlice(2, 1);
    await runStepsSliced(steps(100, 0.1, spent), slice);
    // Up to the last pause: the steps after it are not a slice that ended.
    expect(slice.workedMs).toBeGreaterThan(spent.ms - 2.5);
    expect(slice.workedMs).toBeLessThanOrEqual(spent.ms + 1);
  });

  it('refuses a share outside (0, 1]', () => {
    for (const share of [0, -0.5, 1.5, Number.NaN]) expect(() => new TimeSlice(2, share), String(share)).toThrow(/share must be in \(0, 1\]/);
  });
});
