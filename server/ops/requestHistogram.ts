/**
 * A Prometheus histogram with the labels `route`, `root_field` and `status`, for the one metric
 * every request updates (`http_request_duration_seconds`, server/ops/metrics.ts). `operation`
 * repeats `root_field`, its name before, so that dashboards written against it keep working; it
 * adds no series.
 *
 * prom-client's Histogram validates the labels of each observation and joins them into a key on
 * every request, a cost a cached answer notices. Here a series is found by the label values the
 * caller already holds, through one map per label. The registry
 * reads it as it reads prom-client's metrics (`get()`, the values in the shape a Histogram gives
 * them), so the text format and the sum over a cluster's workers (AggregatorRegistry) are
 * prom-client's; prom-client's own AggregatorRegistry registers such plain metric objects too.
 */

import type { Metric, MetricValue, Registry } from 'prom-client';

type Label = 'route' | 'root_field' | 'operation' | 'status';

type HistogramValue = MetricValue<string> & { metricName: string };

/** One series: the observations per bucket (not cumulative; the last is above every bound), their sum and count. */
interface Series {
  readonly labels: Readonly<Record<Label, string>>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export interface RequestHistogram {
  observe(route: string, operation: string, status: number, value: number): void;
  /** The series as prom-client's Histogram gives them (for the registry, and for http_requests_total). */
  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramValue[] }>;
}

/**
 * Creates the histogram and registers it.
 * @param buckets upper bounds, ascending
 */
export function createRequestHistogram(options: { name: string; help: string; buckets: readonly number[]; registry: Registry }): RequestHistogram {
  const { name, help, buckets } = options;
  const byRoute = new Map<string, Map<string, Map<number, Series>>>();

  const histogram = {
    name,
    help,
    type: 'histogram' as const,
    aggregator: 'sum' as const,
    observe(route: string, operation: string, status: number, value: number): void {
      let byOperation = byRoute.get(route);
      if (byOperation === undefined) byRoute.set(route, (byOperation = new Map()));
      let byStatus = byOperation.get(operation);
      if (byStatus === undefined) byOperation.set(operation, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (series === undefined) {
        series = { labels: { route, root_field: operation, operation, status: String(status) }, counts: new Float64Array(buckets.length + 1), sum: 0, count: 0 };
        byStatus.set(status, series);
      }
      let bucket = 0;
      while (bucket < buckets.length && value > buckets[bucket]!) bucket++;
      series.counts[bucket]!++;
      series.sum += value;
      series.count++;
    },
    async get() {
      const values: HistogramValue[] = [];
      for (const byOperation of byRoute.values()) {
        for (const byStatus of byOperation.values()) {
          for (const { labels, counts, sum, count } of byStatus.values()) {
            let cumulative = 0;
            for (let b = 0; b < buckets.length; b++) {
              cumulative += counts[b]!;
              values.push({ metricName: `${name}_bucket`, labels: { le: buckets[b]!, ...labels }, value: cumulative });
            }
            values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
            values.push({ metricName: `${name}_sum`, labels: { ...labels }, value: sum });
            values.push({ metricName: `${name}_count`, labels: { ...labels }, value: count });
          }
        }
      }
      return { name, help, type: histogram.type, aggregator: histogram.aggregator, values };
    },
    /** Called by Registry.resetMetrics(). */
    reset(): void {
      byRoute.clear();
    },
  };
  // The registry reads only name, get() and reset(); its type lists prom-client's own classes.
  options.registry.registerMetric(histogram as unknown as Metric);
  return histogram;
}
