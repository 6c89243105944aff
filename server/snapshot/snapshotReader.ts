/**
 * The reader thread of hot reloads (loadWorker.ts), kept from one reload to the next. A thread
 * started for each reload would cost each its start: the thread's bootstrap, the compile of its
 * code and of the record validators, much of it at the requests' CPU priority before the thread
 * lowers its own. Between reloads the thread waits without running; one that failed or exited
 * is replaced at the next read.
 */

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { printSchema, type GraphQLSchema } from 'graphql';
import { createBusyFlag, type BusyFlag } from '../util/eventLoopLoad.ts';
import { FILES_AHEAD, type SnapshotJob } from './load.ts';
import type { FileRequest, FileResult, LoadWorkerData, ReadSettings, ReaderMessage } from './loadWorker.ts';
import { SnapshotError } from './snapshotError.ts';

export type CheckedFile = Extract<FileResult, { bytes: SharedArrayBuffer }>;
export type KeptFile = Extract<FileResult, { kept: true }>;

/** One load's reads, from {@link SnapshotReader.read}. */
export interface ReaderRun {
  /** Whether the answer for job `index` is here, so that {@link next} does not wait. */
  ready(index: number): boolean;
  /** The thread's answer for job `index`, asked for in order; `file` names it in errors. */
  next(index: number, file: string): Promise<CheckedFile | KeptFile>;
  /** Gives the memory of a file back to the thread once its records are parsed, for the next file to be read into. */
  parsed(file: CheckedFile): void;
  /** Ends the run, done or failed: the thread skips the files it has not begun, and answers still to come are dropped. */
  end(): void;
}

/** What a run waits on: the answers of its thread so far, or how the thread failed. */
interface Run {
  id: number;
  worker: Worker;
  results: Map<number, FileResult>;
  failure: Error | null;
  wake: (() => void) | null;
}

export class SnapshotReader {
  /**
   * Whether the server's event loop is busy, set by the load reading (offThread.ts
   * watchEventLoop): the thread slices its work by it.
   */
  readonly busy: BusyFlag = createBusyFlag();
  readonly #sdl: string;
  #worker: Worker | null = null;
  #active: Run | null = null;
  #runs = 0;

  /** @param schema the served schema: the thread validates records against its types */
  constructor(schema: GraphQLSchema) {
    this.#sdl = printSchema(schema);
  }

  /** Starts the thread now, if it is not running: so that the first reload does not pay its start. */
  start(): void {
    this.#worker ??= this.#startWorker();
  }

  /**
   * Starts reading the files of `jobs`, one run at a time. The thread is kept
   * {@link FILES_AHEAD} files ahead of the one asked for: enough to keep it busy, few enough
   * that the inflated files waiting for the server's thread stay few.
   */
  read(settings: ReadSettings, jobs: readonly (SnapshotJob & { kept: boolean })[]): ReaderRun {
    if (this.#active) throw new Error('the snapshot reader reads one snapshot at a time');
    this.start();
    const worker = this.#worker!;
    const run: Run = { id: ++this.#runs, worker, results: new Map(), failure: null, wake: null };
    this.#active = run;
    // A run keeps the process alive, as the promises waiting on the thread would not.
    worker.ref();
    let asked = 0;
    const ask = (upTo: number) => {
      for (; asked < Math.min(upTo, jobs.length); asked++) {
        const { locale, area, file, kept } = jobs[asked]!;
        worker.postMessage({ ...settings, run: run.id, index: asked, locale, area, file, kept } satisfies FileRequest);
      }
    };
    ask(FILES_AHEAD);
    return {
      ready: (index) => run.results.has(index),
      async next(index, file) {
        ask(index + 1 + FILES_AHEAD);
        // No deadline here: the thread times its own reads (SNAPSHOT_READ_TIMEOUT_MS) and answers
        // with the refusal, while what it computes of the records runs at a lower priority and so
        // takes as long as the requests leave it.
        while (!run.results.has(index)) {
          if (run.failure) throw new SnapshotError(`${file}: the snapshot reader thread failed (${run.failure.message})`);
          await new Promise<void>((resolve) => (run.wake = resolve));
          run.wake = null;
        }
        const result = run.results.get(index)!;
        run.results.delete(index);
        if ('error' in result) throw result.snapshotError ? new SnapshotError(result.error) : new Error(result.error);
        return result;
      },
      parsed: ({ bytes }) => {
        // Not after the end: the thread drops its buffers when the end arrives, messages in order.
        if (this.#active === run) worker.postMessage({ free: bytes } satisfies ReaderMessage);
      },
      end: () => {
        if (this.#active !== run) return;
        this.#active = null;
        worker.postMessage({ end: run.id } satisfies ReaderMessage);
        worker.unref();
      },
    };
  }

  /** Stops the thread; a run in progress fails. */
  close(): void {
    void this.#worker?.terminate();
    this.#worker = null;
  }

  #startWorker(): Worker {
    const worker = new Worker(...workerEntry({ sdl: this.#sdl, busy: this.busy.buffer as SharedArrayBuffer }));
    // Waiting between reloads, the thread does not keep the process alive.
    worker.unref();
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = null;
      const run = this.#active;
      if (run?.worker !== worker) return;
      run.failure ??= error;
      run.wake?.();
    };
    worker.on('message', (result: FileResult) => {
      const run = this.#active;
      // An answer to a run that has ended is dropped.
      if (run?.id !== result.run) return;
      run.results.set(result.index, result);
      run.wake?.();
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    return worker;
  }
}

/**
 * The worker's module and options. Run from source (tsx, vitest), the worker is TypeScript,
 * which a worker thread cannot load by itself: it is imported through tsx's API. Run from the
 * bundle (dist/server.mjs), it is dist/loadWorker.mjs beside it (package.json's build).
 */
function workerEntry(data: LoadWorkerData): [string | URL, { workerData: LoadWorkerData; eval?: boolean }] {
  if (!import.meta.url.endsWith('.ts')) return [new URL('./loadWorker.mjs', import.meta.url), { workerData: data }];
  const entry = new URL('./loadWorker.ts', import.meta.url).href;
  // tsx's ESM API, by path: its CommonJS build, which require.resolve names, cannot import.
  const tsx = path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
  const code = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return [code, { workerData: data, eval: true }];
}
