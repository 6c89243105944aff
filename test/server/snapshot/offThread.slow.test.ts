import { describe, expect, it, vi } from 'vitest';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { loadSnapshotOffThread } from '../../../server/snapshot/offThread.ts';
import { SnapshotReader } from '../../../server/snapshot/snapshotReader.ts';
import { DATA_DIR } from '../../helpers/api.ts';
import { startRival } from '../../helpers/busyLoop.ts';
import { lowPriorityThreads, threadNice, threadTicks, TICKS_PER_S } from '../../helpers/threads.ts';

// The reader thread's priority and its share of a core, read from /proc while it loads the
// committed snapshot: what they measure depends on how the OS schedules the threads.

const schema = createSchema(readSdl(), resolvers);

/** Resolves once no reader thread of an earlier test is left (terminating one takes a moment). */
const noReaderLeft = () => vi.waitFor(() => expect(lowPriorityThreads()).toEqual([]), { timeout: 5_000, interval: 20 });

/** Starts the reader's thread and resolves with its id once it runs at nice 19. */
async function readerThread(reader: SnapshotReader): Promise<string> {
  reader.start();
  return vi.waitFor(
    () => {
      const threads = lowPriorityThreads();
      expect(threads).toHaveLength(1);
      return threads[0]!;
    },
    { timeout: 10_000, interval: 20 },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('loadSnapshotOffThread at nice 19', () => {
  it.runIf(process.platform === 'linux')('reads in a thread of lower CPU priority (nice 19) than the process, where requests are answered', async () => {
    await noReaderLeft();
    const reader = new SnapshotReader(schema);
    try {
      const task = await readerThread(reader);
      const ticksBefore = threadTicks(task)!;
      // The committed snapshot's tours: enough work for the thread's clock, which counts in 10 ms ticks.
      await loadSnapshotOffThread(DATA_DIR, schema, { reader, areas: ['tours'] });
      // The files were read and inflated on the nice-19 thread: it used CPU time for them.
      expect(threadTicks(task)! - ticksBefore).toBeGreaterThan(0);
      expect(threadNice(String(process.pid))).toBe(0);
    } finally {
      reader.close();
    }
  });

  it.runIf(process.platform === 'linux')('reads in slices that take at most a tenth of a core while this thread’s event loop is busy', async () => {
    await noReaderLeft();
    const reader = new SnapshotReader(schema);
    const task = await readerThread(reader);
    // Requests: 2 ms of every turn of the event loop, for as long as the CPU time is measured.
    const stopRequests = startRival(2);
    let done = false;
    // The committed snapshot's tours: at a tenth of a core, their load outlasts the measuring.
    const loading = loadSnapshotOffThread(DATA_DIR, schema, { reader, areas: ['tours'] }).finally(() => (done = true));
    const samples: { ticks: number; atMs: number }[] = [];
    try {
      // The share is measured once the load has seen the busy loop (it samples it every 50 ms),
      // over a window long enough for clock ticks of 10 ms to measure it, polled on an interval
      // so that this thread's own polling leaves the loop as the requests make it.
      await sleep(500);
      for (let i = 0; i <= 20 && !done; i++) {
        const ticks = threadTicks(task);
        if (ticks !== null) samples.push({ ticks, atMs: performance.now() });
        await sleep(100);
      }
    } finally {
      stopRequests();
    }
    try {
      await loading;
    } finally {
      reader.close();
    }
    expect(samples.length).toBeGreaterThan(1);
    const [first, last] = [samples[0]!, samples.at(-1)!];
    const shareOfCore = (last.ticks - first.ticks) / TICKS_PER_S / ((last.atMs - first.atMs) / 1000);
    expect(shareOfCore).toBeLessThan(0.16);
  });
});
