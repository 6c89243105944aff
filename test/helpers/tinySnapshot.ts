/**
 * A small valid snapshot written with sync/publish/write.ts writeSnapshot, for tests that need exact
 * counts, chosen dates or a stale source rather than the committed fixture.
 */

import type { KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCALES, type ActivityRecord, type ActivityTypeRecord, type AttractionRecord, type FixtureOrigin, type Locale, type LocationRecord, type Manifest, type RouteRecord, type SourceName, type StationRecord, type TourGeometry, type TourRecord } from '../../sync/format.ts';
import { writeSnapshot, type SourceSnapshot } from '../../sync/publish/write.ts';

export interface TinySnapshotOptions {
  /** Snapshot id; default `2026-11-21T04-00-00Z`. */
  version?: string;
  /** lastSync of every source (expiresAt is 24 h later); default 2026-11-21T04:00:00Z. */
  lastSync?: string;
  /** Records per locale: activities (locations and types follow), stations (routes: 2 each), tours, attractions; default 3 each. */
  count?: number;
  /** Sources whose last sync failed (their `stale` flag is set). */
  staleSources?: SourceName[];
  /** Per stale source, the one line on why that the manifest states (`staleReason`). */
  staleReasons?: Partial<Record<SourceName, string>>;
  /** Sources left out, as if never synced. */
  omitSources?: SourceName[];
  /** Marks it as the fixture generator's, as `npm run fixtures` does. */
  fixture?: FixtureOrigin;
  /** Characters of a note in each station's `raw` JSON, to make it this much larger; default none. */
  stationRawPadding?: number;
  /** The name of the first attraction, in place of `Aussicht Zürich`. */
  firstAttractionName?: string;
  /** Signs the manifest, as the sync does with SNAPSHOT_SIGNING_KEY (sync/publish/sign.ts). */
  signingKey?: KeyObject;
  /** The tours' lines by tour id (`tour-0`, …), written as the version's geometry file; default none. */
  geometry?: Record<string, TourGeometry>;
}

export interface TinySnapshot {
  dir: string;
  manifest: Manifest;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** Writes a tiny snapshot into a new temporary directory. */
export async function createTinySnapshot(options: TinySnapshotOptions = {}): Promise<TinySnapshot> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tiny-snapshot-'));
  const manifest = await writeTinySnapshot(dir, options);
  return { dir, manifest, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a tiny snapshot into `dataDir` (see {@link TinySnapshotOptions}). */
export async function writeTinySnapshot(dataDir: string, options: TinySnapshotOptions = {}): Promise<Manifest> {
  const count = options.count ?? 3;
  const lastSync = options.lastSync ?? '2026-11-21T04:00:00.000Z';
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const perLocale = <T>(make: (locale: Locale) => T) => Object.fromEntries(LOCALES.map((locale) => [locale, make(locale)])) as Record<Locale, T>;

  const sources: Partial<Record<SourceName, SourceSnapshot>> = {
    activities: {
      label: 'Swiss Activities',
      lastSync,
      locales: perLocale((locale) => ({
        activities: range(count).map((i) => activity(i, locale)),
        locations: range(count).map(location),
        types: range(count).map(type),
      })),
    },
    snowdata: {
      label: 'Snowdata',
      lastSync,
      locales: perLocale(() => ({ stations: range(count).map((i) => station(i, options.stationRawPadding ?? 0)), routes: range(count * 2).map(route) })),
    },
    tours: { label: 'MySwitzerland tours', lastSync, locales: perLocale(() => ({ tours: range(count).map(tour) })) },
    attractions: {
      label: 'MySwitzerland attractions',
      lastSync,
      locales: perLocale(() => ({ attractions: range(count).map((i) => attraction(i, i === 0 ? options.firstAttractionName : undefined)) })),
    },
  };
  for (const name of options.staleSources ?? []) sources[name]!.stale = true;
  for (const name of options.omitSources ?? []) delete sources[name];
  const manifest = await writeSnapshot(dataDir, options.version ?? '2026-11-21T04-00-00Z', sources, new Date(lastSync), { fixture: options.fixture, signingKey: options.signingKey, geometry: options.geometry });
  const reasons = Object.entries(options.staleReasons ?? {});
  if (reasons.length === 0) return manifest;
  // The writer does not take a reason yet; the manifest is the commit point, so rewriting it is enough.
  for (const [name, reason] of reasons) manifest.sources[name as SourceName]!.staleReason = reason;
  await writeFile(path.join(dataDir, 'manifest.json'), JSON.stringify(manifest));
  return manifest;
}

/** Places in Switzerland, `lng, lat`. */
const PLACES: [string, number, number][] = [
  ['Zürich', 8.5403, 47.3779],
  ['Genève', 6.1432, 46.2044],
  ['Sils/Segl', 9.7595, 46.4285],
  ['Gruyères', 7.0821, 46.5835],
  ['Saas-Fee', 7.9276, 46.1086],
];

function place(i: number): [string, number, number] {
  return PLACES[i % PLACES.length]!;
}

function location(i: number): LocationRecord {
  return { id: `loc-${i}`, title: place(i)[0], slug: `loc-${i}`, activityCount: 1 };
}

function type(i: number): ActivityTypeRecord {
  return { id: `type-${i}`, title: ['Canyoning', 'Rafting', 'Paragliding'][i % 3]!, slug: `type-${i}` };
}

function activity(i: number, locale: Locale): ActivityRecord {
  const [name, lng, lat] = place(i);
  return {
    id: `act-${i}`,
    bookingId: 1000 + i,
    locale,
    title: `Canyoning ${name}`,
    teaserImage: null,
    supplier: { id: `sup-${i}`, name: 'Outdoor Ticino', slug: null },
    location: location(i),
    type: type(i),
    info: null,
    summary: { startingPrice: { amount: '129.00', currency: 'CHF', formatted: 'CHF 129.00' }, rankingScoreValue: 5 - i, popularity: 100 - i, isActive: true },
    isBookable: true,
    nextAvailableDate: '2026-11-20',
    updatedAt: '2026-11-01T08:00:00.000Z',
    lat: String(lat),
    lng: String(lng),
    attributeValues: ['family'],
    availableDates: ['2026-11-20/2099-12-31'],
  };
}

function station(i: number, rawPadding: number): StationRecord {
  const [name, lng, lat] = place(i);
  return {
    id: 100 + i,
    name,
    latitude: lat,
    longitude: lng,
    resort: { id: 100 + i, name, regionId: null },
    address: null,
    info: null,
    snow: { freshSnow: 10, freshSnowPisteTop: 20, depthResort: 50, depthPiste: 80, lastSnowfall: null, avalancheRiskUrl: null, report: null },
    ski: null,
    snowboard: null,
    crosscountry: null,
    hiking: null,
    tobogganing: null,
    sledge: null,
    snowshoe: null,
    prices: null,
    weather: null,
    weatherForecast: [{ type: 'BERG', date: '2026-11-22', temperature: -8, iconCode: 1, url: null }],
    images: [{ type: 'LOGO', url: 'https://example.ch/logo.png', created: null, updated: null }],
    webcams: [{ url: 'https://example.ch/cam.jpg', sourceUrl: null, place: name, latitude: lat, longitude: lng }],
    links: null,
    detailLinks: null,
    lastUpdate: null,
    raw: rawPadding > 0 ? { resortId: 100 + i, note: 'x'.repeat(rawPadding) } : { resortId: 100 + i },
  };
}

function route(i: number): RouteRecord {
  return {
    id: `route-${i}`,
    type: ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'][i % 4]!,
    number: String(i + 1),
    status: i % 2 === 0 ? 'OPEN' : 'CLOSED',
    lastUpdated: null,
    link: null,
    isStationActive: true,
    stationId: 100 + i,
  };
}

function tour(i: number): TourRecord {
  const [name, lng, lat] = place(i);
  return {
    id: `tour-${i}`,
    name: `Höhenweg ${name}`,
    abstract: null,
    url: null,
    routeType: 'hike',
    routeCategory: 'Regional',
    difficulty: 'medium',
    season: 'summer',
    latitude: lat,
    longitude: lng,
    startPoint: name,
    endPoint: name,
    distance: 12.4,
    duration: 270,
    ascent: 800,
    descent: 800,
    minAltitude: 1000,
    maxAltitude: 1800,
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
    views: ['mountainview'],
    origin: null,
    lastUpdated: null,
  };
}

function attraction(i: number, title?: string): AttractionRecord {
  const [name, lng, lat] = place(i);
  return {
    id: `attr-${i}`,
    name: title ?? `Aussicht ${name}`,
    abstract: null,
    description: null,
    url: null,
    latitude: lat,
    longitude: lng,
    locality: name,
    postalCode: null,
    contactName: null,
    contactPhone: null,
    contactEmail: null,
    contactUrl: null,
    touristType: [],
    seasons: ['summer'],
    sportTypes: [],
    neededTime: null,
    childrenAges: [],
    difficulty: null,
    natureTypes: [],
    experienceTypes: ['nature'],
    views: [],
    isAccessibleForFree: true,
    isWheelchairAccessible: false,
    isIndoor: false,
    isOutdoor: true,
    suitableFor: [],
    seasonStart: null,
    seasonEnd: null,
    imageUrl: null,
    images: [],
    destinationId: null,
    lastUpdated: null,
  };
}
