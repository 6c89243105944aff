import { describe, expect, it } from 'vitest';
import { countPositions, countPositionsBetween, firstPositions, hasPosition, positionSetOf, type Intersection } from '../../../server/search/positionSet.ts';

/** The positions of the intersection, ascending, read one by one. */
function positionsOf(sets: Intersection, size: number): number[] {
  return Array.from({ length: size }, (_, p) => p).filter((p) => hasPosition(sets, p));
}

describe('position sets', () => {
  // Positions at both ends of words, bit 31 included (the sign bit of a 32-bit integer).
  const size = 97;
  const positions = [0, 1, 30, 31, 32, 33, 63, 64, 95, 96];
  const set = positionSetOf(size, positions);
  const all = Array.from({ length: size }, (_, p) => p);
  const full = positionSetOf(size, all);

  it('holds exactly the positions it was made of', () => {
    expect(positionsOf([set], size)).toEqual(positions);
    expect(countPositions([set])).toBe(positions.length);
  });

  it('lists the first positions in ascending order, all of them when fewer are asked', () => {
    expect(firstPositions([set], 0)).toEqual([]);
    expect(firstPositions([set], 4)).toEqual([0, 1, 30, 31]);
    expect(firstPositions([set], 5)).toEqual([0, 1, 30, 31, 32]);
    expect(firstPositions([set], 100)).toEqual(positions);
  });

  it('counts and lists a full set', () => {
    expect(countPositions([full])).toBe(size);
    expect(firstPositions([full], size)).toEqual(all);
  });

  it('reads the intersection of several sets, the highest bit of a word included', () => {
    const other = positionSetOf(size, [1, 31, 40, 63, 96]);
    const expected = [1, 31, 63, 96];
    for (const sets of [[set, other], [other, full, set], [full, set, other, full]]) {
      expect(positionsOf(sets, size)).toEqual(expected);
      expect(countPositions(sets)).toBe(expected.length);
      expect(firstPositions(sets, 3)).toEqual(expected.slice(0, 3));
    }
    expect(countPositions([full, positionSetOf(size, [])])).toBe(0);
  });

  it('counts the positions of every range, within one word and across several', () => {
    const other = positionSetOf(size, [1, 31, 40, 63, 96]);
    for (const sets of [[set], [full], [set, other]]) {
      const members = positionsOf(sets, size);
      for (let first = 0; first < size; first++) {
        for (let last = first; last < size; last++) {
          const expected = members.filter((p) => p >= first && p <= last).length;
          expect(countPositionsBetween(sets, first, last), `${first}..${last}`).toBe(expected);
        }
      }
    }
  });
});
