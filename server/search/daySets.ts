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
  // One allocation for every day's set, side by side: day d's words start at d * words.
  const dayCount = firstDay > lastDay ? 0 : lastDay - firstDay + 1;
  const days = new Uint32Array(dayCount * words);
  for (let p = 0; p < runs.length; p++) {
    const own = runs[p];
    if (!own) continue;
    const word = p >>> 5;
    const bit = 1 << (p & 31);
    for (let r = 0; r + 1 < own.length; r += 2) {
      for (let day = own[r]! - firstDay; day <= own[r + 1]! - firstDay; day++) days[day * words + word]! |= bit;
    }
  }
  return {
    anyBetween(first, last) {
      const union: PositionSet = new Uint32Array(words);
      const from = Math.max(first, firstDay) - firstDay;
      const to = Math.min(last, lastDay) - firstDay;
      for (let d = from; d <= to; d++) {
        const start = d * words;
        for (let w = 0; w < words; w++) union[w]! |= days[start + w]!;
      }
      return union;
    },
  };
}
