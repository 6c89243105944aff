/**
 * The MySwitzerland normalisers' reader of one upstream object: a missing field is a gap,
 * counted per field path in the shared FieldReader; a field of the wrong type rejects the record.
 */

import type { FieldReader } from '../read.ts';

/** A JSON object. */
export type Json = Record<string, unknown>;
/** Rejects the record, naming the field and the problem. */
export type Fail = (field: string, problem: string) => never;

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How an error names the type of a value. */
export function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

/** An empty object, read when an object-or-list field is an empty list. */
const EMPTY: Json = {};

/**
 * Reads the fields of one upstream object. The rule everywhere: a missing or null field is a
 * gap, counted in `misses` under its field path (list items as `[]`), and a field present with
 * the wrong type makes the whole record invalid.
 */
export class ObjectReader {
  constructor(
    protected readonly value: Json,
    /** Path of this object inside the record, `''` for the record itself. */
    protected readonly path: string,
    protected readonly fail: Fail,
    protected readonly misses: FieldReader,
    /** {@link path} with list indexes as `[]`, as misses are counted. */
    protected readonly fieldPath: string = path,
  ) {}

  protected at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  protected fieldAt(key: string): string {
    return this.fieldPath === '' ? key : `${this.fieldPath}.${key}`;
  }

  /** Counts `key` as missing in this record. */
  protected gap(key: string): null {
    this.misses.miss(this.fieldAt(key));
    return null;
  }

  protected child(value: Json, key: string, fieldKey: string = key): ObjectReader {
    return new ObjectReader(value, this.at(key), this.fail, this.misses, this.fieldAt(fieldKey));
  }

  protected wrongType(key: string, expected: string, value: unknown = this.value[key]): never {
    return this.fail(this.at(key), `"${this.at(key)}" must be ${expected}, got ${typeName(value)}`);
  }

  /** Trimmed text; blank text counts as a gap. */
  string(key: string): string | null {
    const v = this.value[key];
    if (v === undefined || v === null) return this.gap(key);
    if (typeof v !== 'string') return this.wrongType(key, 'a string');
    const trimmed = v.trim();
    return trimmed === '' ? this.gap(key) : trimmed;
  }

  number(key: string): number | null {
    const v = this.value[key];
    if (v === undefined || v === null) return this.gap(key);
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.wrongType(key, 'a finite number');
    return v;
  }

  integer(key: string): number | null {
    const v = this.number(key);
    return v === null ? null : Math.round(v);
  }

  /** An integer, also when sent as a digit string (`"01"`). */
  routeNumber(key: string): number | null {
    const v = this.value[key];
    if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
    return this.integer(key);
  }

  /** Missing means false. */
  boolean(key: string): boolean {
    const v = this.value[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') return this.wrongType(key, 'a boolean');
    return v;
  }

  /** A nested object; a missing one reads as empty. */
  object(key: string): ObjectReader {
    const v = this.value[key];
    if (v === undefined || v === null) return this.child({}, key);
    if (!isObject(v)) return this.wrongType(key, 'an object');
    return this.child(v, key);
  }

  /** An array of objects; a missing array reads as empty, null items are skipped. */
  items(key: string): ObjectReader[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return this.wrongType(key, 'an array');
    return v.flatMap((item: unknown, i) => {
      if (item === undefined || item === null) return [];
      if (!isObject(item)) return this.wrongType(`${key}.${i}`, 'an object', item);
      return [this.child(item, `${key}.${i}`, `${key}[]`)];
    });
  }

  /** Strings of a list (a single string counts as a list of one), deduplicated in order. */
  stringList(key: string): string[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (typeof v === 'string') return unique([v.trim()]);
    if (!Array.isArray(v)) return this.wrongType(key, 'an array');
    return unique(v.map((item: unknown, i) => (typeof item === 'string' ? item.trim() : this.wrongType(`${key}.${i}`, 'a string', item))));
  }

  /**
   * An object sent either alone or as a list of objects: the object, or the first of the list
   * (what clients of the API take); a missing one reads as empty.
   */
  first(key: string): ObjectReader {
    return Array.isArray(this.value[key]) ? (this.items(key)[0] ?? this.child(EMPTY, `${key}.0`, key)) : this.object(key);
  }

  /** A URL given either as a string or as an ImageObject `{ url }`. */
  imageRef(key: string): string | null {
    return typeof this.value[key] === 'string' ? this.string(key) : this.object(key).string('url');
  }
}


/** The non-empty strings of a list, each once, in order. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}
