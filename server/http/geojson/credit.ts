/**
 * Whose data a single record is, as its files carry it: the `license` and `attribution` foreign
 * members of its GeoJSON Feature (RFC 7946 §6.1), as a list's FeatureCollection carries its
 * list's, and GPX's `<author>` and `<copyright>`.
 */

import type { ListRecord } from './areas.ts';

/** A record's terms, as a client showing its data must state them. */
export interface Credit {
  /** The words to show (e.g. "© MySwitzerland"). */
  attribution: string;
  /** An SPDX licence expression or the URL of the terms; null when they name none. */
  license: string | null;
}

/**
 * The fields of a record its credit is read from, as a GraphQL selection of the record; empty
 * while the schema has no per-record terms.
 */
export const CREDIT_SELECTION = '';

/**
 * The credit of a record selected with {@link CREDIT_SELECTION}: the one place where a record's
 * `license` and `attribution` are read once the schema serves them; null until then, and the
 * files then carry none.
 */
export function creditOf(_record: ListRecord): Credit | null {
  return null;
}
