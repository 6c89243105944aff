import { describe, expect, it } from 'vitest';
import type { PairedResult, SideFigures } from '../../bench/paired.ts';
import { loadGeneratorCost, type PairedScaling } from '../../bench/report.ts';

function side(reqPerS: number): SideFigures {
  return { reqPerS, ok: reqPerS * 5, non2xx: 0, errors: 0, timeouts: 0, durationS: 5, p50Ms: 10, p99Ms: 30, meanMs: 12 };
}

/** Scaling measured in turns: `raw` is the one-worker server, `real` the one with every core (2). */
function scaling(oneWorker: number, everyCore: number, cpu: PairedResult['cpu']): PairedScaling {
  const paired: PairedResult = { ratio: everyCore / oneWorker, roundRatios: [everyCore / oneWorker], real: side(everyCore), raw: side(oneWorker), rounds: [], cpu };
  return { scenario: 'unseen-documents', scale: 1, workers: 2, cpuBoundShare: 0.2, paired, serverProcesses: 3, error: null };
}

describe('loadGeneratorCost', () => {
  it("gives the load generator's share of the CPU with every core, and the scaling its cores would give the server", () => {
    // With two workers an answer took the servers 300 µs and the load generator 75: a fifth of
    // the CPU. Two cores at 300 µs an answer make 6,667 a second, 2.22× one worker's 3,000.
    const cpu = { raw: { serverUs: 340, loadGeneratorUs: 60 }, real: { serverUs: 300, loadGeneratorUs: 75 } };
    const cost = loadGeneratorCost(scaling(3000, 4200, cpu));
    expect(cost!.share).toBeCloseTo(0.2, 6);
    expect(cost!.scalingWithoutIt).toBeCloseTo(2 / 300e-6 / 3000, 6);
    // The one-worker side's CPU does not enter it: its rate is its main thread's.
    const dearer = loadGeneratorCost(scaling(3000, 4200, { ...cpu, raw: { serverUs: 900, loadGeneratorUs: 900 } }));
    expect(dearer).toEqual(cost);
  });

  it('is null without CPU figures', () => {
    expect(loadGeneratorCost(scaling(3000, 4200, null))).toBeNull();
    expect(loadGeneratorCost(scaling(3000, 4200, undefined))).toBeNull();
    expect(loadGeneratorCost({ ...scaling(3000, 4200, null), paired: null })).toBeNull();
  });
});
