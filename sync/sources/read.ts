/**
 * The one field reader every source uses: parsers that turn an upstream value into ours or null,
 * a {@link FieldReader} that counts per field path every field it could not read (so drift is
 * counted, never a silent null), and the one error a record that cannot be published raises.
 *
 * May import only sync/format.ts: the sources import it, never the other way round.
 */

/** A list the upstream may send as one object when it holds one item. */
export type Many<T> = T[] | T | null | undefined;

/**
 * An upstream record that cannot be published. Every source throws or collects this one
 * class, so the sync counts rejected records the same way whatever their upstream.
 */
export class InvalidRecordError extends Error {
  override name = 'InvalidRecordError';

  constructor(
    /** What the record is, e.g. `tour`, `content.activities`, `snowdata.stations`. */
    readonly kind: string,
    /** The record's id as far as it could be read, else null. */
    readonly id: string | null,
    reason: string,
    /** Path of the offending field when one field is to blame, e.g. `geo.latitude`. */
    readonly field: string | null = null,
  ) {
    super(`${kind} ${id ?? '(no id)'}: ${reason}`);
  }
}

/**
 * Reads fields and counts, per field path, the records in which one was missing or unreadable.
 * One reader per locale and area of a fetch; its {@link misses} go into the batch.
 */
export class FieldReader {
  /** Per field path, the reads that gave null. */
  readonly misses: Record<string, number> = {};

  /**
   * `parse(value)`, or null when `value` is missing or `parse` cannot read it; a null is counted
   * under `path`.
   */
  read<T>(path: string, value: unknown, parse: (value: unknown) => T | null): T | null {
    const out = value == null ? null : parse(value);
    if (out === null) this.miss(path);
    return out;
  }

  /** Counts one record in which the field at `path` was missing or unreadable. */
  miss(path: string): void {
    this.misses[path] = (this.misses[path] ?? 0) + 1;
  }

  /** Adds another reader's counts to this one's. */
  add(misses: Readonly<Record<string, number>>): void {
    for (const [path, n] of Object.entries(misses)) this.misses[path] = (this.misses[path] ?? 0) + n;
  }
}

/** A list the upstream may send as one object, or not at all; only its objects. */
export function list<T>(value: Many<T>): T[] {
  if (value == null) return [];
  return (Array.isArray(value) ? value : [value]).filter((item): item is T => item !== null && typeof item === 'object');
}

/** The `content` of a `{ content, unit }` value, or the value itself when it is bare. */
export function content(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? (value as { content?: unknown }).content : value;
}

/** The lowercase `unit` of a `{ content, unit }` value, null when it has none. */
export function unit(value: unknown): string | null {
  return value !== null && typeof value === 'object' && typeof (value as { unit?: unknown }).unit === 'string' ? ((value as { unit: string }).unit).trim().toLowerCase() : null;
}

/** A trimmed non-empty string (a finite number as its digits). */
export function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** A finite number, or a string of one in plain decimal notation. */
export function decimal(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const s = text(value);
  return s !== null && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : null;
}

/** A whole {@link decimal}. */
export function integer(value: unknown): number | null {
  const n = decimal(value);
  return n !== null && Number.isInteger(n) ? n : null;
}

/** A count: a whole number >= 0. */
export function count(value: unknown): number | null {
  const n = decimal(content(value));
  return n !== null && n >= 0 ? Math.round(n) : null;
}

/** Metres per unit the service writes lengths and heights in; no unit means metres. */
export const METRES_PER: Readonly<Record<string, number>> = { m: 1, km: 1000, cm: 0.01 };
/** Centimetres per unit the service writes snow depths in; no unit means centimetres. */
export const CENTIMETRES_PER: Readonly<Record<string, number>> = { cm: 1, m: 100, mm: 0.1 };

/** A number in `per`'s units (`fallback` when the value has none), times its factor, rounded; null below 0. */
export function scaled(value: unknown, per: Readonly<Record<string, number>>, fallback: string): number | null {
  const n = decimal(content(value));
  const factor = per[unit(value) ?? fallback];
  return n === null || factor === undefined || n < 0 ? null : Math.round(n * factor);
}

/** A length or height in whole metres. */
export function metres(value: unknown): number | null {
  return scaled(value, METRES_PER, 'm');
}

/** A snow depth in whole centimetres. */
export function centimetres(value: unknown): number | null {
  return scaled(value, CENTIMETRES_PER, 'cm');
}

/** 0/1 (or a boolean) as a flag. */
export function flag(value: unknown): boolean | null {
  const v = content(value);
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  return null;
}

/** An ISO 8601 timestamp with offset, published in UTC (`…Z`). */
export function timestamp(value: unknown): string | null {
  const s = text(content(value));
  const ms = s === null ? NaN : Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The calendar day of an ISO timestamp as the service wrote it (its own offset), `YYYY-MM-DD`. */
export function day(value: unknown): string | null {
  const s = text(content(value));
  return s !== null && /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)) ? s.slice(0, 10) : null;
}

/** The time of day of an ISO timestamp as the service wrote it, `HH:MM`. */
export function clock(value: unknown): string | null {
  const match = /T(\d{2}):(\d{2})/.exec(text(content(value)) ?? '');
  return match ? `${match[1]}:${match[2]}` : null;
}
