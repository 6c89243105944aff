/**
 * Per calendar day, the set of positions whose record is available that day (an activity's
 * bookable days), so that "available on at least one day of a range" is the union of the range's
 * day sets: a few words per day, where testing each record reads every record of the area.
 */

import { type PositionSet, wordCount } from './positionSet.ts';

export interface DaySets {
  /**
   * The positions available on at least one day from `first` to `last` (day numbers, both
   * included; see server/util/zurichDay.ts dayNumber).
   * @returns a new set; the caller may keep or change it
   */
  anyBetween(first: number, last: number): PositionSet;
}

/**
 * @param size the number of positions
 * @param runs per position, its days as runs of consecutive day numbers: `[first, last, first, last, …]`;
 *   null or empty for a record available on no day
 */
export function createDaySets(size: number, runs: readonly (ArrayLike<number> | null)[]): DaySets {
  const words = wordCount(size);
  let firstDay = Infinity;
  let lastDay = -Infinity;
  for (const own of runs) {
    if (!own || own.length === 0) continue;
    firstDay = Math.min(firstDay, own[0]!);
    lastDay = Math.max(lastDay, own[own.length - 1]!);
  }
  const days: (PositionSet | undefined)[] = firstDay > lastDay ? [] : new Array(lastDay - firstDay + 1);
  for (let p = 0; p < runs.length; p++) {
    const own = runs[p];
    if (!own) continue;
    for (let r = 0; r + 1 < own.length; r += 2) {
      for (let day = own[r]!; day <= own[r + 1]!; day++) {
        const set = (days[day - firstDay] ??= new Uint32Array(words));
        set[p >>> 5]! |= 1 << (p & 31);
      }
    }
  }
  return {
    anyBetween(first, last) {
      const union = new Uint32Array(words);
      const from = Math.max(first, firstDay) - firstDay;
      const to = Math.min(last, lastDay) - firstDay;
      for (let d = from; d <= to; d++) {
        const set = days[d];
        if (set === undefined) continue;
        for (let w = 0; w < words; w++) union[w]! |= set[w]!;
      }
      return union;
    },
  };
}
