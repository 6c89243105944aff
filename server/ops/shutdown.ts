/**
 * Graceful shutdown: on SIGTERM (an orchestrator) or SIGINT (Ctrl-C), stop accepting
 * connections, fail readiness, let the requests in flight finish within a grace period, then
 * exit 0. Past the grace period the remaining connections are cut and the exit code is 1.
 */

import { setTimeout as delay } from 'node:timers/promises';
import type { HttpService } from '../http/server.ts';
import type { Logger } from './log.ts';

/**
 * Drains a service: `/readyz` answers 503 from now on, the server stops accepting connections
 * and closes its idle keep-alive ones, and the requests in flight get up to `graceMs` to finish.
 * Every connection left is then closed.
 *
 * @returns true when every request in flight finished within the grace period
 */
export async function shutdown(service: HttpService, graceMs: number): Promise<boolean> {
  service.drain();
  service.server.close();
  const timer = new AbortController();
  const drained = await Promise.race([
    service.idle().then(() => true),
    delay(graceMs, false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  service.server.closeAllConnections();
  return drained;
}

/**
 * Runs {@link shutdown} with its log lines, then calls `exit`: 0 when drained, 1 when the grace
 * period ran out or the shutdown failed. Shared by a single process and a cluster worker.
 *
 * @param reason what asked for the shutdown (a signal, or the primary going away), for the log
 */
export function drainThenExit(service: HttpService, reason: string, graceMs: number, logger: Logger, exit: (code: number) => void): void {
  // shutdown() stops accepting before it first awaits, so the log line below comes after that.
  const done = shutdown(service, graceMs);
  logger.info({ signal: reason, inFlight: service.inFlight, graceMs }, 'draining: not ready, finishing requests in flight');
  done.then(
    (drained) => {
      if (drained) logger.info('drained: exiting');
      else logger.warn({ inFlight: service.inFlight }, 'grace period over: closed the remaining connections');
      exit(drained ? 0 : 1);
    },
    (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      exit(1);
    },
  );
}

/**
 * Runs {@link shutdown} on the first SIGTERM or SIGINT, then exits: 0 when drained, 1 when the
 * grace period ran out. A second signal while draining exits at once: with 1 when requests were
 * still in flight, else with 0, since the drain had nothing left to finish (`tsx watch` passes
 * on a Ctrl-C the terminal sent the process group too, so `npm run dev` gets two).
 *
 * @param options.beforeExit run before the process exits, e.g. to export the spans still
 *   buffered (tracing/startTracing.ts), given what is left of the grace period; it must not reject
 */
export function handleShutdownSignals(service: HttpService, options: { graceMs: number; logger: Logger; beforeExit?: BeforeExit | undefined }): void {
  const { logger } = options;
  const grace = new GracePeriod(options.graceMs);
  const exit = exitAfter(logger, options.beforeExit && (() => options.beforeExit!(grace.leftMs)));
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal, inFlight: service.inFlight }, 'second signal while draining: exiting now');
      exit(service.inFlight === 0 ? 0 : 1);
      return;
    }
    draining = true;
    grace.start();
    drainThenExit(service, signal, options.graceMs, logger, exit);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * What runs before a process exits, given what is left of the grace period, in ms: the exit
 * comes within the grace period (plus the last log lines), however long the work would take.
 * It must not reject.
 */
export type BeforeExit = (leftMs: number) => Promise<void>;

/** The grace period of a shutdown, from the moment it is asked for. */
export class GracePeriod {
  #startedAt: number | undefined;

  /** @param graceMs its length, in ms */
  constructor(private readonly graceMs: number) {}

  /** Starts it now, unless it has started already. */
  start(): void {
    this.#startedAt ??= performance.now();
  }

  /** What is left of it, in ms: all of it before it starts, 0 once it is over. */
  get leftMs(): number {
    if (this.#startedAt === undefined) return this.graceMs;
    return Math.max(0, this.#startedAt + this.graceMs - performance.now());
  }
}

/**
 * Exits the process with a code once `beforeExit` (when given) is done and the log is flushed:
 * the log is written asynchronously, and the last lines could be lost or reordered otherwise.
 */
export function exitAfter(logger: Logger, beforeExit?: () => Promise<void>): (code: number) => void {
  const flushLog = (code: number) => logger.flush(() => process.exit(code));
  if (!beforeExit) return flushLog;
  return (code) => void beforeExit().then(() => flushLog(code));
}
