/**
 * Hot reload: watches a data directory's `manifest.json` and hands a freshly loaded and
 * indexed store (or what the caller makes of the snapshot) to the caller whenever a new
 * snapshot is committed, without a restart.
 *
 * The sync replaces the manifest by rename (sync/publish/manifest.ts), so the directory is watched,
 * not the file. fs.watch can miss events (network file systems, some containers), so a
 * periodic stat of the manifest backs it up. A snapshot that fails to load is refused: the
 * caller keeps serving the store it has, and the error is reported.
 */

import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { GraphQLSchema } from 'graphql';
import type { AreaName } from '../../sync/format.ts';
import { fileSignature, watchFileEvents } from '../util/watchFile.ts';
import { readManifestText, type Snapshot } from './load.ts';
import { loadSnapshotOffThread } from './offThread.ts';
import { SnapshotReader } from './snapshotReader.ts';
import { createStoreAsync, type Store, type StoreParts } from './store.ts';

/** What is served from a snapshot: by default its {@link Store}. */
export interface FromSnapshot {
  readonly snapshot: Snapshot;
}

export interface WatchSnapshotOptions<T extends FromSnapshot = Store> {
  dataDir: string;
  schema: GraphQLSchema;
  /**
   * What is served now; a manifest equal to its snapshot's manifest is not loaded again. A
   * reload keeps what it can of what is served (the value last swapped in, else this): the
   * records of every file unchanged since (loadSnapshotOffThread's `previous`) and `prepare`'s
   * work on them.
   */
  current?: T;
  /** Areas to load (loadSnapshot's `areas`); default every area. */
  areas?: readonly AreaName[];
  /** loadSnapshot's `readTimeoutMs`, for the manifest too: SNAPSHOT_READ_TIMEOUT_MS. Default 30 000. */
  readTimeoutMs?: number;
  /** loadSnapshot's `maxFileBytes`: SNAPSHOT_MAX_FILE_BYTES. Default 256 MiB. */
  maxFileBytes?: number;
  /**
   * Makes what is served out of a loaded snapshot and the parts of its store computed ahead
   * (store.ts AreaParts), given what is served now (`previous`), whose records the snapshot
   * shares where their files did not change. Default: the store with every index, built by
   * createStoreAsync, which lets requests through between its steps and keeps the indexes of
   * the areas it shares with `previous`.
   */
  prepare?: (snapshot: Snapshot, parts: StoreParts, previous: T | undefined) => T | Promise<T>;
  /**
   * Called with the new value once it is loaded and prepared, and what the reload took. Swap
   * your one reference here.
   */
  onSwap(value: T, reload: ReloadStats): void;
  /** Called when a new manifest was refused (SnapshotError) or could not be read. */
  onError(error: Error): void;
  /** Quiet time after the last change event before loading, in ms. Default 250. */
  debounceMs?: number;
  /** Interval of the stat fallback, in ms. Default 5 000. */
  pollMs?: number;
  /** Loads of one broken manifest before waiting for it to change. Default 3. */
  maxAttempts?: number;
  /**
   * Waits until this process may load and prepare a new snapshot, and returns the release to
   * call once done; called before each load, released when it is swapped in, fails or the
   * watcher closes. A cluster's workers take turns through it, so that they do not all stall at
   * once (server/ops/reloadTurns.ts). Default: load at once.
   */
  turn?: () => Promise<() => void>;
}

/** What a reload took, for the log. */
export interface ReloadStats {
  /** From the start of the load to the swap, in ms. */
  ms: number;
  /** The snapshot's files, and of them those unchanged since the one served before, whose records were kept. */
  files: { total: number; kept: number };
  /**
   * The longest the event loop was held up while the snapshot was loaded and prepared, in ms
   * (perf_hooks.monitorEventLoopDelay): what a request arriving then waited at most, whatever
   * held it up (the reload's slices, requests, garbage collection).
   */
  longestDelayMs: number;
}

export interface SnapshotWatcher {
  /** Stops watching; a load in progress finishes but is not swapped in. */
  close(): void;
}

/**
 * Starts watching `dataDir/manifest.json`; see {@link WatchSnapshotOptions}.
 *
 * A changed manifest is loaded (files read, checksums and records validated, in a worker
 * thread: offThread.ts), prepared (indexed), and passed to `onSwap`; the files unchanged since
 * the snapshot served keep its records and indexes. Loads never overlap; changes during a load
 * trigger one more load after it. A manifest that fails is retried at the next polls (the data
 * files may still be on their way, e.g. during a copy), at most `maxAttempts` times, then left
 * until it changes again.
 */
export function watchSnapshot<T extends FromSnapshot = Store>(options: WatchSnapshotOptions<T>): SnapshotWatcher {
  const { dataDir, schema } = options;
  const prepare = options.prepare ?? (createStoreAsync as unknown as (snapshot: Snapshot, parts: StoreParts, previous: T | undefined) => Promise<T>);
  const manifestPath = path.join(dataDir, 'manifest.json');
  const debounceMs = options.debounceMs ?? 250;
  const maxAttempts = options.maxAttempts ?? 3;
  let currentManifest = options.current ? JSON.stringify(options.current.snapshot.manifest) : null;
  // What is served, replaced at each swap: the watcher's closures hold `options`, which would
  // otherwise keep the first store alive as long as the watcher, beside the one that replaced it.
  let served = options.current;
  options = { ...options, current: undefined };
  // Signature of the manifest file last dealt with: served, loaded, or refused for good.
  let seen: string | null = null;
  let failedAttempts = 0;
  let loading = false;
  let again = false;
  let closed = false;
  let debounce: NodeJS.Timeout | null = null;
  // Sampled only during a load, in ms steps: its timer is the only cost, and only then.
  const delays = monitorEventLoopDelay({ resolution: 1 });
  // Started now, while no reload runs, and kept: a reload does not pay for its start.
  const reader = new SnapshotReader(schema);
  reader.start();

  const schedule = () => {
    if (closed) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      void check();
    }, debounceMs);
  };

  async function check(): Promise<void> {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    let signature: string | null = null;
    let release: (() => void) | undefined;
    try {
      signature = await fileSignature(manifestPath);
      if (signature === null || signature === seen) return;
      // Reading the manifest alone is cheap; the snapshot is loaded only when it says something new.
      // Read as loadSnapshot reads it: a manifest that is a FIFO, or a link out of dataDir, is refused.
      if (sameJson(await readManifestText(dataDir, options.readTimeoutMs), currentManifest)) {
        seen = signature;
        return;
      }
      release = await options.turn?.();
      if (closed) return;
      const startedAt = performance.now();
      delays.reset();
      delays.enable();
      const previous = served;
      const { snapshot, parts, files } = await loadSnapshotOffThread(dataDir, schema, { areas: options.areas, readTimeoutMs: options.readTimeoutMs, maxFileBytes: options.maxFileBytes, previous: previous?.snapshot, reader });
      seen = signature;
      failedAttempts = 0;
      if (closed) return;
      const value = await prepare(snapshot, parts, previous);
      if (closed) return;
      currentManifest = JSON.stringify(snapshot.manifest);
      delays.disable();
      served = value;
      options.onSwap(value, { ms: performance.now() - startedAt, files, longestDelayMs: delays.max / 1e6 });
    } catch (error) {
      failedAttempts++;
      if (failedAttempts >= maxAttempts) {
        seen = signature;
        failedAttempts = 0;
      }
      if (!closed) options.onError(error as Error);
    } finally {
      release?.();
      delays.disable();
      loading = false;
      // A load that began reading after close() started the reader thread again.
      if (closed) reader.close();
      if (again && !closed) {
        again = false;
        void check();
      }
    }
  }

  const watcher = watchFileEvents(manifestPath, schedule, options.onError);
  const poll = setInterval(() => void check(), options.pollMs ?? 5_000);
  poll.unref();

  return {
    close() {
      closed = true;
      served = undefined;
      reader.close();
      watcher.close();
      clearInterval(poll);
      if (debounce) clearTimeout(debounce);
    },
  };
}

function sameJson(text: string, json: string | null): boolean {
  try {
    return json !== null && JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
