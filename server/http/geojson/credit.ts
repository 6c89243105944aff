/**
 * Whose data a record is, as the files for maps and devices carry it: a foreign member
 * `attribution` of a GeoJSON answer (RFC 7946 §6.1) and GPX's `<author>` and `<copyright>`.
 */

import type { ListRecord } from './areas.ts';

/** A source's terms, as a client showing its data must state them. */
export interface Credit {
  /** The words to show (e.g. "© MySwitzerland"). */
  attribution: string;
  /** The URL of the licence the data is under; null when the terms name none. */
  licenseUrl: string | null;
}

/**
 * The fields of a record the credit is read from, as a GraphQL selection of the record; empty
 * while the schema has no per-record terms.
 */
export const CREDIT_SELECTION = '';

/**
 * The credit of a record selected with {@link CREDIT_SELECTION}: the hook where each source's
 * `license` and `attribution` are read once the schema serves them; null until then, and the
 * answers then carry none.
 */
export function creditOf(_record: ListRecord): Credit | null {
  return null;
}
