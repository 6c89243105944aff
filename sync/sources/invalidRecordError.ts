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
