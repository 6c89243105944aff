import { describe, expect, it } from 'vitest';
import { reloadChecks, renderReload, type ReloadRun } from '../../bench/reload.ts';

const latency = (maxMs: number, p99Ms: number, ok: number, durationS: number) => ({ maxMs, p99Ms, ok, failed: 0, durationS });

const run: ReloadRun = {
  scale: 10,
  changed: 'all',
  rounds: [
    { baseline: latency(40, 9, 10_000, 10), reload: { ...latency(120, 12, 8_000, 10), servedAfterMs: 31_250, reloadMs: null, longestDelayMs: null } },
    { baseline: latency(60, 10, 10_000, 10), reload: { ...latency(90, 16, 9_000, 10), servedAfterMs: 29_800, reloadMs: null, longestDelayMs: null } },
  ],
  baseline: { maxMs: 60, p99Ms: 10 },
  reload: { maxMs: 120, p99Ms: 16, longestDelayMs: null },
};

describe('the hot-reload report', () => {
  it('gives per scale the worst latencies, how long the new version took to be served and the rate of answers against the baseline', () => {
    const row = renderReload([run]).find((line) => line.startsWith('| 10x'));
    expect(row).toBe('| 10x | every source | 120 ms | 60 ms | 16 ms | 10 ms | n/a | 29,800–31,250 ms | 80 %–90 % |');
  });

  it('names the sources a version changed, and judges only the reload of a version whose every file changed', () => {
    const oneSource: ReloadRun = { ...run, changed: ['activities'] };
    expect(renderReload([oneSource]).find((line) => line.startsWith('| 10x'))).toMatch(/^\| 10x \| activities only \| 120 ms/);
    expect(reloadChecks([oneSource])).toEqual([]);
    expect(reloadChecks([run, oneSource])).toHaveLength(2);
  });

  it('judges the max against the baseline max + 100 ms at 10x and the p99 against the baseline p99 + 5 ms', () => {
    const [max, p99] = reloadChecks([run]);
    expect(max).toMatchObject({ measured: 60, met: true });
    expect(p99).toMatchObject({ measured: 6, met: false });
  });
});
