/**
 * The worker thread of {@link loadSnapshotOffThread} (offThread.ts): reads, checksums, inflates,
 * parses and validates the files of a snapshot, one request at a time, off the server's event
 * loop, for one load after another (snapshotReader.ts keeps it between reloads). It answers
 * each file with its inflated bytes, in shared memory (sharedBuffers.ts), and where each record
 * lies in them; the server parses the records again from those bytes, a slice at a time. A file
 * whose records the server keeps from the snapshot it serves is only checked.
 * Records are not sent as objects: a structured clone of an area is deserialised on the
 * receiving thread in one piece, a pause as long as parsing it.
 *
 * The thread gives way to requests twice over: it runs at the lowest CPU priority, and while
 * the server's event loop is busy (eventLoopLoad.ts) it works in slices that take at most
 * {@link BUSY_SHARE_OF_CORE} of a core. A low priority alone does not keep it off the cores the
 * requests need: each time the server's thread wakes for a request it may wait for the
 * reader's turn on a core to end.
 */

import { isAscii } from 'node:buffer';
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { buildSchema } from 'graphql';
import type { AreaName, FileEntry } from '../../sync/format.ts';
import { checkRecord, createValidators, parseRecords } from './load.ts';
import type { Locale } from './locales.ts';
import { SharedBuffers } from './sharedBuffers.ts';
import { SnapshotError } from './snapshotError.ts';
import { checkSnapshotFile, readSnapshotFile } from './snapshotFile.ts';
import { areaPartsSteps, type AreaParts } from './store.ts';
import { textIndexPartsArrays } from '../search/indexes.ts';
import { isBusy } from '../util/eventLoopLoad.ts';
import { runStepsSliced, SLICE_BUDGET_MS, TimeSlice, type Steps } from '../util/timeSlice.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../util/jsonBytes.ts';

/** What the worker is started with (workerData). */
export interface LoadWorkerData {
  /** The schema's SDL: the validators are compiled from it in the worker. */
  sdl: string;
  /** The memory of the server's busy flag (eventLoopLoad.ts BusyFlag), shared with this thread. */
  busy: SharedArrayBuffer;
}

/** Where one run (one snapshot's load) reads its files. */
export interface ReadSettings {
  dataDir: string;
  /** The data directory's real path. */
  root: string;
  readTimeoutMs: number;
  /** The largest size one file may inflate to (readSnapshotFile). */
  maxFileBytes?: number;
}

/**
 * A request of run `run`: check one file, whose records must match `area`'s type, and compute
 * its area's parts for `locale`; with `kept`, only check that the file is there and unchanged
 * (checkSnapshotFile).
 */
export interface FileRequest extends ReadSettings {
  run: number;
  index: number;
  locale: Locale;
  area: AreaName;
  file: FileEntry;
  /** The server has the file's records already, from a file with the same sha256. */
  kept?: boolean;
}

/**
 * What the server sends: a file to read; the shared memory of a file it has parsed, sent only
 * while that file's run is open; or the end of a run, whose files not yet begun are skipped.
 */
export type ReaderMessage = FileRequest | { free: SharedArrayBuffer } | { end: number };

/** The answer to a {@link FileRequest}. */
export type FileResult = { run: number; index: number } & (
  | {
      /**
       * The inflated file, its first `length` bytes, in shared memory that the server gives back
       * once it has parsed them (sharedBuffers.ts).
       */
      bytes: SharedArrayBuffer;
      length: number;
      /** Per record, its first byte and the byte after its last: [start0, end0, start1, …]. */
      ranges: Uint32Array;
      /** Whether the whole file is ASCII (decoded as Latin-1). */
      ascii: boolean;
      /** What the store makes of the records ahead of them (store.ts). */
      parts: AreaParts;
    }
  /** A file asked for as `kept`, checked. */
  | { kept: true }
  | { error: string; snapshotError: boolean }
);

/** The share of a core this thread takes at most while the server's event loop is busy. */
const BUSY_SHARE_OF_CORE = 0.1;

lowerPriority();
const { sdl, busy } = workerData as LoadWorkerData;
const serverBusyFlag = new Int32Array(busy);
const serverBusy = () => isBusy(serverBusyFlag);
const validators = createValidators(buildSchema(sdl));
// The latest run that ended: requests of it, or of an earlier run, not yet begun are skipped.
let ended = 0;
// One file at a time, in the order asked: the server takes them in that order.
let queue = Promise.resolve();

// The memory files are handed over in, reused within a run and dropped at its end.
const buffers = new SharedBuffers();

parentPort!.on('message', (message: ReaderMessage) => {
  if ('end' in message) {
    ended = Math.max(ended, message.end);
    buffers.clear();
  } else if ('free' in message) {
    buffers.give(message.free);
  } else {
    queue = queue.then(() => answer(message));
  }
});

async function answer({ run, index, locale, area, file, kept, dataDir, root, readTimeoutMs, maxFileBytes }: FileRequest): Promise<void> {
  if (run <= ended) return;
  try {
    if (kept) {
      await checkSnapshotFile(root, dataDir, file, readTimeoutMs);
      parentPort!.postMessage({ run, index, kept } satisfies FileResult);
      return;
    }
    const bytes = await readSnapshotFile(root, dataDir, file, readTimeoutMs, maxFileBytes);
    // Read and inflated off this thread, so the slices count from here. Parsing the file is
    // one piece: the pause after it rests in proportion.
    const slice = new TimeSlice(SLICE_BUDGET_MS, BUSY_SHARE_OF_CORE, serverBusy);
    const where = path.join(dataDir, file.file);
    const records = parseRecords(where, file, bytes);
    const ids = new Map<unknown, number>();
    for (let i = 0; i < records.length; i++) {
      checkRecord(where, records, i, validators.get(area)!, ids);
      if (slice.spent) await slice.pause();
    }
    const ranges = await runStepsSliced(recordRanges(bytes, records.length), slice);
    const parts = await runStepsSliced(areaPartsSteps(locale, area, records), slice);
    const shared = buffers.take(bytes.length);
    new Uint8Array(shared).set(bytes);
    const result: FileResult = { run, index, bytes: shared, length: bytes.length, ranges, ascii: isAscii(bytes), parts };
    parentPort!.postMessage(result, [ranges.buffer as ArrayBuffer, ...partsBuffers(parts)]);
  } catch (error) {
    const result: FileResult = { run, index, error: (error as Error).message, snapshotError: error instanceof SnapshotError };
    parentPort!.postMessage(result);
  }
}

/**
 * Gives this thread the lowest CPU priority (nice 19), so that where the reload and requests
 * compete for the cores, requests come first and the reload takes longer: a thread of a
 * middling priority still takes a share of a busy core that the requests lose.
 * On Linux a thread's nice value is its own, set through its thread id (/proc/thread-self);
 * elsewhere, or where it is not allowed, the thread keeps the process's priority.
 */
function lowerPriority(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    os.setPriority(threadId, os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the process's priority.
  }
}

/** Bytes scanned per step of {@link recordRanges}. */
const SCAN_STEP_BYTES = 1 << 16;

/**
 * Where each element of a JSON array of objects lies in its text: the `{` that opens it and
 * the byte after the `}` that closes it, as steps of about {@link SCAN_STEP_BYTES}. Only for
 * text that parsed as such an array, with `count` elements.
 */
export function* recordRanges(bytes: Uint8Array, count: number): Steps<Uint32Array> {
  const ranges = new Uint32Array(2 * count);
  let depth = 0;
  let record = 0;
  let stepEnd = SCAN_STEP_BYTES;
  for (let at = 0; at < bytes.length; at++) {
    if (at >= stepEnd) {
      yield;
      stepEnd = at + SCAN_STEP_BYTES;
    }
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      // Skip the string: a backslash escapes the byte after it, so an escaped quote does not end it.
      for (at++; bytes[at] !== QUOTE; at++) if (bytes[at] === BACKSLASH) at++;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (depth === 1) ranges[2 * record] = at;
      depth++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 1) ranges[2 * record++ + 1] = at + 1;
    }
  }
  return ranges;
}

/** The buffers of the typed arrays of `parts`, each once: moved to the serving thread rather than copied. */
function partsBuffers({ order, text }: AreaParts): ArrayBuffer[] {
  return [...new Set([order, ...textIndexPartsArrays(text)].map((array) => array.buffer as ArrayBuffer))];
}
