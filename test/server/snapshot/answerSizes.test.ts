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

  it('counts a null list as a record with no items, and a null leaf as the bytes of null', () => {
    const tally = createSizeTally();
    runSteps(
      tally.add('Station', [
        { name: 'ab', images: [{ url: 'u' }, { url: 'v' }], note: null },
        { name: 'c', images: null, note: 'xyz' },
        { name: 'd', images: null, note: null },
      ]),
    );
    const sizes = tally.sizes();
    expect(sizes.items.get('Station.images')).toBe(2 / 3);
    // {"url":"u"}: the items' bytes, not lowered by the records without a list
    expect(sizes.bytes.get('Station.images')).toBe(11);
    // null, "xyz", null
    expect(sizes.bytes.get('Station.note')).toBe((4 + 5 + 4) / 3);
  });
});
