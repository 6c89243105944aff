import { describe, expect, it } from 'vitest';
import { createBusyFlag, isBusy, watchEventLoop, type BusyFlag } from '../../../server/util/eventLoopLoad.ts';
import { runStepsSliced, TimeSlice, type Steps } from '../../../server/util/timeSlice.ts';
import { burn, startRival } from '../../helpers/busyLoop.ts';

/** Steps of 0.1 ms each, for `ms` in all. */
function* steps(ms: number): Steps<void> {
  for (let i = 0; i < ms * 10; i++) {
    burn(0.1);
    yield;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts watching the event loop, and other work that keeps it busy, and lets 200 ms of that pass. */
async function watchBusyLoop(): Promise<{ flag: BusyFlag; stop: () => void; stopRival: () => void }> {
  const flag = createBusyFlag();
  const stop = watchEventLoop(flag, new TimeSlice());
  const stopRival = startRival(2);
  await sleep(200);
  return { flag, stop, stopRival };
}

describe('watchEventLoop', () => {
  it('sets the flag while other work keeps the event loop busy and clears it once the loop is idle again', async () => {
    const { flag, stop, stopRival } = await watchBusyLoop();
    try {
      expect(isBusy(flag)).toBe(true);
      stopRival();
      await sleep(200);
      expect(isBusy(flag)).toBe(false);
    } finally {
      stopRival();
      stop();
    }
  });

  it('does not count the time of its own job’s slices, which run one after the other on an idle loop', async () => {
    const flag = createBusyFlag();
    const slice = new TimeSlice();
    const stop = watchEventLoop(flag, slice);
    let seenBusy = false;
    const probe = setInterval(() => (seenBusy ||= isBusy(flag)), 10);
    try {
      await runStepsSliced(steps(300), slice);
    } finally {
      clearInterval(probe);
      stop();
    }
    expect(seenBusy).toBe(false);
  });

  it('clears the flag when stopped, busy as the loop may still be', async () => {
    const { flag, stop, stopRival } = await watchBusyLoop();
    try {
      expect(isBusy(flag)).toBe(true);
      stop();
      expect(isBusy(flag)).toBe(false);
    } finally {
      stopRival();
      stop();
    }
  });
});
