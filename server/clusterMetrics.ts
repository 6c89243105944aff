/**
 * `/metrics` of a cluster (WORKERS > 1): one scrape reports every worker, whichever worker the
 * scrape reaches. Each worker keeps its own registry; the one a scrape reaches asks the primary,
 * the primary asks every worker for its metrics and sums them with prom-client's
 * AggregatorRegistry.aggregate, as its cluster support does
 * (https://github.com/siimon/prom-client#usage-with-nodejss-cluster-module). Without this a
 * scrape showed one worker's counters, and they jumped between workers' values.
 *
 * The messages are our own rather than prom-client's, which it would send and answer through
 * listeners it adds on first use: the primary and the workers already talk (server/cluster.ts).
 * How each metric is combined is set where it is made (`aggregator`, server/metrics.ts); the
 * default is the sum.
 */

import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/** Longest wait for a worker's metrics, in ms; a scrape that misses one is refused, not undercounted. */
const COLLECT_TIMEOUT_MS = 2000;

type Collected = MetricObjectWithValues<MetricValue<string>>[];

/** From a worker to the primary: report every worker's metrics. */
interface ScrapeRequest {
  type: 'metrics:scrape';
  id: number;
}
/** From the primary to the worker that asked. */
interface ScrapeAnswer {
  type: 'metrics:scraped';
  id: number;
  text?: string;
  error?: string;
}
/** From the primary to every worker: send your metrics. */
interface CollectRequest {
  type: 'metrics:collect';
  id: number;
}
/** From a worker to the primary. */
interface CollectAnswer {
  type: 'metrics:collected';
  id: number;
  metrics: Collected;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** A worker's side: what the `/metrics` route calls instead of reading its own registry. */
export interface ClusterMetrics {
  /**
   * The metrics of every worker, in the Prometheus text format.
   * @throws Error when the primary or a worker does not answer in time
   */
  scrape(): Promise<string>;
}

/**
 * Answers the primary's requests for this worker's metrics and asks it for every worker's.
 *
 * @param registry this worker's registry, once its HTTP service exists (before that it reports
 *   nothing: it has answered nothing)
 */
export function workerMetrics(registry: () => Registry | undefined): ClusterMetrics {
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (isMessage<CollectRequest>(message, 'metrics:collect')) {
      const own = registry();
      void (own ? own.getMetricsAsJSON() : Promise.resolve([])).then((metrics) => {
        const answer: CollectAnswer = { type: 'metrics:collected', id: message.id, metrics: metrics as Collected };
        // Sending on a closed channel would raise an 'error' nobody handles: the primary is gone.
        if (process.connected) process.send!(answer);
      });
    } else if (isMessage<ScrapeAnswer>(message, 'metrics:scraped')) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.text !== undefined) waiting?.resolve(message.text);
      else waiting?.reject(new Error(message.error ?? 'no metrics'));
    }
  });
  return {
    scrape() {
      if (!process.connected) return Promise.reject(new Error('the primary process is gone'));
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        // The primary answers within COLLECT_TIMEOUT_MS itself; this only guards against losing it.
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`the primary did not answer within ${2 * COLLECT_TIMEOUT_MS} ms`));
        }, 2 * COLLECT_TIMEOUT_MS);
        pending.set(id, {
          resolve: (text) => (clearTimeout(timer), resolve(text)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
        const request: ScrapeRequest = { type: 'metrics:scrape', id };
        process.send!(request);
      });
    },
  };
}

/** The primary's side: answers every worker's scrape request with the sum of all workers' metrics. */
export function aggregateWorkerMetrics(): void {
  const waiting = new Map<number, { worker: Worker; resolve: (metrics: Collected) => void }>();
  let nextId = 0;

  function collect(worker: Worker): Promise<Collected> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`worker ${worker.id} did not send its metrics within ${COLLECT_TIMEOUT_MS} ms`));
      }, COLLECT_TIMEOUT_MS);
      waiting.set(id, { worker, resolve: (metrics) => (clearTimeout(timer), resolve(metrics)) });
      const request: CollectRequest = { type: 'metrics:collect', id };
      worker.send(request);
    });
  }

  async function scrape(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
    const collected = await Promise.all(workers.map(collect));
    return AggregatorRegistry.aggregate(collected).metrics();
  }

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (isMessage<CollectAnswer>(message, 'metrics:collected')) {
      const entry = waiting.get(message.id);
      if (entry?.worker === worker) {
        waiting.delete(message.id);
        entry.resolve(message.metrics);
      }
    } else if (isMessage<ScrapeRequest>(message, 'metrics:scrape')) {
      const reply = (answer: Omit<ScrapeAnswer, 'type' | 'id'>) => {
        if (worker.isConnected()) worker.send({ type: 'metrics:scraped', id: message.id, ...answer } satisfies ScrapeAnswer);
      };
      scrape().then(
        (text) => reply({ text }),
        (error: Error) => reply({ error: error.message }),
      );
    }
  });
}
