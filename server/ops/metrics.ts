/**
 * Prometheus metrics (prom-client), served at /metrics in the text exposition format.
 *
 * Every label takes values from a bounded set, so no client can grow the registry: `route` is a
 * path the server knows, `operation` of the http_* metrics the root field of a GraphQL request,
 * `status` an HTTP status code; `operation` of `graphql_requests_total` is the operation's name
 * within the bound of server/ops/graphqlCounters.ts.
 */

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HttpMetrics } from '../http/httpOptions.ts';
import { registerGraphqlCounters, type IsTrustedOperation } from './graphqlCounters.ts';
import { createRequestHistogram } from './requestHistogram.ts';

/** What a scrape reads about the snapshot being served. */
export interface SnapshotFacts {
  readonly version: string;
  /** Per source, when its data was fetched (ms since the epoch). */
  readonly lastSyncMs: Readonly<Record<string, number>>;
}

/**
 * Creates a registry with the process metrics of prom-client (memory, CPU, event loop lag, GC)
 * and the service's own:
 * - `http_requests_total{route,operation,status}` and `http_request_duration_seconds{…}`;
 * - `graphql_query_cost`: cost of the operations executed;
 * - `snapshot_age_seconds{source}`: now minus the source's lastSync; `snapshot_info{version}` = 1;
 * - `http_cache_lookups_total{cache,result}` and `http_cache_hit_ratio{cache}` (hits / lookups
 *   since start; `etag` counts conditional requests answered 304, `apq` persisted-query hashes found);
 * - `graphql_requests_total{operation,outcome}` and `graphql_errors_total{code}` (server/ops/graphqlCounters.ts).
 *
 * @param snapshot read at each scrape
 * @param options.isTrustedOperation whether an operation name is that of a trusted document,
 *   which is always a label value of its own; default none
 */
export function createMetrics(snapshot: () => SnapshotFacts, options: { isTrustedOperation?: IsTrustedOperation } = {}): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const graphql = registerGraphqlCounters(registry, options.isTrustedOperation);

  const labelNames = ['route', 'operation', 'status'] as const;
  const duration = createRequestHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the arrival of a request to the end of its answer.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registry,
  });
  // The histogram already counts the requests per label set (its _count); the counter reads those
  // at each scrape, so a request updates one metric rather than two.
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered.',
    labelNames,
    registers: [registry],
    async collect() {
      // Read first, then reset and count in one synchronous step: two scrapes at once would
      // otherwise both reset before either counts, and count twice.
      const { values } = await duration.get();
      this.reset();
      for (const { metricName, labels, value } of values) {
        if (metricName === 'http_request_duration_seconds_count') this.inc(labels as Partial<Record<(typeof labelNames)[number], string>>, value);
      }
    },
  });
  const cost = new Histogram({
    name: 'graphql_query_cost',
    help: 'Cost of the GraphQL operations executed (fields resolved, list fields once per item).',
    buckets: [10, 100, 1000, 5000, 10_000, 25_000, 50_000, 100_000],
    registers: [registry],
  });
  const lookups = new Counter({
    name: 'http_cache_lookups_total',
    help: 'Cache lookups: etag = conditional GraphQL requests (hit: 304), apq = persisted-query hashes (hit: found).',
    labelNames: ['cache', 'result'] as const,
    registers: [registry],
  });
  const tally = { etag: { hits: 0, total: 0 }, apq: { hits: 0, total: 0 } };
  new Gauge({
    name: 'http_cache_hit_ratio',
    help: 'Hits divided by lookups since the start, per cache (0 before the first lookup); with several workers, the mean of theirs.',
    labelNames: ['cache'] as const,
    registers: [registry],
    aggregator: 'average',
    collect() {
      for (const [name, { hits, total }] of Object.entries(tally)) this.set({ cache: name }, total === 0 ? 0 : hits / total);
    },
  });
  new Gauge({
    name: 'snapshot_age_seconds',
    help: 'Seconds since the data of each source was fetched (its lastSync); with several workers, the oldest.',
    labelNames: ['source'] as const,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      const now = Date.now();
      for (const [source, lastSyncMs] of Object.entries(snapshot().lastSyncMs)) this.set({ source }, (now - lastSyncMs) / 1000);
    },
  });
  new Gauge({
    name: 'snapshot_info',
    help: 'The snapshot being served, as a label; always 1 (one series per version while workers differ).',
    labelNames: ['version'] as const,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      this.set({ version: snapshot().version }, 1);
    },
  });

  return {
    registry,
    observeRequest(route, operation, status, durationS) {
      duration.observe(route, operation, status, durationS);
    },
    observeGraphql(operationName, outcome, codes) {
      graphql.observe(operationName, outcome, codes);
    },
    observeCache(cache, hit) {
      lookups.inc({ cache, result: hit ? 'hit' : 'miss' });
      tally[cache].total++;
      if (hit) tally[cache].hits++;
    },
    observeCost(value) {
      cost.observe(value);
    },
  };
}
