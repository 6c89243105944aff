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

/**
 * Runs the steps of {@link shareOfSteps} with a share of 0.25 beside another job that takes
 * `otherMs` of every turn of the event loop (0: a turn that only counts), and returns how many
 * turns that job had per slice. A slice that goes on at full speed waits for one turn; one that
 * gives way rests at least 1 ms, about three times its 2 ms here, while the other job turns on.
 * Counting turns rather than timing them holds on a machine busy with other processes.
 */
async function turnsPerSlice(otherMs: number, busy?: BusyTest): Promise<number> {
  let turns = 0;
  let running = true;
  const other = () => {
    if (!running) return;
    turns++;
    burn(otherMs);
    setImmediate(other);
  };
  other();
  const slice = new TimeSlice(2, 0.25, busy);
  try {
    await runStepsSliced(steps(400, 0.1, { ms: 0 }), slice);
  } finally {
    running = false;
  }
  return turns / (slice.workedMs / 2);
}

describe('TimeSlice', () => {
  it('takes at most its share of the time while other work runs between its slices', async () => {
    expect(await shareOfSteps(0.25, true)).toBeLessThan(0.35);
  });

  it('runs its slices one after the other when nothing else is waiting', async () => {
    // A turn that only counts leaves the event loop idle, so most slices go on at once. Some may
    // rest where other processes held the core for a turn: compared with resting after every
    // slice, on the same machine at the same time, it is a small part.
    const resting = await turnsPerSlice(0, () => true);
    expect(await turnsPerSlice(0)).toBeLessThan(resting / 3);
  });

  it('gives way by a test of its own: on an idle event loop while the test says busy, at full speed while it does not', async () => {
    expect(await shareOfSteps(0.25, false, () => true)).toBeLessThan(0.35);
    expect(await turnsPerSlice(0, () => true)).toBeGreaterThan(10);
    // Beside 1 ms of other work per turn that the test says is nothing: one turn per slice, no rest.
    expect(await turnsPerSlice(1, () => false)).toBeLessThan(2);
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
