/**
 * Whose data a single record is, as its files carry it: the `license` and `attribution` foreign
 * members of its GeoJSON Feature (RFC 7946 §6.1), as a list's FeatureCollection carries its
 * list's, and GPX's `<author>` and `<copyright>`.
 */

import type { GraphQLObjectType } from 'graphql';
import type { ListRecord } from './areas.ts';

/** A record's terms, as a client showing its data must state them. */
export interface Credit {
  /** The words to show (e.g. "Switzerland Tourism, MySwitzerland Open Data"). */
  attribution: string;
  /** An SPDX licence expression or the URL of the terms; null when they name none. */
  license: string | null;
}

/**
 * The fields of a record its credit is read from, as a GraphQL selection of the record: its
 * `license` and `attribution` where its type has them (activities, tours, attractions), else none.
 */
export function creditSelection(recordType: GraphQLObjectType): string {
  const fields = recordType.getFields();
  return 'license' in fields && 'attribution' in fields ? 'license attribution' : '';
}

/** The credit of a record selected with {@link creditSelection}; null for a record that states none. */
export function creditOf(record: ListRecord): Credit | null {
  const { attribution, license } = record;
  if (typeof attribution !== 'string') return null;
  return { attribution, license: typeof license === 'string' ? license : null };
}
