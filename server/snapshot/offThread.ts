/**
 * Loading a snapshot beside the one being served (hot reload) without holding up requests:
 * the files are read, checksummed, inflated, parsed and validated in a worker thread
 * (loadWorker.ts); this thread parses each record again from the bytes the worker hands over,
 * and freezes it, in slices of a few milliseconds with turns of the event loop in between. A file
 * unchanged since the snapshot served is only checked, and its records are kept.
 */

import path from 'node:path';
import type { GraphQLSchema } from 'graphql';
import type { AreaName } from '../../sync/format.ts';
import { deepFreeze } from '../util/deepFreeze.ts';
import { watchEventLoop } from '../util/eventLoopLoad.ts';
import { TimeSlice } from '../util/timeSlice.ts';
import { emptyLocales, fileEntryOf, keptAreas, readCheckedManifest, recordsById, snapshotJobs, type LoadOptions, type Snapshot, type SnapshotJob } from './load.ts';
import { readChangeLists } from './changeLists.ts';
import { NO_LINES, readGeometry } from './geometryFile.ts';
import { DEFAULT_READ_TIMEOUT_MS } from './snapshotFile.ts';
import { SnapshotReader, type CheckedFile } from './snapshotReader.ts';
import type { StoreParts } from './store.ts';

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
  /**
   * The reader thread to read with, kept between loads (snapshotReader.ts); by default one is
   * started for this load and stopped after it.
   */
  reader?: SnapshotReader;
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
  const jobs = snapshotJobs(manifest);
  const areas = keptAreas(options.areas);
  const kept = jobs.map((job) => keptRecords(options.previous, job, areas.has(job.area)));
  const locales = emptyLocales();
  const parts: StoreParts = {};
  const slice = new TimeSlice();
  const reader = options.reader ?? new SnapshotReader(schema);
  const run = reader.read(
    { dataDir, root, readTimeoutMs, maxFileBytes: options.maxFileBytes },
    jobs.map((job, index) => ({ ...job, kept: kept[index] !== undefined })),
  );
  // The reader gives way while this thread's event loop is busy with other work than the slices.
  const stopWatching = watchEventLoop(reader.busy, slice);
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
      const waits = !run.ready(index);
      const result = await run.next(index, path.join(dataDir, file.file));
      // The event loop ran freely while the reader worked: that time was not the slice's.
      if (waits) slice.restart();
      let records: readonly unknown[];
      if ('kept' in result) {
        records = kept[index]!;
      } else if (!areas.has(area)) {
        // Checked by the reader, and not kept.
        run.parsed(result);
        continue;
      } else {
        records = await parseSliced(result, twinsOf(area), slice);
        run.parsed(result);
        (parts[locale] ??= {})[area] = result.parts;
      }
      if (!firstRead.has(area)) firstRead.set(area, records);
      locales[locale][area] = records;
    }
  } finally {
    stopWatching();
    run.end();
    if (reader !== options.reader) reader.close();
  }
  const changes = await readChangeLists(root, dataDir, manifest, readTimeoutMs, options.maxFileBytes);
  // Inflated off this thread by zlib; parsed and checked here a line at a time, in the slices.
  const lines = await readGeometry(root, dataDir, manifest, readTimeoutMs, options.maxFileBytes, () => (slice.spent ? slice.pause() : undefined));
  const geometry = areas.has('tours') ? lines : NO_LINES;
  const snapshot = deepFreeze({ version: manifest.version, manifest, locales, changes, geometry }) as unknown as Snapshot;
  return { snapshot, parts, files: { total: jobs.length, kept: kept.filter((records) => records !== undefined).length } };
}

/**
 * The records `previous` read from a file with the sha256 and record count of `job`'s, for the
 * same locale and area; undefined when there is none. For an area whose records are not kept
 * (`keeps` false), none, once `previous` checked such a file: it need not be checked again.
 */
function keptRecords(previous: Snapshot | undefined, { locale, area, file }: SnapshotJob, keeps: boolean): readonly unknown[] | undefined {
  if (previous === undefined) return undefined;
  const before = fileEntryOf(previous.manifest, locale, area);
  if (before?.sha256 !== file.sha256 || before.count !== file.count) return undefined;
  if (!keeps) return [];
  const records = previous.locales[locale][area];
  return records.length === file.count ? records : undefined;
}

/** Parses and freezes the records of a checked file, pausing whenever `slice` is spent. */
async function parseSliced(result: CheckedFile, twins: ReadonlyMap<unknown, unknown> | undefined, slice: TimeSlice): Promise<unknown[]> {
  const bytes = Buffer.from(result.bytes, 0, result.length);
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
