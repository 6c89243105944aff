/** Small valid records and fetch results for publishing tests. */

import { buildSchema, type GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import type { AreaBatch, FetchedSource, Rejection } from '../../../sync/source.ts';
import type { ActivityTypeRecord, Locale, LocationRecord, RouteRecord } from '../../../sync/format.ts';

/** The real schema, enough for server/snapshot/load.ts (it only reads types). */
export function loadSchema(): GraphQLSchema {
  return buildSchema(readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'));
}

export function route(i: number, locale: Locale = 'de-CH'): RouteRecord {
  return {
    id: `route-${i}`,
    type: ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'][i % 4]!,
    number: String(100 + i),
    status: i % 3 === 0 ? 'CLOSED' : 'OPEN',
    lastUpdated: '2026-11-20T08:00:00+01:00',
    link: `https://www.myswitzerland.com/${locale.slice(0, 2)}/route-${i}/`,
    isStationActive: true,
    stationId: 100 + i,
  };
}

export function location(i: number): LocationRecord {
  return { id: `loc-${i}`, title: `Zürich ${i}`, slug: `zuerich-${i}`, activityCount: i % 5 };
}

export function activityType(i: number): ActivityTypeRecord {
  return { id: `type-${i}`, title: `Schlitteln ${i}`, slug: `schlitteln-${i}` };
}

function batch<R>(records: R[], rejected: Rejection[] = []): AreaBatch<R> {
  return { records, rejected, declared: null, received: records.length + rejected.length, fieldMisses: {} };
}

/** A snowdata fetch with `count` routes (and no stations) per locale. */
export function snowdata(count: number, fetchedAt: string, locales: readonly Locale[] = ['de-CH', 'en-CH'], rejected = 0): FetchedSource {
  const fetched: FetchedSource = { label: 'Snowdata test feed', fetchedAt, locales: {} };
  for (const locale of locales) {
    const reasons = Array.from({ length: rejected }, (_, i) => ({ id: `bad-${i}`, reason: 'missing "number"' }));
    fetched.locales[locale] = { stations: batch([]), routes: batch(Array.from({ length: count }, (_, i) => route(i, locale)), reasons) };
  }
  return fetched;
}

/** An activities fetch with locations and types only (no activities). */
export function activities(count: number, fetchedAt: string, locales: readonly Locale[] = ['de-CH', 'en-CH']): FetchedSource {
  const fetched: FetchedSource = { label: 'Activities test API', fetchedAt, locales: {} };
  for (const locale of locales) {
    fetched.locales[locale] = {
      activities: batch([]),
      locations: batch(Array.from({ length: count }, (_, i) => location(i))),
      types: batch(Array.from({ length: 3 }, (_, i) => activityType(i))),
    };
  }
  return fetched;
}
