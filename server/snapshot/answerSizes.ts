/**
 * What the answers of a snapshot weigh, measured once when its store is built, so that the limits
 * (server/execution/limits.ts estimateAnswerBytes) can tell the size of an answer before building it: per
 * record type, how many records there are, and per field path inside a record, the JSON bytes its
 * values take and the items its lists hold, on average.
 *
 * Averages rather than largest values: an estimate refuses before anything is built, so it must
 * not refuse a page that would fit; a page of the largest records is stopped while it is written
 * (server/execution/json/jsonWriter.ts). The bytes are counted as JSON text, a string as its UTF-16 length
 * (near enough to its UTF-8 bytes for an estimate).
 */

import type { Steps } from '../util/timeSlice.ts';

/** Records measured per area and locale, spread evenly over the area; the averages hold as well. */
const SAMPLED_RECORDS = 512;

/** The sizes of one snapshot's answers; see the module comment. */
export interface AnswerSizes {
  /** Records of a GraphQL record type (`SnowdataStation`), the largest count of any locale. */
  readonly records: ReadonlyMap<string, number>;
  /**
   * Average JSON bytes of a value at a path (`SnowdataStation.raw`, `Activity.info.title`); for
   * a list, of one of its items.
   */
  readonly bytes: ReadonlyMap<string, number>;
  /** Average items of the lists at a path (`SnowdataStation.images`). */
  readonly items: ReadonlyMap<string, number>;
}

/** Collects the sizes of a snapshot area by area; {@link SizeTally.sizes} gives the result. */
export interface SizeTally {
  /**
   * Measures the records of one area of one locale, whose GraphQL type is `typeName`, as steps
   * (server/util/timeSlice.ts): one record per step.
   */
  add(typeName: string, records: readonly object[]): Steps<void>;
  /** The sizes measured so far. */
  sizes(): AnswerSizes;
}

/** Creates an empty tally. */
export function createSizeTally(): SizeTally {
  const records = new Map<string, number>();
  const bytes = new Map<string, Mean>();
  const items = new Map<string, Mean>();

  const note = (means: Map<string, Mean>, path: string, value: number) => {
    const mean = means.get(path);
    if (mean === undefined) means.set(path, { sum: value, count: 1 });
    else {
      mean.sum += value;
      mean.count++;
    }
  };

  /** The JSON bytes of `value`, noting those of every field below it under its path. */
  function measure(value: unknown, path: string): number {
    if (Array.isArray(value)) {
      note(items, path, value.length);
      let size = 1 + value.length;
      for (const item of value) {
        const itemSize = measure(item, path);
        note(bytes, path, itemSize);
        size += itemSize;
      }
      return size;
    }
    if (typeof value === 'string') return value.length + 2;
    if (typeof value === 'number') return numberBytes(value);
    if (typeof value === 'boolean') return value ? 4 : 5;
    if (value === null || typeof value !== 'object') return 4;
    let size = 1;
    for (const key in value) {
      const child = (value as Record<string, unknown>)[key];
      const childPath = `${path}.${key}`;
      const childSize = measure(child, childPath);
      if (!Array.isArray(child)) note(bytes, childPath, childSize);
      size += key.length + 4 + childSize;
    }
    return size;
  }

  return {
    *add(typeName, list) {
      records.set(typeName, Math.max(records.get(typeName) ?? 0, list.length));
      const step = Math.max(1, list.length / SAMPLED_RECORDS);
      for (let at = 0; at < list.length; at += step) {
        measure(list[Math.floor(at)], typeName);
        yield;
      }
    },
    sizes() {
      return { records: new Map(records), bytes: averages(bytes), items: averages(items) };
    },
  };
}

interface Mean {
  sum: number;
  count: number;
}

function averages(means: ReadonlyMap<string, Mean>): Map<string, number> {
  const result = new Map<string, number>();
  for (const [path, { sum, count }] of means) result.set(path, sum / count);
  return result;
}

/** Bytes of a number as JSON: exact for an integer, a typical coordinate's for a fraction. */
function numberBytes(value: number): number {
  if (!Number.isInteger(value)) return 10;
  let digits = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest /= 10) digits++;
  return digits;
}
