/**
 * What the GraphQL route counts, declared here so that the route depends on no metrics library
 * of ops/: server/ops/metrics.ts implements it, and the service hands it down.
 */

import { Counter, Gauge, type Registry } from 'prom-client';
import type { Engine } from '../../execution/engine.ts';
import type { RecordBytesCache } from '../../execution/json/recordBytesCache.ts';
import type { KnownBodies } from './knownBodies.ts';
import type { ResponseCache } from './responseCache.ts';

/** The counters the GraphQL route feeds. */
export interface GraphqlMetrics {
  /** Where the route registers the metrics it reads at each scrape ({@link registerCacheMetrics}). */
  readonly registry: Registry;
  /** Records a lookup in a cache: `etag` (a conditional request) or `apq` (a persisted query). */
  observeCache(cache: 'etag' | 'apq', hit: boolean): void;
  /** Records the cost of an operation that passed the limits (see server/execution/limits.ts). */
  observeCost(cost: number): void;
}

/** Counts of the response cache's lookups, read by the metrics at each scrape. */
export interface LookupTally {
  hits: number;
  misses: number;
}

/**
 * Registers the caches' metrics; they read the caches at each scrape, so a request only bumps a
 * number: `graphql_response_cache_lookups_total{result}`, `graphql_response_cache_bytes`,
 * `graphql_record_cache_bytes`, `graphql_known_bodies_bytes` and `graphql_operation_cache_entries`.
 * @returns the tally a request bumps on each lookup in the response cache
 */
export function registerCacheMetrics(
  metrics: GraphqlMetrics,
  engine: Engine,
  responses: ResponseCache | null,
  records: RecordBytesCache | null,
  bodies: KnownBodies,
): LookupTally {
  const tally: LookupTally = { hits: 0, misses: 0 };
  const reported: LookupTally = { hits: 0, misses: 0 };
  const registers = [metrics.registry];
  new Counter({
    name: 'graphql_response_cache_lookups_total',
    help: 'Lookups in the response cache of GraphQL answers (hit: answered from it).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      for (const result of ['hits', 'misses'] as const) {
        this.inc({ result: result === 'hits' ? 'hit' : 'miss' }, tally[result] - reported[result]);
        reported[result] = tally[result];
      }
    },
  });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('graphql_response_cache_bytes', 'Bytes held by the response cache (0 when it is turned off).', () => responses?.bytes ?? 0);
  gauge('graphql_record_cache_bytes', 'Bytes held by the record bytes cache (0 when it is turned off).', () => records?.bytes ?? 0);
  gauge('graphql_known_bodies_bytes', 'Bytes of the POST bodies whose parsed parameters are kept, to skip parsing them again.', () => bodies.bytes);
  gauge('graphql_operation_cache_entries', 'Checked operations held by the operation cache.', () => engine.size);
  return tally;
}
