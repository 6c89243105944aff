/**
 * `/metrics` of a cluster (WORKERS > 1): one scrape reports every worker, whichever worker the
 * scrape reaches. Each worker keeps its own registry; the one a scrape reaches asks the primary,
 * the primary asks every worker for its metrics and sums them with prom-client's
 * AggregatorRegistry.aggregate, as its cluster support does
 * (https://github.com/siimon/prom-client#usage-with-nodejss-cluster-module). Without this a
 * scrape showed one worker's counters, and they jumped between workers' values.
 *
 * The messages are our own rather than prom-client's, which it would send and answer through
 * listeners it adds on first use: the primary and the workers already talk (server/ops/cluster.ts).
 * How each metric is combined is set where it is made (`aggregator`, server/ops/metrics.ts); the
 * default is the sum.
 */

import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/** Longest wait for a worker's metrics, in ms; a scrape that misses one is refused, not undercounted. */
const COLLECT_TIMEOUT_MS = 2000;

type Collected = MetricObjectWithValues<MetricValue<string>>[];

/** The kinds of metric whose values only grow, and so are kept once a worker has gone (gauges are not). */
const MONOTONIC_TYPES = new Set(['counter', 'histogram']);

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
 * Requests sent over the IPC channel that wait for their answer by id, each failed after a
 * timeout; an answer that comes later is dropped.
 */
class PendingAnswers<T> {
  readonly #waiting = new Map<number, (answer: T) => void>();
  #nextId = 0;

  /**
   * @param send sends the request with its id
   * @param late the message of the error when no answer came within `timeoutMs`
   */
  ask(send: (id: number) => void, timeoutMs: number, late: string): Promise<T> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(late));
      }, timeoutMs);
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      send(id);
    });
  }

  answer(id: number, answer: T): void {
    const settle = this.#waiting.get(id);
    this.#waiting.delete(id);
    settle?.(answer);
  }
}

/**
 * Answers the primary's requests for this worker's metrics and asks it for every worker's.
 *
 * @param registry this worker's registry, once its HTTP service exists (before that it reports
 *   nothing: it has answered nothing)
 */
export function workerMetrics(registry: () => Registry | undefined): ClusterMetrics {
  const scrapes = new PendingAnswers<ScrapeAnswer>();
  process.on('message', (message: unknown) => {
    if (isMessage<CollectRequest>(message, 'metrics:collect')) {
      const own = registry();
      void (own ? own.getMetricsAsJSON() : Promise.resolve([])).then((metrics) => {
        const answer: CollectAnswer = { type: 'metrics:collected', id: message.id, metrics: metrics as Collected };
        // Sending on a closed channel would raise an 'error' nobody handles: the primary is gone.
        if (process.connected) process.send!(answer);
      });
    } else if (isMessage<ScrapeAnswer>(message, 'metrics:scraped')) {
      scrapes.answer(message.id, message);
    }
  });
  return {
    async scrape() {
      if (!process.connected) throw new Error('the primary process is gone');
      // The primary answers within COLLECT_TIMEOUT_MS itself; this only guards against losing it.
      const answer = await scrapes.ask(
        (id) => process.send!({ type: 'metrics:scrape', id } satisfies ScrapeRequest),
        2 * COLLECT_TIMEOUT_MS,
        `the primary did not answer within ${2 * COLLECT_TIMEOUT_MS} ms`,
      );
      if (answer.text === undefined) throw new Error(answer.error ?? 'no metrics');
      return answer.text;
    },
  };
}

/**
 * The primary's side: answers every worker's scrape request with the sum of all workers' metrics.
 *
 * A restarted worker's counters start again at 0, and a sum that goes down reads to Prometheus
 * as a reset of the whole counter: `rate()` would count the other workers' totals once more. So
 * the counters and histograms a worker last sent are kept when it goes, and added to every later
 * sum; what it counted after its last collection is lost, but the sums never go down.
 */
export function aggregateWorkerMetrics(): void {
  const collections = new PendingAnswers<Collected>();
  const lastCollected = new Map<number, Collected>();
  // The counters and histograms of the workers that have gone, summed into one set.
  let retired: Promise<Collected> = Promise.resolve([]);

  // Ids are the primary's own, so only the worker asked can answer one.
  const collect = async (worker: Worker): Promise<Collected> => {
    const metrics = await collections.ask(
      (id) => worker.send({ type: 'metrics:collect', id } satisfies CollectRequest),
      COLLECT_TIMEOUT_MS,
      `worker ${worker.id} did not send its metrics within ${COLLECT_TIMEOUT_MS} ms`,
    );
    if (worker.isConnected()) lastCollected.set(worker.id, metrics);
    return metrics;
  };

  async function scrape(): Promise<string> {
    // Taken first: a worker that goes while its metrics are collected is counted once, live.
    const gone = retired;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
    const collected = await Promise.all(workers.map(collect));
    return AggregatorRegistry.aggregate([await gone, ...collected]).metrics();
  }

  // 'disconnect' rather than 'exit': from then on the worker is left out of the scrapes.
  cluster.on('disconnect', (worker: Worker) => {
    const last = lastCollected.get(worker.id);
    lastCollected.delete(worker.id);
    if (last === undefined) return;
    // prom-client types `type` as a numeric enum, but sets it to the name ('counter', …).
    const kept = last.filter((metric) => MONOTONIC_TYPES.has(String(metric.type)));
    const before = retired;
    retired = before.then((sum) => AggregatorRegistry.aggregate([sum, kept]).getMetricsAsJSON() as Promise<Collected>).catch(() => before);
  });

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (isMessage<CollectAnswer>(message, 'metrics:collected')) {
      collections.answer(message.id, message.metrics);
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
