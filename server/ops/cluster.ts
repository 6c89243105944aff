/**
 * Serving from several processes (node:cluster, https://nodejs.org/api/cluster.html): with
 * WORKERS=N > 1 the primary process forks N workers that share the port, each loading the
 * snapshot, building its indexes and watching for new snapshots on its own. This module only
 * supervises them; what the primary runs beside them (the booking interface the workers share,
 * server/booking/forwarder.ts) is built by server/main.ts and handed in.
 *
 * `/metrics` reports the whole cluster: the worker a scrape reaches asks the primary, which sums
 * every worker's metrics (server/ops/clusterMetrics.ts). A persisted query registered with one worker
 * is known to all: the primary relays it (server/http/graphql/clusterPersistedQueries.ts). The
 * workers reload a new snapshot one at a time, in turns the primary grants (server/ops/reloadTurns.ts).
 *
 * The primary restarts a worker that dies, after a delay that doubles with each death in the
 * last minute (at most 30 s); a worker that dies before the cluster first listens stops the
 * start instead, as a single process would (a bad snapshot, a port in use). SIGTERM and SIGINT
 * go to the primary, which tells every worker to drain (each as server/ops/shutdown.ts drains a
 * single process) and exits once they all have: 0 when every worker drained in time, else 1.
 * Workers ignore the signals themselves, so a signal sent to the whole process group (Ctrl-C in
 * a terminal, systemd) counts once. A second signal makes every worker exit at once, with 1 if it
 * still had requests in flight.
 */

import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { aggregateWorkerMetrics } from './clusterMetrics.ts';
import { relayPersistedQueries } from '../http/graphql/clusterPersistedQueries.ts';
import type { Config } from '../config/config.ts';
import type { HttpService } from '../http/server.ts';
import type { Logger } from './log.ts';
import { grantReloadTurns } from './reloadTurns.ts';
import { type BeforeExit, drainThenExit, exitAfter, GracePeriod } from './shutdown.ts';

/** Delay before restarting a worker that died, doubled for each other death in the last minute, in ms. */
const RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
const CRASH_WINDOW_MS = 60_000;

/** Past the grace period, how long the primary waits for a worker before killing it, in ms. */
const KILL_AFTER_GRACE_MS = 5000;

/** Messages from the primary to a worker. */
type PrimaryMessage = { type: 'shutdown'; signal: NodeJS.Signals } | { type: 'exit' };

/** The message a worker sends once it listens to the primary's (messages sent before are lost). */
const LISTENING_TO_PRIMARY = 'listening-to-primary';

/** What the primary runs beside its workers, built by the composition root. */
export interface PrimaryServices {
  /** Environment every worker is forked with, besides the primary's own. */
  readonly workerEnv: Readonly<Record<string, string>>;
  /** Settles once they run; a rejection stops the start, its message naming what failed. */
  readonly started: Promise<unknown>;
  /**
   * Stops them; called once every worker has exited, with what is left of the grace period, in
   * ms, which it must not go past by much (the process exits after it).
   */
  close(leftMs: number): Promise<void>;
}

/**
 * Runs the primary: forks `config.workers` workers, restarts them, relays between them and
 * shuts them down gracefully. Returns once the workers are forked; the process exits when the
 * cluster has shut down, or with 1 when it cannot start.
 */
export function runPrimary(config: Config, logger: Logger, services: PrimaryServices): void {
  aggregateWorkerMetrics();
  relayPersistedQueries({ maxBytes: config.apqCacheBytes, maxQueryBytes: config.limits.maxBodyBytes });
  grantReloadTurns(logger);
  const supervisor = new Supervisor(config, logger, services);
  services.started.catch((error: unknown) => supervisor.fail((error as Error).message));
  cluster.on('online', (worker: Worker) => logger.info({ worker: worker.id, pid: worker.process.pid }, `worker ${worker.id} started`));
  cluster.on('listening', (worker: Worker, address: AddressInfo) => supervisor.listening(worker, address));
  cluster.on('exit', (worker: Worker, code: number | null, signal: NodeJS.Signals | null) => supervisor.exited(worker, code, signal));
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (message === LISTENING_TO_PRIMARY) supervisor.retell(worker);
  });
  process.on('SIGTERM', (signal) => supervisor.signalled(signal));
  process.on('SIGINT', (signal) => supervisor.signalled(signal));
  logger.info({ workers: config.workers }, `starting ${config.workers} workers`);
  supervisor.forkAll();
}

/** The primary's state: its workers, their deaths, and how far the start or the shutdown is. */
class Supervisor {
  readonly #workerIds = new Set<number>();
  readonly #listeningIds = new Set<number>();
  /** When workers died, ms since the epoch, within the last {@link CRASH_WINDOW_MS}. */
  readonly #crashes: number[] = [];
  #listening = false;
  #shuttingDown = false;
  #failed = false;
  #finished = false;
  #exitCode = 0;
  #killTimer: NodeJS.Timeout | undefined;
  readonly #grace: GracePeriod;
  /** What every worker must be told, also one that only starts listening to the primary later. */
  #told: PrimaryMessage | undefined;

  constructor(
    readonly config: Config,
    readonly logger: Logger,
    readonly services: PrimaryServices,
  ) {
    this.#grace = new GracePeriod(config.shutdownGraceMs);
  }

  forkAll(): void {
    for (let i = 0; i < this.config.workers && !this.#failed; i++) this.#fork();
  }

  #fork(): void {
    this.#workerIds.add(cluster.fork(this.services.workerEnv).id);
  }

  listening(worker: Worker, address: AddressInfo): void {
    this.#listeningIds.add(worker.id);
    if (!this.#listening && this.#listeningIds.size === this.config.workers) {
      this.#listening = true;
      this.logger.info({ workers: this.config.workers, port: address.port }, `${this.config.workers} workers listening on port ${address.port}`);
    }
  }

  /** A worker exited: while running, it is restarted after a delay; before listening, the start fails. */
  exited(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.#workerIds.delete(worker.id);
    this.#listeningIds.delete(worker.id);
    const status = signal ?? code;
    if (this.#shuttingDown || this.#failed) {
      if (code !== 0) this.#exitCode = 1;
      if (this.#workerIds.size === 0) void this.#finish();
      return;
    }
    if (!this.#listening) {
      this.fail(`worker ${worker.id} exited with ${status} before the cluster was listening`);
      return;
    }
    const now = Date.now();
    this.#crashes.push(now);
    while (this.#crashes[0]! < now - CRASH_WINDOW_MS) this.#crashes.shift();
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (this.#crashes.length - 1));
    this.logger.error({ worker: worker.id, pid: worker.process.pid, exit: status, restartInMs: delayMs }, `worker ${worker.id} exited with ${status}; restarting it in ${delayMs} ms`);
    const timer = setTimeout(() => {
      if (!this.#shuttingDown && !this.#failed) this.#fork();
    }, delayMs);
    timer.unref();
  }

  /** Tells a worker that has just started listening what the others were told before. */
  retell(worker: Worker): void {
    if (this.#told !== undefined && worker.isConnected()) worker.send(this.#told);
  }

  #tell(message: PrimaryMessage): void {
    this.#told = message;
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected()) worker.send(message);
    }
  }

  /** Stops everything after a failed start: the workers at once, then the process with 1. */
  fail(reason: string): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#exitCode = 1;
    this.logger.fatal(`cannot start: ${reason}`);
    this.#killAll();
    if (this.#workerIds.size === 0) void this.#finish();
  }

  /** The first signal drains every worker, within the grace period; a second one ends them at once. */
  signalled(signal: NodeJS.Signals): void {
    if (this.#failed) return;
    if (this.#shuttingDown) {
      // Each worker exits with 1 only if it still had requests in flight: a second signal during
      // a drain with nothing left to finish (a Ctrl-C under `tsx watch` comes twice) is no error.
      this.logger.warn({ signal }, 'second signal while draining: the workers exit now');
      this.#tell({ type: 'exit' });
      return;
    }
    this.#shuttingDown = true;
    this.#grace.start();
    this.logger.info({ signal, workers: this.#workerIds.size, graceMs: this.config.shutdownGraceMs }, 'draining: telling every worker to finish its requests in flight');
    if (this.#workerIds.size === 0) {
      void this.#finish();
      return;
    }
    this.#tell({ type: 'shutdown', signal });
    this.#killTimer = setTimeout(() => {
      this.logger.warn({ workers: this.#workerIds.size }, 'workers still running past the grace period: killing them');
      this.#exitCode = 1;
      this.#killAll();
    }, this.config.shutdownGraceMs + KILL_AFTER_GRACE_MS);
    this.#killTimer.unref();
  }

  #killAll(): void {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
  }

  async #finish(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#killTimer);
    await this.services.close(this.#grace.leftMs).catch(() => {});
    const exitCode = this.#exitCode;
    if (!this.#failed) this.logger.info({ exitCode }, exitCode === 0 ? 'drained: every worker has exited' : 'stopped: a worker did not drain in time');
    this.logger.flush(() => process.exit(exitCode));
  }
}

/** A worker's side of the graceful shutdown; see {@link listenToPrimary}. */
export interface WorkerShutdown {
  /** Drains `service` when the primary says so, from now on (at once if it already has). */
  serve(service: HttpService): void;
}

/**
 * A worker's side of the graceful shutdown, from the worker's first moment: it drains when the
 * primary says so (or when the primary is gone), as server/ops/shutdown.ts drains a single process,
 * with the same log lines, and exits 0 when drained, 1 past the grace period or when told to exit
 * at once with requests in flight. Told to stop before it serves, it exits 0 at once: nothing is in flight yet. Signals
 * sent to the worker itself are ignored: the primary got them too, and decides.
 * `beforeExit` runs before the worker exits (the spans still buffered are exported), given what
 * is left of the grace period from the moment the primary asked.
 */
export function listenToPrimary(options: { graceMs: number; logger: Logger; beforeExit?: BeforeExit | undefined }): WorkerShutdown {
  const { logger } = options;
  const grace = new GracePeriod(options.graceMs);
  const exit = exitAfter(logger, options.beforeExit && (() => options.beforeExit!(grace.leftMs)));
  let service: HttpService | undefined;
  let requested: NodeJS.Signals | 'disconnect' | undefined;
  let draining = false;
  const drain = () => {
    if (draining || requested === undefined) return;
    draining = true;
    grace.start();
    if (service === undefined) {
      logger.info({ signal: requested }, 'stopping before serving');
      exit(0);
      return;
    }
    drainThenExit(service, requested, options.graceMs, logger, exit);
  };
  process.on('SIGTERM', () => {});
  process.on('SIGINT', () => {});
  process.on('message', (message: PrimaryMessage) => {
    if (message.type === 'shutdown') {
      requested ??= message.signal;
      drain();
    } else if (message.type === 'exit') {
      const inFlight = service?.inFlight ?? 0;
      logger.warn({ inFlight }, 'told to exit now');
      grace.start();
      exit(inFlight === 0 ? 0 : 1);
    }
  });
  process.on('disconnect', () => {
    requested ??= 'disconnect';
    drain();
  });
  process.send?.(LISTENING_TO_PRIMARY);
  return {
    serve(running) {
      service = running;
      drain();
    },
  };
}
