import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRequestHistogram } from '../../../server/ops/requestHistogram.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVATIONS: [string, string, number, number][] = [
  ['/api/graphql', 'tours', 200, 0.0004],
  ['/api/graphql', 'tours', 200, 0.001],
  ['/api/graphql', 'tours', 200, 0.05],
  ['/api/graphql', 'tours', 400, 2.5],
  ['/api/graphql', 'activities', 200, 0.003],
  ['/', '-', 200, 0.0001],
  ['other', '-', 404, 0.5],
];

/** The same observations in our histogram and in prom-client's, each in a registry of its own. */
function bothRegistries() {
  const ours = new Registry();
  const histogram = createRequestHistogram({ name: 'request_seconds', help: 'Request time.', buckets: BUCKETS, registry: ours });
  const theirs = new Registry();
  const reference = new Histogram({ name: 'request_seconds', help: 'Request time.', labelNames: ['route', 'root_field', 'operation', 'status'], buckets: BUCKETS, registers: [theirs] });
  for (const [route, operation, status, value] of OBSERVATIONS) {
    histogram.observe(route, operation, status, value);
    reference.observe({ route, root_field: operation, operation, status: String(status) }, value);
  }
  return { ours, theirs, histogram };
}

/** Exposition lines, sorted: series may come in another order. */
const lines = (text: string) => text.split('\n').sort();

describe('createRequestHistogram', () => {
  it('exposes what prom-client’s Histogram exposes for the same observations', async () => {
    const { ours, theirs } = bothRegistries();
    const text = await ours.metrics();
    expect(lines(text)).toEqual(lines(await theirs.metrics()));
    // A value on a bound falls in that bound's bucket (le: less than or equal).
    expect(text).toContain('request_seconds_bucket{le="0.001",route="/api/graphql",root_field="tours",operation="tours",status="200"} 2');
    expect(text).toContain('request_seconds_bucket{le="+Inf",route="/api/graphql",root_field="tours",operation="tours",status="400"} 1');
    expect(text).toContain('request_seconds_count{route="other",root_field="-",operation="-",status="404"} 1');
  });

  it('gives the JSON a cluster sums, and sums like prom-client’s', async () => {
    const { ours, theirs } = bothRegistries();
    const summed = await AggregatorRegistry.aggregate([await ours.getMetricsAsJSON(), await ours.getMetricsAsJSON()]).metrics();
    const reference = await AggregatorRegistry.aggregate([await theirs.getMetricsAsJSON(), await theirs.getMetricsAsJSON()]).metrics();
    expect(lines(summed)).toEqual(lines(reference));
    expect(summed).toContain('request_seconds_count{route="/api/graphql",root_field="tours",operation="tours",status="200"} 6');
  });

  it('starts over when the registry resets its metrics', async () => {
    const { ours, histogram } = bothRegistries();
    ours.resetMetrics();
    expect((await histogram.get()).values).toEqual([]);
    histogram.observe('/', '-', 200, 0.002);
    expect((await histogram.get()).values.filter((v) => v.metricName === 'request_seconds_count')).toEqual([
      { metricName: 'request_seconds_count', labels: { route: '/', root_field: '-', operation: '-', status: '200' }, value: 1 },
    ]);
  });
});
