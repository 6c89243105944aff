/**
 * Data directories of several snapshot versions of the tours source, each published by the real
 * publish code (sync/publish/publish.ts): for tests of `changes` and of what the change lists hold.
 */

import type { Locale, TourRecord } from '../../sync/format.ts';
import { publish, type PublishResult } from '../../sync/publish/publish.ts';
import type { FetchedSource } from '../../sync/source.ts';

/** A tour record in API shape; `i` picks its id, name and place. */
export function tour(i: number, overrides: Partial<TourRecord> = {}): TourRecord {
  return {
    id: `tour-${String(i).padStart(3, '0')}`,
    name: `Wanderung ${String.fromCharCode(65 + (i % 26))}${i}`,
    abstract: `Eine Wanderung Nummer ${i}.`,
    url: `https://www.myswitzerland.com/de/tour-${i}/`,
    routeType: ['hike', 'snowshoe', 'bicycle'][i % 3]!,
    routeCategory: 'Local',
    difficulty: ['easy', 'medium', 'difficult'][i % 3]!,
    season: i % 2 === 0 ? 'summer' : 'winter',
    latitude: 46 + (i % 10) / 10,
    longitude: 7 + (i % 7) / 10,
    startPoint: 'Start',
    endPoint: 'Ziel',
    distance: 5 + i,
    duration: 60 + i,
    ascent: 100,
    descent: 100,
    minAltitude: 500,
    maxAltitude: 900,
    isRoundtrip: true,
    isBarrierFree: false,
    switzerlandMobilityRoute: null,
    switzerlandMobilityUrl: null,
    geodataUrl: null,
    providerName: null,
    providerEmail: null,
    providerPhone: null,
    providerUrl: null,
    imageUrl: null,
    logoUrl: null,
    landscapes: [],
    views: [],
    origin: 'test',
    lastUpdated: `2026-11-${String(1 + (i % 15)).padStart(2, '0')}T10:00:00Z`,
    ...overrides,
  };
}

/** A tours fetch with the same records in every locale given. */
export function toursFetched(tours: readonly TourRecord[], fetchedAt: string, locales: readonly Locale[] = ['de-CH', 'en-CH']): FetchedSource {
  const fetched: FetchedSource = { label: 'MySwitzerland tours (test)', fetchedAt, locales: {} };
  for (const locale of locales) {
    fetched.locales[locale] = { tours: { records: tours.map((t) => ({ ...t })), rejected: [], declared: null, received: tours.length, fieldMisses: {} } };
  }
  return fetched;
}

/**
 * Publishes one version of the tours into `dataDir` at `now`, as a sync does (the publish gate
 * included, forced: the tests' versions change more than a real day does).
 */
export function publishTours(dataDir: string, tours: readonly TourRecord[], now: Date, options: { keep?: number; changeVersions?: number; locales?: readonly Locale[] } = {}): Promise<PublishResult> {
  return publish({ dataDir, outcomes: { tours: { ok: true, fetched: toursFetched(tours, now.toISOString(), options.locales) } }, now, force: true, keep: options.keep, changeVersions: options.changeVersions });
}
