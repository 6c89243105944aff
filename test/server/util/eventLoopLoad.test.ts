import { describe, expect, it } from 'vitest';
import { createBusyFlag, isBusy, watchEventLoop } from '../../../server/util/eventLoopLoad.ts';
import { runStepsSliced, TimeSlice, type Steps } from '../../../server/util/timeSlice.ts';

/** Keeps the thread busy for `ms`. */
function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Steps of 0.1 ms each, for `ms` in all. */
function* steps(ms: number): Steps<void> {
  for (let i = 0; i < ms * 10; i++) {
    burn(0.1);
    yield;
  }
}

/** Other work: 2 ms of every turn of the event loop, until the returned function is called. */
function rival(): () => void {
  let running = true;
  const turn = () => {
    if (!running) return;
    burn(2);
    setImmediate(turn);
  };
  turn();
  return () => (running = false);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchEventLoop', () => {
  it('sets the flag while other work keeps the event loop busy and clears it once the loop is idle again', async () => {
    const flag = createBusyFlag();
    const stop = watchEventLoop(flag, new TimeSlice());
    const stopRival = rival();
    try {
      await sleep(200);
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
    const flag = createBusyFlag();
    const stop = watchEventLoop(flag, new TimeSlice());
    const stopRival = rival();
    try {
      await sleep(200);
      expect(isBusy(flag)).toBe(true);
      stop();
      expect(isBusy(flag)).toBe(false);
    } finally {
      stopRival();
      stop();
    }
  });
});
