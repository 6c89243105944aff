/**
 * The server's single entry: load the snapshot → build the indexes → wire the schema → listen.
 * `npm start` runs this file; tests start the same server through {@link startServer}. With
 * WORKERS above 1 it is the primary of a cluster (server/ops/cluster.ts), and each worker it forks
 * runs this file again to serve.
 */

import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Registry } from 'prom-client';
import { createBookingHandler } from './booking/routes.ts';
import { type ClusterMetrics, workerMetrics } from './ops/clusterMetrics.ts';
import { BOOKING_TOKEN_ENV, BOOKING_URL_ENV, createBookingForwarder, listenToPrimary, runPrimary } from './ops/cluster.ts';
import { workerPersistedQueries } from './http/graphql/clusterPersistedQueries.ts';
import { type Config, ConfigError, readConfig } from './config/config.ts';
import { createHttpService, type HttpService } from './http/server.ts';
import { loadSnapshot, SnapshotError } from './snapshot/load.ts';
import { createLogger, type Logger } from './ops/log.ts';
import type { PersistedQueryRelay } from './http/graphql/persistedQueries.ts';
import { watchSnapshot } from './snapshot/reload.ts';
import { resolvers } from './resolvers/index.ts';
import { sampleQueries } from './ops/sampleQueries.ts';
import { createSchema, readSdl } from './execution/schema.ts';
import { handleShutdownSignals } from './ops/shutdown.ts';
import { SnapshotHolder } from './http/snapshotHolder.ts';
import { createStatusReporter } from './ops/status.ts';
import { createStore } from './snapshot/store.ts';

export interface RunningServer {
  readonly server: Server;
  /** The HTTP layer: metrics, draining, requests in flight. */
  readonly service: HttpService;
  /** The store being served; replace it to serve another snapshot. */
  readonly holder: SnapshotHolder;
  readonly logger: Logger;
  /** Base URL, e.g. `http://127.0.0.1:4000`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The booking interface as the HTTP layer mounts it (server/booking/routes.ts, or a cluster worker's forwarder). */
export interface MountedBooking {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Loads the snapshot in `config.dataDir`, builds its indexes and starts listening.
 *
 * @param logger where the JSON logs go; default a new one on stdout at `config.logLevel`
 * @param options.booking the booking interface to mount at /v1; default one of this process, in
 *   the mode of `config.booking`
 * @param options.clusterMetrics in a cluster worker, where `/metrics` gets every worker's metrics
 * @param options.persistedQueries in a cluster worker, what shares persisted queries with the others
 * @throws SnapshotError when the snapshot is missing or broken; Error when the SDL and the
 *   resolvers disagree or the port cannot be bound
 */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: { booking?: MountedBooking; clusterMetrics?: ClusterMetrics; persistedQueries?: PersistedQueryRelay } = {},
): Promise<RunningServer> {
  const sdl = readSdl();
  const schema = createSchema(sdl, resolvers);
  const startedAt = performance.now();
  const holder = new SnapshotHolder(createStore(await loadSnapshot(config.dataDir, schema, { readTimeoutMs: config.snapshotReadTimeoutMs })));
  const counts = Object.fromEntries(Object.entries(holder.store.locales['de-CH']).map(([area, { records }]) => [area, records.length]));
  logger.info(
    { snapshot: holder.store.snapshot.version, dataDir: path.resolve(config.dataDir), ms: Math.round(performance.now() - startedAt), counts },
    'snapshot loaded and indexed (counts: de-CH)',
  );

  const booking =
    options.booking ??
    (await createBookingHandler({
      ...config.booking,
      activities: (locale) => holder.store.locales[locale].activities.records,
      allowedOrigins: config.allowedOrigins,
      logger,
    }));

  const startedAtMs = Date.now();
  const service = createHttpService({
    booking: booking.handle,
    clusterMetrics: options.clusterMetrics,
    persistedQueries: options.persistedQueries,
    trustedProxies: config.booking.trustedProxies,
    schema,
    sdl,
    snapshot: () => holder.served,
    sampleQueries: () => sampleQueries(holder.store),
    status: createStatusReporter({
      schema,
      store: () => holder.store,
      samples: sampleQueries,
      startedAtMs,
    }),
    config,
    logger,
  });
  const { server } = service;
  // Hot reload: a newly committed snapshot is loaded and indexed beside the one being served,
  // then swapped in; a broken one is refused and the current one keeps serving.
  const watcher = watchSnapshot({
    dataDir: config.dataDir,
    schema,
    readTimeoutMs: config.snapshotReadTimeoutMs,
    current: holder.store,
    onSwap: (store, { ms, longestDelayMs }) => {
      holder.replace(store);
      logger.info(
        { snapshot: store.snapshot.version, ms: Math.round(ms), longestDelayMs: Math.round(longestDelayMs) },
        `serving new snapshot ${store.snapshot.version}: reload done in ${Math.round(ms)} ms, longest event-loop delay ${Math.round(longestDelayMs)} ms`,
      );
    },
    onError: (error) => logger.error({ err: error }, `new snapshot refused, still serving ${holder.store.snapshot.version}: ${error.message}`),
  });
  server.once('close', () => {
    watcher.close();
    void booking.close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    server,
    service,
    holder,
    logger,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Until the configuration is read, report at info level.
  let logger = createLogger('info');
  try {
    const config = readConfig();
    logger = createLogger(config.logLevel);
    if (cluster.isWorker) {
      logger = logger.child({ worker: cluster.worker!.id });
      const primary = listenToPrimary({ graceMs: config.shutdownGraceMs, logger });
      const persistedQueries = config.apqCacheBytes > 0 ? workerPersistedQueries() : undefined;
      const booking = createBookingForwarder(process.env[BOOKING_URL_ENV]!, process.env[BOOKING_TOKEN_ENV]!, logger);
      let registry: Registry | undefined;
      const clusterMetrics = workerMetrics(() => registry);
      const running = await startServer(config, logger, { booking, clusterMetrics, persistedQueries });
      registry = running.service.metrics.registry;
      logListening(running);
      primary.serve(running.service);
    } else if (config.workers > 1) {
      await runPrimary(config, logger);
    } else {
      const running = await startServer(config, logger);
      logListening(running);
      handleShutdownSignals(running.service, { graceMs: config.shutdownGraceMs, logger });
    }
  } catch (error) {
    // A bad snapshot or setting is the operator's to fix: say what, without a stack trace.
    const expected = error instanceof SnapshotError || error instanceof ConfigError;
    if (expected) logger.fatal(`cannot start: ${(error as Error).message}`);
    else logger.fatal({ err: error }, 'cannot start');
    logger.flush(() => process.exit(1));
  }
}

function logListening(running: RunningServer): void {
  const { port } = running.server.address() as AddressInfo;
  running.logger.info(
    { url: running.url, port, playground: `${running.url}/api/graphql`, status: `${running.url}/` },
    `listening on ${running.url}: GraphQL API and playground at /api/graphql, status at /`,
  );
}
