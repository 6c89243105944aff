/**
 * Sorting as steps (see timeSlice.ts): a bottom-up merge sort whose runs are sorted by
 * Array.prototype.sort and merged a bounded number of items per step, so that sorting a large
 * array beside request handling never holds the event loop for long.
 */

import type { Steps } from './timeSlice.ts';

/** Items sorted (a run) or merged per step. */
const ITEMS_PER_STEP = 256;

/**
 * Sorts `items` in place, as `items.sort(compare)` would, stably.
 * @returns `items`, sorted
 */
export function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number): Steps<T[]> {
  const length = items.length;
  for (let start = 0; start < length; start += ITEMS_PER_STEP) {
    const end = Math.min(start + ITEMS_PER_STEP, length);
    const run = items.slice(start, end).sort(compare);
    for (let i = 0; i < run.length; i++) items[start + i] = run[i]!;
    yield;
  }
  let from = items;
  let to = new Array<T>(length);
  for (let width = ITEMS_PER_STEP; width < length; width *= 2) {
    for (let left = 0; left < length; left += 2 * width) {
      const middle = Math.min(left + width, length);
      const right = Math.min(left + 2 * width, length);
      let i = left;
      let j = middle;
      for (let k = left; k < right; k++) {
        // Ties take the left run's item first: the merge keeps the order of equal items.
        to[k] = i < middle && (j >= right || compare(from[i]!, from[j]!) <= 0) ? from[i++]! : from[j++]!;
        if ((k - left) % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
      }
    }
    [from, to] = [to, from];
  }
  if (from !== items) for (let i = 0; i < length; i++) items[i] = from[i]!;
  return items;
}
