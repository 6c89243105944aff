import { describe, expect, it } from 'vitest';
import { planRuns, SCENARIOS, UNSEEN_DOCUMENTS } from '../../bench/scenarios.ts';

describe('unseen documents', () => {
  it('come in scenarios of distinct documents, more than the operation cache keeps, measured with the response cache off only', () => {
    for (const scenario of SCENARIOS.filter((s) => s.unseen)) {
      const bodies = scenario.requests([]).map((r) => r.body);
      expect(bodies, scenario.name).toHaveLength(UNSEEN_DOCUMENTS);
      expect(new Set(bodies).size, scenario.name).toBe(UNSEEN_DOCUMENTS);
      expect(UNSEEN_DOCUMENTS).toBeGreaterThan(1000);
    }
    const unseen = planRuns([1], 2, ['unseen-documents']);
    expect(unseen.map((run) => run.setup)).toEqual([
      { scale: 1, responseCache: false, workers: 1 },
      { scale: 1, responseCache: false, workers: 2 },
    ]);
  });
});
