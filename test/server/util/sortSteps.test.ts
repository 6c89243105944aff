import { describe, expect, it } from 'vitest';
import { sortSteps } from '../../../server/util/sortSteps.ts';
import { runSteps, runStepsSliced } from '../../../server/util/timeSlice.ts';

/** Items with many equal keys, in a scrambled order, each remembering where it was. */
function items(count: number): { key: number; at: number }[] {
  return Array.from({ length: count }, (_, at) => ({ key: (at * 7919) % 97, at }));
}

const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;

describe('sortSteps', () => {
  it('sorts as Array.prototype.sort does, keeping equal items in their order, over several runs and merges', () => {
    for (const count of [0, 1, 255, 256, 257, 5000, 20_001]) {
      const input = items(count);
      const expected = [...input].sort(byKey);
      const sorted = runSteps(sortSteps([...input], byKey));
      expect(sorted, `${count} items`).toEqual(expected);
    }
  });

  it('sorts in place and returns the same array', () => {
    const input = items(3000);
    expect(runSteps(sortSteps(input, byKey))).toBe(input);
    expect(input.every((item, i) => i === 0 || input[i - 1]!.key <= item.key)).toBe(true);
  });

  it('gives the same order run in time slices', async () => {
    const input = items(20_000);
    expect(await runStepsSliced(sortSteps([...input], byKey))).toEqual([...input].sort(byKey));
  });
});
