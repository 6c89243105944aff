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
  // Per type, its paths as a tree: a record's fields are looked up key by key, so that no path
  // text is built or hashed per value measured.
  const roots = new Map<string, PathTally>();

  return {
    *add(typeName, list) {
      records.set(typeName, Math.max(records.get(typeName) ?? 0, list.length));
      let root = roots.get(typeName);
      if (root === undefined) roots.set(typeName, (root = new PathTally(typeName)));
      const step = Math.max(1, list.length / SAMPLED_RECORDS);
      for (let at = 0; at < list.length; at += step) {
        measure(list[Math.floor(at)], root);
        yield;
      }
    },
    sizes() {
      const bytes = new Map<string, number>();
      const items = new Map<string, number>();
      for (const root of roots.values()) root.averagesInto(bytes, items);
      return { records: new Map(records), bytes, items };
    },
  };
}

/** What was measured at one path, and the paths below it by key. */
class PathTally {
  readonly path: string;
  bytes: Mean | null = null;
  items: Mean | null = null;
  /** Records in which this path held null: no items when it is a list, `null`'s bytes when not. */
  nulls = 0;
  readonly #children = new Map<string, PathTally>();

  constructor(path: string) {
    this.path = path;
  }

  child(key: string): PathTally {
    let child = this.#children.get(key);
    if (child === undefined) this.#children.set(key, (child = new PathTally(`${this.path}.${key}`)));
    return child;
  }

  /** Adds the averages of this path and every path below it to the maps. */
  averagesInto(bytes: Map<string, number>, items: Map<string, number>): void {
    if (this.items) {
      // A list's bytes are those of its items; a record whose list is null holds none of them.
      items.set(this.path, this.items.sum / (this.items.count + this.nulls));
      if (this.bytes) bytes.set(this.path, this.bytes.sum / this.bytes.count);
    } else if (this.bytes || this.nulls > 0) {
      bytes.set(this.path, ((this.bytes?.sum ?? 0) + NULL_BYTES * this.nulls) / ((this.bytes?.count ?? 0) + this.nulls));
    }
    for (const child of this.#children.values()) child.averagesInto(bytes, items);
  }
}

/** The JSON bytes of `null`. */
const NULL_BYTES = 4;

interface Mean {
  sum: number;
  count: number;
}

function note(mean: Mean | null, value: number): Mean {
  if (mean === null) return { sum: value, count: 1 };
  mean.sum += value;
  mean.count++;
  return mean;
}

/** The JSON bytes of `value`, noting those of every field below it at its path. */
function measure(value: unknown, at: PathTally): number {
  if (Array.isArray(value)) {
    at.items = note(at.items, value.length);
    let size = 1 + value.length;
    for (const item of value) {
      const itemSize = measure(item, at);
      at.bytes = note(at.bytes, itemSize);
      size += itemSize;
    }
    return size;
  }
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return numberBytes(value);
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null || typeof value !== 'object') return NULL_BYTES;
  let size = 1;
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    const childAt = at.child(key);
    const childSize = measure(child, childAt);
    if (child === null) childAt.nulls++;
    else if (!Array.isArray(child)) childAt.bytes = note(childAt.bytes, childSize);
    size += key.length + 4 + childSize;
  }
  return size;
}

/** Bytes of a number as JSON: exact for an integer, a typical coordinate's for a fraction. */
function numberBytes(value: number): number {
  if (!Number.isInteger(value)) return 10;
  let digits = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest /= 10) digits++;
  return digits;
}
