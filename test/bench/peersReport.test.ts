import { describe, expect, it } from 'vitest';
import type { PairedResult, PeerResult, SideFigures } from '../../bench/paired.ts';
import { checkPeers, peerCells } from '../../bench/peers/report.ts';
import { PEERS } from '../../bench/peers/peers.ts';
import type { HttpRun } from '../../bench/reportTypes.ts';

function side(reqPerS: number): SideFigures {
  return { reqPerS, ok: reqPerS, non2xx: 0, errors: 0, timeouts: 0, durationS: 1, p50Ms: 1, p99Ms: 2, meanMs: 1 };
}

function peer(name: string, reqPerS: number | null, raw: number): PeerResult {
  return reqPerS === null
    ? { name, ratio: null, roundRatios: [], figures: null, error: 'status 400' }
    : { name, ratio: reqPerS / raw, roundRatios: [reqPerS / raw], figures: side(reqPerS), error: null };
}

function run(responseCache: boolean, real: number, peers?: PeerResult[]): HttpRun {
  const raw = 10_000;
  const paired: PairedResult = { ratio: real / raw, roundRatios: [], real: side(real), raw: side(raw), rounds: [], ...(peers ? { peers } : {}) };
  return {
    scenario: 'activities',
    description: '',
    unseen: false,
    setup: { scale: 1, responseCache, workers: 1 },
    env: {},
    operations: [],
    responseBytes: [],
    serverProcesses: 1,
    serverReadyMs: 0,
    serverCodeHash: 'x',
    paired,
    cpuCost: null,
    error: null,
  };
}

describe('checkPeers', () => {
  it('holds ours to 1.5x the fastest peer uncached, naming it', () => {
    const [check] = checkPeers(run(false, 3000, [peer('a', 1000, 10_000), peer('b', 2100, 10_000)]), 'activities');
    expect(check).toMatchObject({ value: '1.43× b', met: false, note: null });
    expect(check!.measured).toBeCloseTo(3000 / 2100, 6);
    expect(checkPeers(run(false, 3200, [peer('b', 2100, 10_000)]), 'activities')[0]!.met).toBe(true);
  });

  it("holds ours to 1.2x the fastest peer's cached configuration with the cache on", () => {
    const [check] = checkPeers(run(true, 6000, [peer('a', 5100, 10_000)]), 'activities');
    expect(check!.target).toContain('1.2×');
    expect(check!.met).toBe(false);
    expect(checkPeers(run(true, 6200, [peer('a', 5100, 10_000)]), 'activities')[0]!.met).toBe(true);
  });

  it('names the peers left out, and judges nothing when none was measured', () => {
    const [some] = checkPeers(run(false, 3000, [peer('a', 1000, 10_000), peer('b', null, 10_000)]), 'activities');
    expect(some!.note).toBe('not measured: b: status 400');
    const [none] = checkPeers(run(false, 3000, [peer('b', null, 10_000)]), 'activities');
    expect(none).toMatchObject({ value: 'n/a', measured: null, met: null });
  });

  it('gives no check, and dashes in every peer column, for a run without peers', () => {
    const withoutPeers = run(false, 3000);
    expect(checkPeers(withoutPeers, 'activities')).toEqual([]);
    expect(peerCells(withoutPeers, undefined)).toEqual([...PEERS.map(() => '—'), '—']);
  });
});
