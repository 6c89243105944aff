/**
 * Pull mode: keeps a data directory, the local cache, following an origin that serves a data
 * directory over HTTPS (the sync's data branch, a bucket, a CDN, any static host). It polls the
 * origin's `manifest.json` every `pollS` seconds plus a random part of up to a fifth of it, so
 * that replicas started together do not poll together, and commits each new version into the
 * cache (pullSnapshot.ts); the hot reload watching the cache (reload.ts) serves it. A failed
 * pull changes nothing locally: the served version stays, and the failure is counted by reason.
 */

import type { KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';
import { Agent } from 'undici';
import { PULL_FAILURE_REASONS, PullError, type PullFailureReason } from './pullError.ts';
import { pullSnapshot, type PullResult } from './pullSnapshot.ts';

/** The largest part of the poll interval added at random to each wait. */
export const POLL_JITTER = 0.2;

export interface PullerOptions {
  /** The origin's base URL (SNAPSHOT_URL), ending in `/`. */
  origin: URL;
  /** The local cache (DATA_DIR). */
  dataDir: string;
  /** Seconds between polls, before jitter (SNAPSHOT_POLL_S). */
  pollS: number;
  /** Total deadline of each GET, in ms (SNAPSHOT_FETCH_TIMEOUT_MS). */
  fetchTimeoutMs: number;
  /** Largest file accepted, in bytes (SNAPSHOT_MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** SNAPSHOT_PUBLIC_KEY: one of them must verify each manifest; none: unsigned manifests are taken. */
  publicKeys: readonly KeyObject[];
  /** The version being served, whose files must stay in the cache; null before the first load. */
  served(): string | null;
  /** Called after each pull that committed a new version into the cache. */
  onPulled?(result: Extract<PullResult, { changed: true }>): void;
  /** Called with each failed pull. */
  onFailure?(error: PullError): void;
}

/** What the status page and the metrics show of pull mode. */
export interface PullStatus {
  /** The origin, as SNAPSHOT_URL gives it. */
  readonly origin: string;
  readonly pollS: number;
  /** Whether manifests must be signed (SNAPSHOT_PUBLIC_KEY is set). */
  readonly signed: boolean;
  /** When the origin last answered a poll in full (ms since the epoch), null before. */
  readonly lastSuccessMs: number | null;
  /** The version the origin's manifest named at the last successful poll. */
  readonly originVersion: string | null;
  readonly lastFailure: { readonly atMs: number; readonly reason: PullFailureReason; readonly message: string } | null;
  /** Failed pulls since the start, by reason (every reason, 0 included). */
  readonly failures: Readonly<Record<PullFailureReason, number>>;
}

export interface SnapshotPuller {
  /** Pulls now, unless a pull is under way (then waits for that one); never throws. */
  pullOnce(): Promise<PullResult | PullError>;
  /** Starts polling: the first poll at once with `now`, else after one interval. */
  start(options?: { now?: boolean }): void;
  /** Resolves after one interval with its jitter, or at once when closed. */
  wait(): Promise<void>;
  status(): PullStatus;
  /** Stops polling and closes the connections; a pull under way is cut off. */
  close(): Promise<void>;
}

/** Creates the puller of {@link PullerOptions}; nothing is fetched before `pullOnce` or `start`. */
export function createSnapshotPuller(options: PullerOptions): SnapshotPuller {
  const dispatcher = new Agent({ connections: 8, keepAliveTimeout: 10_000 });
  const failures = Object.fromEntries(PULL_FAILURE_REASONS.map((reason) => [reason, 0])) as Record<PullFailureReason, number>;
  let etag: string | null = null;
  let lastSuccessMs: number | null = null;
  let originVersion: string | null = null;
  let lastFailure: PullStatus['lastFailure'] = null;
  let running: Promise<PullResult | PullError> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const waiting = new Set<() => void>();

  const intervalMs = () => options.pollS * 1000 * (1 + POLL_JITTER * Math.random());

  async function pull(): Promise<PullResult | PullError> {
    try {
      await fs.mkdir(options.dataDir, { recursive: true });
      const served = options.served();
      const result = await pullSnapshot({ ...options, dispatcher, etag, keep: served ? [served] : [] });
      etag = result.etag;
      lastSuccessMs = Date.now();
      originVersion = result.version ?? originVersion;
      if (result.changed) options.onPulled?.(result);
      return result;
    } catch (error) {
      const failure = error instanceof PullError ? error : new PullError('cache', (error as Error).message, { cause: error });
      // A manifest refused once is fetched whole again next time, not answered 304 and forgotten.
      etag = null;
      failures[failure.reason]++;
      lastFailure = { atMs: Date.now(), reason: failure.reason, message: failure.message };
      if (!closed) options.onFailure?.(failure);
      return failure;
    }
  }

  function pullOnce(): Promise<PullResult | PullError> {
    running ??= pull().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(delayMs: number): void {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      void pullOnce().then(() => schedule(intervalMs()));
    }, delayMs);
    timer.unref();
  }

  return {
    pullOnce,
    start(startOptions = {}) {
      if (timer || closed) return;
      schedule(startOptions.now ? 0 : intervalMs());
    },
    wait() {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(wake);
          waiting.delete(done);
          resolve();
        };
        const wake = setTimeout(done, intervalMs());
        waiting.add(done);
      });
    },
    status: () => ({ origin: options.origin.href, pollS: options.pollS, signed: options.publicKeys.length > 0, lastSuccessMs, originVersion, lastFailure, failures: { ...failures } }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const done of [...waiting]) done();
      await dispatcher.destroy().catch(() => {});
    },
  };
}
