/** Binary search over sorted arrays: the text index's vocabulary and typo keys, the range index's values. */

/** The index of the first element of the sorted `values` (words, or numbers) that is not below `value`. */
export function lowerBound<T extends string | number>(values: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of the first element of the sorted `values` that is above `value`. */
export function upperBound<T extends string | number>(values: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
