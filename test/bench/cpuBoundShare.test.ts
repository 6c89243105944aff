import { describe, expect, it } from 'vitest';
import type { CpuCost, PairedResult, SideFigures } from '../../bench/paired.ts';
import { checkTargets, cpuBoundShare, type BenchResults, type PairedScaling } from '../../bench/report.ts';
import type { HttpRun } from '../../bench/reportTypes.ts';

function side(reqPerS: number): SideFigures {
  return { reqPerS, ok: reqPerS * 5, non2xx: 0, errors: 0, timeouts: 0, durationS: 5, p50Ms: 10, p99Ms: 30, meanMs: 12 };
}

function paired(real: number, raw: number): PairedResult {
  return { ratio: real / raw, roundRatios: [real / raw], real: side(real), raw: side(raw), rounds: [] };
}

/** A run of unseen documents at 10x with the cache off, as a full run measured it. */
function run(workers: number, result: PairedResult, cpuCost: CpuCost | null): HttpRun {
  return {
    scenario: 'unseen-documents',
    description: '',
    unseen: true,
    setup: { scale: 10, responseCache: false, workers },
    env: {},
    operations: [],
    responseBytes: [],
    serverProcesses: workers === 1 ? 1 : workers + 1,
    serverReadyMs: 1000,
    serverCodeHash: 'x',
    paired: result,
    cpuCost,
    error: null,
  };
}

// One worker at 26.4 % of the twin's rate, while the twin needed 9.4 % of its CPU per answer.
const measuredCpu: CpuCost = { ratePerS: 1529, durationS: 3, realUs: 635.9, rawUs: 59.8 };
const oneWorker = run(1, paired(3059, 11565), measuredCpu);

describe('cpuBoundShare', () => {
  it("is the twin's CPU per answer over the server's when both were measured, whatever the rates", () => {
    const bound = cpuBoundShare(oneWorker)!;
    expect(bound.of).toBe('cpu');
    expect(bound.share).toBeCloseTo(59.8 / 635.9, 6);
  });

  it('falls back to the ratio of rates without CPU figures, and is null without either', () => {
    expect(cpuBoundShare(run(1, paired(3059, 11565), null))).toEqual({ share: 3059 / 11565, of: 'rate' });
    expect(cpuBoundShare({ ...oneWorker, paired: null, cpuCost: null })).toBeNull();
  });
});

describe('the scaling target', () => {
  const inTurns: PairedScaling = { scenario: 'unseen-documents', scale: 10, workers: 2, cpuBoundShare: 59.8 / 635.9, paired: paired(4200, 3000), serverProcesses: 3, error: null };

  function scalingCheck(one: HttpRun) {
    const results = {
      settings: [
        { name: 'RESPONSE_CACHE', implemented: true },
        { name: 'WORKERS', implemented: true },
      ],
      options: { connections: 50 },
      http: [one, run(2, paired(4811, 17529), null)],
      scaling: [inTurns],
      micro: [],
    } as unknown as Omit<BenchResults, 'targets'>;
    return checkTargets(results).find((check) => check.target.includes('workers'))!;
  }

  it('is judged, on the figure in turns, for a scenario whose CPU per answer makes it CPU-bound', () => {
    const check = scalingCheck(oneWorker);
    expect(check.met).toBe(false);
    expect(check.measured).toBeCloseTo(1.4, 6);
    expect(check.note).toBeNull();
  });

  it('is not judged when the twin needs more than a quarter of the CPU per answer', () => {
    const check = scalingCheck(run(1, paired(3059, 11565), { ...measuredCpu, rawUs: 200 }));
    expect(check.met).toBeNull();
    expect(check.note).toMatch(/^not CPU-bound: the raw twin needs more than 25.0 % of one worker's CPU per answer/);
  });
});
