/**
 * The server's single entry: load the snapshot → build the indexes → wire the schema → listen.
 * `npm start` runs this file; tests start the same server through {@link startServer}. With
 * WORKERS above 1 it is the primary of a cluster (server/ops/cluster.ts): it builds the booking
 * interface the workers share (server/booking/forwarder.ts) and hands it to the supervisor, and
 * each worker it forks runs this file again to serve.
 */

import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tracer } from '@opentelemetry/api';
import type { GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import { createBookingForwarder, serveBookingToWorkers } from './booking/forwarder.ts';
import { OPENAPI_PATH } from './booking/operations.ts';
import { createBookingHandler, type BookingHandler } from './booking/routes.ts';
import { type ClusterMetrics, workerMetrics } from './ops/clusterMetrics.ts';
import { listenToPrimary, runPrimary } from './ops/cluster.ts';
import { workerPersistedQueries } from './http/graphql/clusterPersistedQueries.ts';
import { type Config, ConfigError, type PullConfig, readConfig } from './config/config.ts';
import { createHttpService, type HttpService } from './http/server.ts';
import { checkPortFree } from './http/checkPort.ts';
import { loadSnapshot, SnapshotError, type Snapshot } from './snapshot/load.ts';
import { createLogger, type Logger } from './ops/log.ts';
import { createMetrics } from './ops/metrics.ts';
import type { PersistedQueryRelay } from './http/graphql/persistedQueries.ts';
import { type SnapshotWatcher, watchSnapshot } from './snapshot/reload.ts';
import { workerReloadTurn } from './ops/reloadTurns.ts';
import { resolvers } from './resolvers/index.ts';
import { sampleQueries } from './ops/sampleQueries.ts';
import { createSchema, readSdl } from './execution/schema.ts';
import { createDocumentChecker } from './execution/limits.ts';
import { ManifestError } from './http/graphql/trustedDocuments/readManifest.ts';
import { watchTrustedDocuments, type WatchedTrustedDocuments } from './http/graphql/trustedDocuments/watchTrustedDocuments.ts';
import { handleShutdownSignals } from './ops/shutdown.ts';
import { SnapshotHolder } from './http/snapshotHolder.ts';
import { createStatusReporter } from './ops/status.ts';
import { createStore } from './snapshot/store.ts';
import { createSnapshotPuller, type SnapshotPuller } from './snapshot/pull/snapshotPuller.ts';
import { PullError } from './snapshot/pull/pullError.ts';
import { createRequestSpans } from './ops/tracing/requestSpans.ts';
import { logExportFailures, stopTracingWithin } from './ops/tracing/tracingLog.ts';
import { startTracing, TracingSettingError } from '../tracing/startTracing.ts';

/** The `service.name` of the server's spans unless OTEL_SERVICE_NAME says otherwise. */
export const SERVICE_NAME = 'tourism-content-query-service';

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
 * @param options.reloadTurn in a cluster worker, waits for this worker's turn to reload a new
 *   snapshot (watchSnapshot's `turn`)
 * @param options.tracer when tracing is on (tracing/startTracing.ts): a span per request, per
 *   GraphQL operation and per booking partner call
 * @param options.clock ms since the epoch: the day answers are worked out against (Europe/Zurich;
 *   an activity's next available date) and the booking sandbox's time; default Date.now
 * @throws SnapshotError when the snapshot is missing or broken; ConfigError when a manifest of
 *   trusted documents is (naming the file and the operation); Error when the SDL and the
 *   resolvers disagree or the port cannot be bound
 */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: {
    booking?: MountedBooking;
    clusterMetrics?: ClusterMetrics;
    persistedQueries?: PersistedQueryRelay;
    reloadTurn?: () => Promise<() => void>;
    tracer?: Tracer;
    clock?: () => number;
  } = {},
): Promise<RunningServer> {
  const sdl = readSdl();
  const schema = createSchema(sdl, resolvers);
  // Before the snapshot, which takes far longer: a bad manifest stops the start at once.
  const trustedDocuments = await watchServedTrustedDocuments(config, schema, logger);
  const startedAt = performance.now();
  let holder: SnapshotHolder | undefined;
  const puller = config.pull ? createPuller(config, config.pull, logger, () => holder?.store.snapshot.version ?? null) : undefined;
  let fromCache = false;
  try {
    const load = () => loadSnapshot(config.dataDir, schema, { readTimeoutMs: config.snapshotReadTimeoutMs, maxFileBytes: config.snapshotMaxFileBytes });
    let snapshot: Snapshot;
    if (puller) ({ snapshot, fromCache } = await loadCachedOrPulled(config.dataDir, load, puller, logger));
    else snapshot = await load();
    holder = new SnapshotHolder(createStore(snapshot), options.clock, config.terms);
  } catch (error) {
    trustedDocuments?.close();
    await puller?.close();
    throw error;
  }
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
      tracer: options.tracer,
      clock: options.clock,
    }));

  const startedAtMs = Date.now();
  const service = createHttpService({
    booking: booking.handle,
    bookingDocument: config.booking.mode === 'off' ? undefined : OPENAPI_PATH,
    metrics: createMetrics(() => holder.served, {
      pull: puller && (() => puller.status()),
      // Trusted documents' names are label values of their own, beside the first ones seen.
      isTrustedOperation: trustedDocuments ? (name) => trustedDocuments.names().has(name) : undefined,
    }),
    clusterMetrics: options.clusterMetrics,
    persistedQueries: options.persistedQueries,
    trustedDocuments,
    trustedProxies: config.booking.trustedProxies,
    tracing: options.tracer && createRequestSpans(options.tracer),
    schema,
    sdl,
    snapshot: () => holder.served,
    sampleQueries: () => sampleQueries(holder.store),
    status: createStatusReporter({
      schema,
      store: () => holder.store,
      samples: sampleQueries,
      startedAtMs,
      pull: puller && (() => puller.status()),
    }),
    config,
    logger,
  });
  const { server } = service;
  const watcher = watchServedSnapshot(config, schema, holder, logger, options.reloadTurn);
  server.once('close', () => {
    watcher.close();
    void puller?.close();
    trustedDocuments?.close();
    void booking.close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Served from the cache, the origin is asked at once whether a newer version is there; just
  // pulled, it is asked again after an interval.
  puller?.start({ now: fromCache });
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
      const tracing = await startTracing(SERVICE_NAME, { onExportFailures: logExportFailures(logger) });
      const primary = listenToPrimary({ graceMs: config.shutdownGraceMs, logger, beforeExit: tracing ? stopTracingWithin(tracing, logger) : undefined });
      const persistedQueries = config.apqCacheBytes > 0 ? workerPersistedQueries() : undefined;
      const booking = createBookingForwarder(process.env, logger, config.allowedOrigins);
      let registry: Registry | undefined;
      const clusterMetrics = workerMetrics(() => registry);
      const reloadTurn = workerReloadTurn();
      const running = await startServer(config, logger, { booking, clusterMetrics, persistedQueries, reloadTurn, tracer: tracing?.tracer });
      registry = running.service.metrics.registry;
      logListening(running);
      primary.serve(running.service);
    } else if (config.workers > 1) {
      await checkPortFree(config.port, config.host);
      await startPrimary(config, logger);
    } else {
      await checkPortFree(config.port, config.host);
      const tracing = await startTracing(SERVICE_NAME, { onExportFailures: logExportFailures(logger) });
      const running = await startServer(config, logger, { tracer: tracing?.tracer });
      logListening(running);
      handleShutdownSignals(running.service, { graceMs: config.shutdownGraceMs, logger, beforeExit: tracing ? stopTracingWithin(tracing, logger) : undefined });
    }
  } catch (error) {
    // A bad snapshot or setting is the operator's to fix: say what, without a stack trace.
    const expected = error instanceof SnapshotError || error instanceof ConfigError || error instanceof TracingSettingError;
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

/**
 * Hot reload: a newly committed snapshot is loaded and indexed beside the one being served, then
 * swapped in; a broken one is refused and the current one keeps serving. With `turn`, the load
 * waits for it, and its start and end are logged at info so that operators see the turns.
 */
function watchServedSnapshot(config: Config, schema: GraphQLSchema, holder: SnapshotHolder, logger: Logger, turn?: () => Promise<() => void>): SnapshotWatcher {
  const served = () => holder.store.snapshot.version;
  const loggedTurn = async () => {
    const release = await turn!();
    logger.info({ serving: served() }, `snapshot reload started (serving ${served()} meanwhile)`);
    return () => {
      // Logged before the turn goes to the next worker, so the log shows the reloads in order.
      logger.info({ snapshot: served() }, `snapshot reload finished: serving ${served()}`);
      release();
    };
  };
  return watchSnapshot({
    dataDir: config.dataDir,
    schema,
    readTimeoutMs: config.snapshotReadTimeoutMs, maxFileBytes: config.snapshotMaxFileBytes,
    current: holder.store,
    turn: turn && loggedTurn,
    onSwap: (store, { ms, files, longestDelayMs }) => {
      holder.replace(store);
      logger.info(
        { snapshot: store.snapshot.version, ms: Math.round(ms), longestDelayMs: Math.round(longestDelayMs), files: files.total, filesKept: files.kept },
        `serving new snapshot ${store.snapshot.version}: reload done in ${Math.round(ms)} ms, longest event-loop delay ${Math.round(longestDelayMs)} ms; ` +
          `${files.total - files.kept} of ${files.total} files loaded, the others unchanged (their records and indexes kept)`,
      );
    },
    onError: (error) => logger.error({ err: error }, `new snapshot refused, still serving ${holder.store.snapshot.version}: ${error.message}`),
  });
}

/** The puller of pull mode (SNAPSHOT_URL), logging each new version it pulls and each failure with its cause. */
function createPuller(config: Config, pull: PullConfig, logger: Logger, served: () => string | null): SnapshotPuller {
  return createSnapshotPuller({
    origin: pull.origin,
    dataDir: config.dataDir,
    pollS: pull.pollS,
    fetchTimeoutMs: pull.fetchTimeoutMs,
    maxFileBytes: config.snapshotMaxFileBytes,
    publicKeys: pull.publicKeys,
    served,
    onPulled: ({ version, fetched, reused, bytes }) =>
      logger.info({ origin: pull.origin.href, version, filesFetched: fetched, filesReused: reused, bytes }, `pulled snapshot ${version} from ${pull.origin.href}: ${fetched} files fetched, ${reused} unchanged kept`),
    onFailure: (error) => {
      const current = served();
      logger.error({ origin: pull.origin.href, reason: error.reason, err: error }, `snapshot pull failed (${error.reason}): ${error.message}; ${current ? `still serving ${current}` : 'nothing served yet'}`);
    },
  });
}

/**
 * The snapshot pull mode starts on: the cache's (DATA_DIR) at once when it has one that loads,
 * else the origin's, asked again after each interval until it gives one.
 *
 * @throws what `load` throws other than a SnapshotError
 */
async function loadCachedOrPulled(dataDir: string, load: () => Promise<Snapshot>, puller: SnapshotPuller, logger: Logger): Promise<{ snapshot: Snapshot; fromCache: boolean }> {
  const tryLoad = async (what: string): Promise<Snapshot | null> => {
    try {
      return await load();
    } catch (error) {
      if (!(error instanceof SnapshotError)) throw error;
      logger.error({ err: error, dataDir }, `${what} refused: ${error.message}`);
      return null;
    }
  };
  const cached = existsSync(path.join(dataDir, 'manifest.json')) ? await tryLoad('cached snapshot') : null;
  if (cached) return { snapshot: cached, fromCache: true };
  for (;;) {
    const result = await puller.pullOnce();
    const pulled = result instanceof PullError ? null : await tryLoad('pulled snapshot');
    if (pulled) return { snapshot: pulled, fromCache: false };
    logger.warn({ origin: puller.status().origin }, `no snapshot to serve yet: asking the origin again in about ${puller.status().pollS} s`);
    await puller.wait();
  }
}

/**
 * The trusted documents of PERSISTED_DOCUMENTS, following their files; undefined when there are
 * none. Each process (each worker of a cluster) loads and checks them itself, as it loads the
 * snapshot.
 *
 * @throws ConfigError naming the file and the operation when a manifest cannot be used
 */
async function watchServedTrustedDocuments(config: Config, schema: GraphQLSchema, logger: Logger): Promise<WatchedTrustedDocuments | undefined> {
  const { files } = config.trustedDocuments;
  if (files.length === 0) return undefined;
  try {
    const documents = await watchTrustedDocuments({
      files,
      check: createDocumentChecker(schema, config.limits, { introspection: config.introspection }),
      onReload: (next) => logger.info({ files, documents: next.size }, `trusted documents reloaded: ${next.size} documents`),
      onError: (error) => logger.error({ err: error, files }, `trusted documents not reloaded, still serving the previous ones: ${error.message}`),
    });
    logger.info({ files, documents: documents.size }, `trusted documents loaded: ${documents.size} documents${config.trustedDocuments.only ? ', the only ones answered' : ''}`);
    return documents;
  } catch (error) {
    if (error instanceof ManifestError) throw new ConfigError(`PERSISTED_DOCUMENTS: ${error.message}`);
    throw error;
  }
}

/**
 * The primary of a cluster: the one booking interface its workers share, served to them on an
 * internal port, then the supervisor of the workers. With tracing on, its partner calls are
 * traced, and their spans exported before it exits.
 */
async function startPrimary(config: Config, logger: Logger): Promise<void> {
  const tracing = await startTracing(SERVICE_NAME, { onExportFailures: logExportFailures(logger) });
  const stopTracing = tracing && stopTracingWithin(tracing, logger);
  const booking = startSharedBooking(config, logger, tracing?.tracer);
  const shared = await serveBookingToWorkers(booking.handler, logger);
  runPrimary(config, logger, {
    workerEnv: shared.workerEnv,
    started: booking.handler.catch((error: unknown) => {
      throw new Error(`the booking interface: ${(error as Error).message}`);
    }),
    async close(leftMs) {
      const closedAt = performance.now();
      shared.close();
      await booking.close();
      await stopTracing?.(Math.max(0, leftMs - (performance.now() - closedAt)));
    },
  });
}

/**
 * The booking interface of a cluster's primary, in the configured mode; in sandbox mode over the
 * activities of the snapshot, which the primary loads (that area alone) and reloads as the
 * workers do, without waiting for a turn: it indexes nothing.
 */
function startSharedBooking(config: Config, logger: Logger, tracer: Tracer | undefined): { handler: Promise<BookingHandler>; close(): Promise<void> } {
  let snapshot: Snapshot | undefined;
  let watcher: SnapshotWatcher | undefined;
  const handler = (async () => {
    if (config.booking.mode === 'sandbox') {
      const schema = createSchema(readSdl(), resolvers);
      const areas = ['activities'] as const;
      const loaded = { snapshot: await loadSnapshot(config.dataDir, schema, { areas, readTimeoutMs: config.snapshotReadTimeoutMs, maxFileBytes: config.snapshotMaxFileBytes }) };
      snapshot = loaded.snapshot;
      watcher = watchSnapshot({
        dataDir: config.dataDir,
        schema,
        areas,
        readTimeoutMs: config.snapshotReadTimeoutMs, maxFileBytes: config.snapshotMaxFileBytes,
        current: loaded,
        prepare: (next) => ({ snapshot: next }),
        onSwap: (next) => (snapshot = next.snapshot),
        onError: (error) => logger.error({ err: error }, `booking: new snapshot refused, still booking from ${snapshot!.version}: ${error.message}`),
      });
    }
    return createBookingHandler({
      ...config.booking,
      activities: (locale) => snapshot?.locales[locale].activities ?? [],
      allowedOrigins: config.allowedOrigins,
      logger,
      tracer,
    });
  })();
  return {
    handler,
    async close() {
      watcher?.close();
      await handler.then((booking) => booking.close()).catch(() => {});
    },
  };
}
