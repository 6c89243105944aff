/**
 * Serving from several processes (node:cluster, https://nodejs.org/api/cluster.html): with
 * WORKERS=N > 1 the primary process forks N workers that share the port, each loading the
 * snapshot, building its indexes and watching for new snapshots on its own.
 *
 * The booking interface keeps state: the sandbox's places, holds and journal under STATE_DIR
 * (server/booking/sandbox.ts), and in both modes the rate limit per client and the
 * Idempotency-Key store (server/booking/routes.ts). N workers must not each keep their own, so
 * the primary runs the one booking interface, on an internal loopback port, and the workers pass
 * every `/v1` request to it unchanged and its answer back. The last place of a slot therefore
 * still goes to exactly one client, and a client's rate limit counts its requests to every
 * worker. The internal port answers only requests that carry a secret made at start, which the
 * workers get in their environment.
 *
 * `/metrics` reports the whole cluster: the worker a scrape reaches asks the primary, which sums
 * every worker's metrics (server/ops/clusterMetrics.ts). A persisted query registered with one worker
 * is known to all: the primary relays it (server/http/graphql/clusterPersistedQueries.ts).
 *
 * The primary restarts a worker that dies, after a delay that doubles with each death in the
 * last minute (at most 30 s); a worker that dies before the cluster first listens stops the
 * start instead, as a single process would (a bad snapshot, a port in use). SIGTERM and SIGINT
 * go to the primary, which tells every worker to drain (each as server/ops/shutdown.ts drains a
 * single process) and exits once they all have: 0 when every worker drained in time, else 1.
 * Workers ignore the signals themselves, so a signal sent to the whole process group (Ctrl-C in
 * a terminal, systemd) counts once. A second signal makes every worker exit at once, with 1.
 */

import cluster, { type Worker } from 'node:cluster';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody } from '../booking/errors.ts';
import { JSON_CONTENT_TYPE } from '../booking/operations.ts';
import { createBookingHandler, type BookingHandler } from '../booking/routes.ts';
import { aggregateWorkerMetrics } from './clusterMetrics.ts';
import { relayPersistedQueries } from '../http/graphql/clusterPersistedQueries.ts';
import type { Config } from '../config/config.ts';
import type { HttpService } from '../http/server.ts';
import { loadSnapshot, type Snapshot } from '../snapshot/load.ts';
import type { Logger } from './log.ts';
import { watchSnapshot } from '../snapshot/reload.ts';
import { resolvers } from '../resolvers/index.ts';
import { createSchema, readSdl } from '../execution/schema.ts';
import { drainThenExit } from './shutdown.ts';

/** Environment of a worker: the base URL of the primary's booking interface. */
export const BOOKING_URL_ENV = 'CLUSTER_BOOKING_URL';
/** Environment of a worker: the secret the primary's booking interface asks for. */
export const BOOKING_TOKEN_ENV = 'CLUSTER_BOOKING_TOKEN';

/** Header carrying the secret from a worker to the primary. */
const TOKEN_HEADER = 'x-cluster-booking-token';
/** Header carrying the client's address from a worker to the primary (the rate limit is per client). */
const CLIENT_HEADER = 'x-cluster-client-address';

/**
 * Hop-by-hop headers (RFC 9110, 7.6.1): they describe one connection, so they are not passed on;
 * nor is Expect, which the worker's server has already answered.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

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

/**
 * Runs the primary: the booking interface on an internal port, `config.workers` workers, their
 * restarts and the graceful shutdown. Resolves once the workers are forked; the process exits
 * when the cluster has shut down, or with 1 when it cannot start.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  aggregateWorkerMetrics();
  relayPersistedQueries({ maxBytes: config.apqCacheBytes, maxQueryBytes: config.limits.maxBodyBytes });
  const token = randomBytes(24).toString('base64url');
  let watcher: { close(): void } | undefined;
  const booking = startBooking(config, logger, (close) => (watcher = close));
  booking.catch((error: unknown) => fail(`the booking interface: ${(error as Error).message}`));
  const internal = await serveBooking(token, booking, logger);
  const bookingUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;

  const workerIds = new Set<number>();
  const listeningIds = new Set<number>();
  const crashes: number[] = [];
  let listening = false;
  let shuttingDown = false;
  let failed = false;
  let finished = false;
  let exitCode = 0;
  let killTimer: NodeJS.Timeout | undefined;

  const fork = () => workerIds.add(cluster.fork({ [BOOKING_URL_ENV]: bookingUrl, [BOOKING_TOKEN_ENV]: token }).id);
  cluster.on('online', (worker: Worker) => logger.info({ worker: worker.id, pid: worker.process.pid }, `worker ${worker.id} started`));

  cluster.on('listening', (worker: Worker, address: AddressInfo) => {
    listeningIds.add(worker.id);
    if (!listening && listeningIds.size === config.workers) {
      listening = true;
      logger.info({ workers: config.workers, port: address.port }, `${config.workers} workers listening on port ${address.port}`);
    }
  });

  cluster.on('exit', (worker: Worker, code: number | null, signal: NodeJS.Signals | null) => {
    workerIds.delete(worker.id);
    listeningIds.delete(worker.id);
    const status = signal ?? code;
    if (shuttingDown || failed) {
      if (code !== 0) exitCode = 1;
      if (workerIds.size === 0) void finish();
      return;
    }
    if (!listening) {
      fail(`worker ${worker.id} exited with ${status} before the cluster was listening`);
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (crashes.length - 1));
    logger.error({ worker: worker.id, pid: worker.process.pid, exit: status, restartInMs: delayMs }, `worker ${worker.id} exited with ${status}; restarting it in ${delayMs} ms`);
    const timer = setTimeout(() => {
      if (!shuttingDown && !failed) fork();
    }, delayMs);
    timer.unref();
  });

  // What every worker must be told, also one that only starts listening to the primary later.
  let told: PrimaryMessage | undefined;
  const send = (message: PrimaryMessage) => {
    told = message;
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected()) worker.send(message);
    }
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (message === LISTENING_TO_PRIMARY && told !== undefined && worker.isConnected()) worker.send(told);
  });

  /** Stops everything after a failed start: the workers at once, then the process with 1. */
  function fail(reason: string): void {
    if (failed) return;
    failed = true;
    exitCode = 1;
    logger.fatal(`cannot start: ${reason}`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    if (workerIds.size === 0) void finish();
  }

  async function finish(): Promise<void> {
    if (finished) return;
    finished = true;
    clearTimeout(killTimer);
    watcher?.close();
    internal.close();
    internal.closeAllConnections();
    await booking.then((handler) => handler.close()).catch(() => {});
    if (!failed) logger.info({ exitCode }, exitCode === 0 ? 'drained: every worker has exited' : 'stopped: a worker did not drain in time');
    logger.flush(() => process.exit(exitCode));
  }

  const onSignal = (signal: NodeJS.Signals) => {
    if (failed) return;
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal while draining: the workers exit now');
      exitCode = 1;
      send({ type: 'exit' });
      return;
    }
    shuttingDown = true;
    logger.info({ signal, workers: workerIds.size, graceMs: config.shutdownGraceMs }, 'draining: telling every worker to finish its requests in flight');
    if (workerIds.size === 0) {
      void finish();
      return;
    }
    send({ type: 'shutdown', signal });
    killTimer = setTimeout(() => {
      logger.warn({ workers: workerIds.size }, 'workers still running past the grace period: killing them');
      exitCode = 1;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, config.shutdownGraceMs + KILL_AFTER_GRACE_MS);
    killTimer.unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers: config.workers }, `starting ${config.workers} workers`);
  for (let i = 0; i < config.workers && !failed; i++) fork();
}

/**
 * The booking interface of the cluster, in the configured mode; in sandbox mode over the
 * activities of the snapshot, which the primary loads (that area alone) and reloads as the
 * workers do.
 */
async function startBooking(config: Config, logger: Logger, onWatch: (watcher: { close(): void }) => void): Promise<BookingHandler> {
  let snapshot: Snapshot | undefined;
  if (config.booking.mode === 'sandbox') {
    const schema = createSchema(readSdl(), resolvers);
    const areas = ['activities'] as const;
    const loaded = { snapshot: await loadSnapshot(config.dataDir, schema, { areas, readTimeoutMs: config.snapshotReadTimeoutMs }) };
    snapshot = loaded.snapshot;
    onWatch(
      watchSnapshot({
        dataDir: config.dataDir,
        schema,
        areas,
        readTimeoutMs: config.snapshotReadTimeoutMs,
        current: loaded,
        prepare: (next) => ({ snapshot: next }),
        onSwap: (next) => (snapshot = next.snapshot),
        onError: (error) => logger.error({ err: error }, `booking: new snapshot refused, still booking from ${snapshot!.version}: ${error.message}`),
      }),
    );
  }
  return createBookingHandler({
    ...config.booking,
    activities: (locale) => snapshot?.locales[locale].activities ?? [],
    allowedOrigins: config.allowedOrigins,
    logger,
  });
}

/** The primary's internal server: the booking interface, for requests with the secret only. */
async function serveBooking(token: string, booking: Promise<BookingHandler>, logger: Logger) {
  const secret = Buffer.from(token);
  const server = createServer((req, res) => {
    const presented = Buffer.from(String(req.headers[TOKEN_HEADER] ?? ''));
    if (presented.length !== secret.length || !timingSafeEqual(presented, secret)) {
      res.writeHead(403).end();
      return;
    }
    const client = req.headers[CLIENT_HEADER];
    delete req.headers[TOKEN_HEADER];
    delete req.headers[CLIENT_HEADER];
    booking.then(
      async (handler) => {
        // The booking interface limits requests per client by req.socket.remoteAddress, which on
        // this loopback hop is the worker: it gets the client's. It reads it before it first
        // awaits, so no other request on this connection can come in between.
        if (typeof client === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: client, configurable: true });
        if (!(await handler.handle(req, res))) res.writeHead(404).end();
      },
      () => res.writeHead(503).end(),
    ).catch((error: unknown) => {
      logger.error({ err: error }, 'booking: internal error');
      res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** What the HTTP layer needs of the booking interface (see HttpOptions.booking). */
export interface BookingForwarder {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A worker's booking interface: passes every `/v1` request to the primary's, with its headers
 * and body, and sends its answer back as it came (status, headers, body).
 *
 * @param baseUrl the primary's internal booking URL ({@link BOOKING_URL_ENV})
 * @param token the secret it asks for ({@link BOOKING_TOKEN_ENV})
 */
export function createBookingForwarder(baseUrl: string, token: string, logger: Logger): BookingForwarder {
  const target = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true });
  return {
    handle(req, res) {
      const url = req.url ?? '/';
      const queryStart = url.indexOf('?');
      const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
      if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return Promise.resolve(false);
      return new Promise((resolve) => {
        const headers: IncomingHttpHeaders = {};
        for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
        headers[TOKEN_HEADER] = token;
        headers[CLIENT_HEADER] = req.socket.remoteAddress ?? 'unknown';
        const upstream = request({ hostname: target.hostname, port: target.port, method: req.method, path: url, headers, agent });
        upstream.on('response', (answer) => {
          const passed: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value === undefined || HOP_BY_HOP.has(name) || name === 'date') continue;
            // The HTTP layer has set Vary: Origin already; the booking interface's adds to it.
            if (name === 'vary') res.appendHeader('Vary', value);
            else passed[name] = value;
          }
          res.writeHead(answer.statusCode ?? 502, passed);
          answer.pipe(res);
          answer.on('end', () => resolve(true));
          answer.on('error', () => {
            res.destroy();
            resolve(true);
          });
        });
        upstream.on('error', (error) => {
          logger.error({ err: error }, 'booking: the primary process did not answer');
          if (res.headersSent) res.destroy();
          else {
            const body = JSON.stringify(errorBody('INTERNAL_SERVER_ERROR', 'Internal server error'));
            res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) }).end(body);
          }
          resolve(true);
        });
        // A client that goes away takes its forwarded request with it.
        res.once('close', () => upstream.destroy());
        req.pipe(upstream);
      });
    },
    async close() {
      agent.destroy();
    },
  };
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
 * at once. Told to stop before it serves, it exits 0 at once: nothing is in flight yet. Signals
 * sent to the worker itself are ignored: the primary got them too, and decides.
 */
export function listenToPrimary(options: { graceMs: number; logger: Logger }): WorkerShutdown {
  const { logger } = options;
  const exit = (code: number) => logger.flush(() => process.exit(code));
  let service: HttpService | undefined;
  let requested: NodeJS.Signals | 'disconnect' | undefined;
  let draining = false;
  const drain = () => {
    if (draining || requested === undefined) return;
    draining = true;
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
      logger.warn({ inFlight: service?.inFlight ?? 0 }, 'told to exit now');
      exit(1);
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
