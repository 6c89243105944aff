import { describe, expect, it } from 'vitest';
import { medianOfRuns, type MicroResult } from '../../bench/micro.ts';

/** A run whose figures are all `ms` (latencies) or `ms * 100` (cold start), with `query` as its search. */
function run(ms: number, query = 'chillon'): MicroResult {
  const latency = { iterations: 1000, matches: 68, p50Ms: ms, p95Ms: 2 * ms, p99Ms: 3 * ms, meanMs: ms, cpuMeanUs: 1000 * ms };
  return {
    dataDir: 'data',
    version: 'v1',
    records: 20_202,
    largestArea: { name: 'tours', records: 2000 },
    coldStart: { schemaMs: 50, loadMs: ms * 40, indexMs: ms * 60, totalMs: ms * 100 },
    memory: { heapUsedMB: 90 + ms, arrayBuffersMB: 6, totalMB: 96 + ms, rssMB: 300 },
    search: [{ kind: 'selective word', query, ...latency }],
    searchAcross: [{ kind: 'one word', query: 'zermatt', ...latency }],
    searchAcrossFirstMs: ms * 10,
    nearMe: [{ via: 'geo index', ...latency }, { via: 'with a filter', ...latency, p50Ms: ms / 2 }],
    bbox: [{ view: 'valley', q: null, ...latency }],
    facetedPage: { ...latency },
    activityPages: [{ kind: 'maxPrice, PRICE_ASC', ...latency }],
  };
}

describe('medianOfRuns', () => {
  it('takes the median of every figure, whatever run it came from, and keeps names from the first', () => {
    const combined = medianOfRuns([run(9), run(1, 'other'), run(2)]);
    expect(combined).toEqual({ ...run(2), search: [{ ...run(2).search[0]!, query: 'chillon' }] });
  });

  it('takes each figure on its own: the median of each may come from a different run', () => {
    const slowStart = { ...run(1), coldStart: { schemaMs: 50, loadMs: 900, indexMs: 10, totalMs: 910 } };
    const combined = medianOfRuns([slowStart, run(2), run(3)]);
    expect(combined.coldStart).toEqual({ schemaMs: 50, loadMs: 120, indexMs: 120, totalMs: 300 });
    expect(combined.nearMe.map((n) => n.p50Ms)).toEqual([2, 1]);
  });

  it('returns a single run as it is, and refuses none', () => {
    expect(medianOfRuns([run(4)])).toEqual(run(4));
    expect(() => medianOfRuns([])).toThrow('no runs');
  });
});
