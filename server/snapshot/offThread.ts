/**
 * Loading a snapshot beside the one being served (hot reload) without holding up requests:
 * the files are read, checksummed, inflated, parsed and validated in a worker thread
 * (loadWorker.ts); this thread parses each record again from the bytes the worker hands over,
 * and freezes it, in slices of a few milliseconds with turns of the event loop in between. A file
 * unchanged since the snapshot served is only checked, and its records are kept.
 */

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { printSchema, type GraphQLSchema } from 'graphql';
import type { AreaName } from '../../sync/format.ts';
import { createBusyFlag, watchEventLoop } from '../util/eventLoopLoad.ts';
import { TimeSlice } from '../util/timeSlice.ts';
import { deepFreeze } from './deepFreeze.ts';
import { emptyLocales, fileEntryOf, FILES_AHEAD, readCheckedManifest, recordsById, snapshotJobs, type LoadOptions, type Snapshot, type SnapshotJob } from './load.ts';
import type { FileRequest, FileResult, LoadWorkerData } from './loadWorker.ts';
import { SnapshotError } from './snapshotError.ts';
import type { AreaParts, StoreParts } from './store.ts';
import { DEFAULT_READ_TIMEOUT_MS } from './snapshotFile.ts';

/** A snapshot loaded off the thread, and what its store is made of ahead of its records (store.ts). */
export interface LoadedOffThread {
  snapshot: Snapshot;
  /** Per area read, its parts; an area kept from the previous snapshot has none. */
  parts: StoreParts;
  /** Files of the snapshot, and of them those whose records were kept from the previous snapshot. */
  files: { total: number; kept: number };
}

/** What {@link loadSnapshotOffThread} reads. */
export interface OffThreadOptions extends LoadOptions {
  /**
   * The snapshot served now. A file whose sha256 and record count are those of the file it read
   * for the same locale and area (a sync carries the files of the sources it did not fetch over
   * unchanged) is only checked, not parsed: the new snapshot shares its records.
   */
  previous?: Snapshot;
}

/**
 * Loads and validates the snapshot that `<dataDir>/manifest.json` points at, as
 * {@link loadSnapshot} does and with the same errors, but with the work done in a worker
 * thread and what is left on this thread cut into slices of the event loop. The worker also
 * computes the parts of the store that need the records alone ({@link AreaParts}), for
 * createStoreAsync. The files unchanged since `options.previous` are checked and their records
 * taken from it (see {@link OffThreadOptions}).
 *
 * @throws SnapshotError as loadSnapshot does (a file not read within `readTimeoutMs` included);
 *   also when the worker thread fails or exits
 */
export async function loadSnapshotOffThread(dataDir: string, schema: GraphQLSchema, options: OffThreadOptions = {}): Promise<LoadedOffThread> {
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const { manifest, root } = await readCheckedManifest(dataDir, readTimeoutMs);
  const jobs = snapshotJobs(manifest, options.areas);
  const kept = jobs.map((job) => keptRecords(options.previous, job));
  const locales = emptyLocales();
  const parts: StoreParts = {};
  const slice = new TimeSlice();
  // The reader gives way while this thread's event loop is busy with other work than the slices.
  const busy = createBusyFlag();
  const stopWatching = watchEventLoop(busy, slice);
  const reader = startReader(
    { sdl: printSchema(schema), dataDir, root, readTimeoutMs, busy: busy.buffer as SharedArrayBuffer },
    jobs.map((job, index) => ({ ...job, kept: kept[index] !== undefined })),
  );
  try {
    // Per area, the records of the locale read first, and by id once a later locale needs them
    // as its twins (see deepFreeze).
    const firstRead = new Map<AreaName, readonly unknown[]>();
    const twins = new Map<AreaName, ReadonlyMap<unknown, unknown>>();
    const twinsOf = (area: AreaName) => {
      const first = firstRead.get(area);
      if (first !== undefined && !twins.has(area)) twins.set(area, recordsById(first));
      return twins.get(area);
    };
    for (const [index, { locale, area, file }] of jobs.entries()) {
      await slice.check();
      const waits = !reader.ready(index);
      const result = await reader.next(index, path.join(dataDir, file.file));
      // The event loop ran freely while the reader worked: that time was not the slice's.
      if (waits) slice.restart();
      let records: readonly unknown[];
      if ('kept' in result) {
        records = kept[index]!;
      } else {
        records = await parseSliced(result, twinsOf(area), slice);
        (parts[locale] ??= {})[area] = result.parts;
      }
      if (!firstRead.has(area)) firstRead.set(area, records);
      locales[locale][area] = records;
    }
  } finally {
    stopWatching();
    reader.stop();
  }
  const snapshot = deepFreeze({ version: manifest.version, manifest, locales }) as unknown as Snapshot;
  return { snapshot, parts, files: { total: jobs.length, kept: kept.filter((records) => records !== undefined).length } };
}

/**
 * The records `previous` read from a file with the sha256 and record count of `job`'s, for the
 * same locale and area; undefined when there is none.
 */
function keptRecords(previous: Snapshot | undefined, { locale, area, file }: SnapshotJob): readonly unknown[] | undefined {
  if (previous === undefined) return undefined;
  const before = fileEntryOf(previous.manifest, locale, area);
  const records = previous.locales[locale][area];
  return before?.sha256 === file.sha256 && before.count === file.count && records.length === file.count ? records : undefined;
}

type CheckedFile = Extract<FileResult, { bytes: ArrayBuffer }>;
type KeptFile = Extract<FileResult, { kept: true }>;

/** Parses and freezes the records of a checked file, pausing whenever `slice` is spent. */
async function parseSliced(result: CheckedFile, twins: ReadonlyMap<unknown, unknown> | undefined, slice: TimeSlice): Promise<unknown[]> {
  const bytes = Buffer.from(result.bytes);
  const { ranges } = result;
  const encoding = result.ascii ? 'latin1' : 'utf8';
  const records = new Array<unknown>(ranges.length / 2);
  for (let i = 0; i < records.length; i++) {
    const record = JSON.parse(bytes.toString(encoding, ranges[2 * i], ranges[2 * i + 1])) as { id: unknown };
    records[i] = deepFreeze(record, twins?.get(record.id));
    if (slice.spent) await slice.pause();
  }
  // Frozen here, its records frozen one by one above: freezing the whole snapshot at the end then
  // stops at each area instead of visiting all its records again in one piece.
  Object.freeze(records);
  return records;
}

interface Reader {
  /** Whether the answer for job `index` is here, so that {@link next} does not wait. */
  ready(index: number): boolean;
  /** The worker's answer for job `index`, asked for in order; `file` names it in errors. */
  next(index: number, file: string): Promise<CheckedFile | KeptFile>;
  stop(): void;
}

/**
 * Starts the worker and keeps it FILES_AHEAD files ahead of the one being parsed here: enough
 * to keep it busy, few enough that the inflated files waiting for this thread stay few.
 */
function startReader(data: LoadWorkerData, jobs: readonly (SnapshotJob & { kept: boolean })[]): Reader {
  const worker = new Worker(...workerEntry(data));
  const results = new Map<number, FileResult>();
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  worker.on('message', (result: FileResult) => {
    results.set(result.index, result);
    wake?.();
  });
  worker.on('error', (error) => {
    failure = error;
    wake?.();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`exited with code ${code}`);
    wake?.();
  });
  let asked = 0;
  const ask = (upTo: number) => {
    for (; asked < Math.min(upTo, jobs.length); asked++) {
      const { locale, area, file, kept } = jobs[asked]!;
      const request: FileRequest = { index: asked, locale, area, file, kept };
      worker.postMessage(request);
    }
  };
  ask(FILES_AHEAD);
  return {
    ready: (index) => results.has(index),
    async next(index, file) {
      ask(index + 1 + FILES_AHEAD);
      // No deadline here: the reader times its own reads (SNAPSHOT_READ_TIMEOUT_MS) and answers
      // with the refusal, while what it computes of the records runs at a lower priority and so
      // takes as long as the requests leave it.
      while (!results.has(index)) {
        if (failure) throw new SnapshotError(`${file}: the snapshot reader thread failed (${failure.message})`);
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
      const result = results.get(index)!;
      results.delete(index);
      if ('error' in result) throw result.snapshotError ? new SnapshotError(result.error) : new Error(result.error);
      return result;
    },
    stop() {
      void worker.terminate();
    },
  };
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
