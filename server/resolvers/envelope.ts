/** The list envelopes: data, total, hasMore, and for most lists pagination and meta. */

import type { SourceName } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import type { Context } from './context.ts';
import type { Selection } from './select.ts';

export interface Page<T> {
  data: T[];
  total: number;
  hasMore: boolean;
}

/**
 * Slices one page out of a selection. With near-me each item reads as its record with
 * its distance (server/snapshot/withDistance.ts); otherwise the shared record itself is returned.
 */
export function pageOf<R extends object>(selection: Selection<R>, limit: number, offset: number): Page<R> {
  const { items, total, near } = selection;
  const end = Math.min(offset + limit, items.length);
  const data: R[] = [];
  for (let i = offset; i < end; i++) {
    data.push(near ? near.withDistance(items[i]!, round(near.distancesKm[i]!)) : items[i]!);
  }
  return { data, total, hasMore: offset + data.length < total };
}

/** Distances are rounded to metres; more digits would only be noise. */
function round(km: number): number {
  return Math.round(km * 1000) / 1000;
}

export function pagination(page: Page<unknown>, limit: number, offset: number) {
  return {
    total: page.total,
    limit,
    offset,
    hasMore: page.hasMore,
    // limit 0 asks for counts only: there is one (empty) page and no page count.
    page: limit === 0 ? 1 : Math.floor(offset / limit) + 1,
    totalPages: limit === 0 ? 0 : Math.ceil(page.total / limit),
  };
}

/**
 * The `meta` of a list answer. Generated fixture data does not expire, so its `expiresAt` is
 * null; its manifest label already says it is fixture data, and so does its attribution (terms.ts).
 */
export function meta({ store, terms }: Context, source: SourceName, locale: Locale, startedAt: number) {
  const entry = store.source(source);
  return {
    locale,
    lastSync: entry?.lastSync ?? null,
    expiresAt: store.snapshot.manifest.fixture === undefined ? (entry?.expiresAt ?? null) : null,
    source: entry?.label ?? source,
    responseTimeMs: Math.round(performance.now() - startedAt),
    version: store.snapshot.version,
    license: terms[source].license,
    attribution: terms[source].attribution,
  };
}

/** A full envelope with pagination and meta, as stations, routes, tours and attractions return. */
export function envelope<R extends object>(
  context: Context,
  source: SourceName,
  locale: Locale,
  startedAt: number,
  selection: Selection<R>,
  limit: number,
  offset: number,
) {
  const page = pageOf(selection, limit, offset);
  // Spelled out rather than spread: this runs for every list answer, and a spread copies slowly.
  return {
    data: page.data,
    total: page.total,
    hasMore: page.hasMore,
    pagination: pagination(page, limit, offset),
    meta: meta(context, source, locale, startedAt),
  };
}
