import { describe, expect, it } from 'vitest';
import { createSizeTally } from '../../../server/snapshot/answerSizes.ts';
import { runSteps } from '../../../server/util/timeSlice.ts';

describe('createSizeTally', () => {
  it('averages the JSON bytes of every field path and the items of every list, per record type', () => {
    const tally = createSizeTally();
    runSteps(
      tally.add('Tour', [
        { name: 'xy', stops: [1, 22], info: { open: true } },
        { name: 'x', stops: [], info: { open: false } },
      ]),
    );
    runSteps(tally.add('Tour', [{ name: 'abcd', stops: [333], info: { open: true } }]));
    const sizes = tally.sizes();
    expect(sizes.records).toEqual(new Map([['Tour', 2]]));
    expect(sizes.items).toEqual(new Map([['Tour.stops', 1]]));
    expect(Object.fromEntries(sizes.bytes)).toEqual({
      // "xy", "x", "abcd"
      'Tour.name': (4 + 3 + 6) / 3,
      // one list item each: 1, 22, 333
      'Tour.stops': (1 + 2 + 3) / 3,
      // {"open":true}, {"open":false}, {"open":true}
      'Tour.info': (13 + 14 + 13) / 3,
      'Tour.info.open': (4 + 5 + 4) / 3,
    });
  });
});
