/**
 * Prometheus metrics (prom-client), served at /metrics in the text exposition format.
 *
 * Every label takes values from a bounded set, so no client can grow the registry: `route` is a
 * path the server knows, `root_field` of the http_* metrics the root field of a GraphQL request
 * (also as `operation`, the label's name before, for existing dashboards), `status` an HTTP
 * status code; `operation` of `graphql_requests_total` is the operation's name within the bound
 * of server/ops/graphqlCounters.ts.
 */

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HttpMetrics } from '../http/httpOptions.ts';
import type { PullStatus } from '../snapshot/pull/snapshotPuller.ts';
import { registerGraphqlCounters, type IsTrustedOperation } from './graphqlCounters.ts';
import { createRequestHistogram } from './requestHistogram.ts';

/** What a scrape reads about the snapshot being served. */
export interface SnapshotFacts {
  readonly version: string;
  /** Whether it is a fixture snapshot (its manifest's `fixture`): generated data, dated once, never expiring. */
  readonly fixture?: boolean;
  /** Per source, when its data was fetched (ms since the epoch). */
  readonly lastSyncMs: Readonly<Record<string, number>>;
}

/**
 * Creates a registry with the process metrics of prom-client (memory, CPU, event loop lag, GC)
 * and the service's own:
 * - `http_requests_total{route,root_field,status}` and `http_request_duration_seconds{…}`;
 * - `graphql_query_cost`: cost of the operations executed;
 * - `snapshot_age_seconds{source,fixture}`: now minus the source's lastSync, `fixture="true"` for a
 *   fixture snapshot, whose data never expires; `snapshot_info{version}` = 1;
 * - in pull mode, `snapshot_pull_failures_total{reason}` and `snapshot_pull_last_success_timestamp_seconds`;
 * - `http_cache_lookups_total{cache,result}` and `http_cache_hit_ratio{cache}` (hits / lookups
 *   since start; `etag` counts conditional requests answered 304, `apq` persisted-query hashes found);
 * - `graphql_requests_total{operation,outcome}` and `graphql_errors_total{code}` (server/ops/graphqlCounters.ts).
 *
 * @param snapshot read at each scrape
 * @param options.isTrustedOperation whether an operation name is that of a trusted document,
 *   which is always a label value of its own; default none
 * @param options.pull in pull mode, the puller's state, read at each scrape
 */
export function createMetrics(snapshot: () => SnapshotFacts, options: { isTrustedOperation?: IsTrustedOperation; pull?: () => PullStatus } = {}): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const graphql = registerGraphqlCounters(registry, options.isTrustedOperation);

  const labelNames = ['route', 'root_field', 'operation', 'status'] as const;
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
    help: 'Seconds since the data of each source was fetched (its lastSync); with several workers, the oldest. fixture="true": a fixture snapshot, dated once and never stale, which a staleness alert leaves out.',
    labelNames: ['source', 'fixture'] as const,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      const now = Date.now();
      const { lastSyncMs, fixture } = snapshot();
      for (const [source, syncMs] of Object.entries(lastSyncMs)) this.set({ source, fixture: String(fixture === true) }, (now - syncMs) / 1000);
    },
  });
  if (options.pull) {
    const pull = options.pull;
    new Counter({
      name: 'snapshot_pull_failures_total',
      help: 'Pull mode: pulls from the origin that failed, by reason; the served snapshot stayed each time.',
      labelNames: ['reason'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, count] of Object.entries(pull().failures)) this.inc({ reason }, count);
      },
    });
    new Gauge({
      name: 'snapshot_pull_last_success_timestamp_seconds',
      help: 'Pull mode: when the origin last answered a poll (seconds since the epoch); 0 before.',
      registers: [registry],
      collect() {
        this.set((pull().lastSuccessMs ?? 0) / 1000);
      },
    });
  }
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
