/**
 * The snapshot format: the only contract between the sync CLI and the server.
 *
 * A data directory holds `manifest.json` (the commit point) and one directory per
 * snapshot version with gzip-compressed JSON arrays of records:
 *
 *   data/manifest.json
 *   data/<version>/manifest.json          (a copy of the manifest that committed it, for rollback)
 *   data/<version>/<locale>/<area>.json.gz
 *
 * Every record is already in the shape the GraphQL API returns (see schema.graphql),
 * so the server only validates, indexes and slices. Derived values (a station's
 * coordinates from its first webcam, the sledge/snowshoe views, a location's
 * activityCount) are computed by the sync, once, when the snapshot is written.
 *
 * The server imports this module with `import type` only.
 */

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Bumped on any incompatible change to the manifest or the records. */
export const FORMAT_VERSION = 1;

export const LOCALES = ['de-CH', 'en-CH', 'fr-CH', 'it-CH'] as const;
export type Locale = (typeof LOCALES)[number];

/** Which content areas each upstream source publishes. */
export const SOURCE_AREAS = {
  activities: ['activities', 'locations', 'types'],
  snowdata: ['stations', 'routes'],
  tours: ['tours'],
  attractions: ['attractions'],
} as const;
export type SourceName = keyof typeof SOURCE_AREAS;
export type AreaName = (typeof SOURCE_AREAS)[SourceName][number];
export const SOURCE_NAMES = Object.keys(SOURCE_AREAS) as SourceName[];

/** Live data is served as fresh for 24 hours after a sync, then marked stale. */
export const TTL_MS = 24 * 60 * 60 * 1000;

export interface FileEntry {
  /** Path relative to the data directory: `<version>/<locale>/<area>.json.gz`. */
  file: string;
  /** Number of records in the file. */
  count: number;
  /** Hex sha256 of the file's bytes as stored (compressed). */
  sha256: string;
}

export interface SourceEntry {
  /** Human-readable upstream name, served as `meta.source`. */
  label: string;
  /** ISO 8601 time the data was fetched. */
  lastSync: string;
  /** ISO 8601: lastSync + 24 h. */
  expiresAt: string;
  /** True when the latest run failed for this source and its last good data was carried over. */
  stale: boolean;
  locales: Partial<Record<Locale, Partial<Record<AreaName, FileEntry>>>>;
}

/**
 * What marks a snapshot made by the fixture generator (`npm run fixtures`, sync/fixtures/main.ts)
 * from generated upstream payloads: its data was never fetched from an upstream and does not
 * expire. A sync never writes it, and never carries it over from the snapshot it builds on.
 */
export interface FixtureOrigin {
  /** The generator's seed (`--seed`). */
  seed: number;
  /** The generator's scale (`--scale`), 1 for the committed fixture snapshot. */
  scale: number;
}

export interface Manifest {
  formatVersion: typeof FORMAT_VERSION;
  /** Snapshot id, also the name of its directory, e.g. `2026-11-21T04-00-00Z`. */
  version: string;
  /** ISO 8601 time the manifest was written (for a fixture snapshot, the time it was generated for). */
  createdAt: string;
  /** Present only in a snapshot the fixture generator made; absent in every synced one. */
  fixture?: FixtureOrigin;
  /** A source that was never synced is absent; its areas are empty. */
  sources: Partial<Record<SourceName, SourceEntry>>;
}

// ---------------------------------------------------------------------------
// Records, one interface per GraphQL object type. `null` marks a value the
// upstream did not provide.

export interface Image {
  url: string;
  alternativeText: string | null;
}
export interface Price {
  amount: string;
  currency: string;
  formatted: string | null;
}
export interface Summary {
  startingPrice: Price | null;
  rankingScoreValue: number;
  popularity: number;
  isActive: boolean;
}
export interface Supplier {
  id: string | null;
  name: string | null;
  slug: string | null;
}
export interface LocationRecord {
  id: string;
  title: string;
  slug: string;
  /** Number of activities of this locale at this location. */
  activityCount: number | null;
}
export interface ActivityTypeRecord {
  id: string;
  title: string;
  slug: string;
}
export interface Info {
  title: string;
  teaser: string | null;
  slug: string;
}
export interface ActivityRecord {
  id: string;
  bookingId: number;
  locale: Locale;
  title: string | null;
  teaserImage: Image | null;
  supplier: Supplier | null;
  location: LocationRecord | null;
  type: ActivityTypeRecord | null;
  info: Info | null;
  summary: Summary;
  isBookable: boolean;
  nextAvailableDate: string | null;
  /** Latitude as text, as the upstream sends it. */
  lat: string | null;
  lng: string | null;
  /** Not in the API: attribute values (e.g. `family`, `indoor`) for the attributeValue filter. */
  attributeValues: string[];
}

export interface SnowdataResort {
  id: number;
  name: string;
  regionId: number | null;
}
export interface SnowdataAddress {
  name: string | null;
  street: string | null;
  place: string | null;
  zip: number | null;
  phone: string | null;
  email: string | null;
  website: string | null;
}
export interface SnowdataLifts {
  cableCar: number | null;
  chairlift: number | null;
  skilift: number | null;
  babyLift: number | null;
}
export interface SnowdataInfo {
  altitude: number | null;
  seasonStart: string | null;
  seasonEnd: string | null;
  totalFacilities: number | null;
  cableCars: number | null;
  chairlifts: number | null;
  skilifts: number | null;
  babyLifts: number | null;
  conveyorBelts: number | null;
  hasShuttlebus: boolean | null;
  report: string | null;
  lifts: SnowdataLifts | null;
}
export interface SnowdataSnow {
  freshSnow: number | null;
  freshSnowPisteTop: number | null;
  depthResort: number | null;
  depthPiste: number | null;
  lastSnowfall: string | null;
  avalancheRiskUrl: string | null;
  report: string | null;
}
export interface SnowdataSki {
  areaName: string | null;
  slopesTotal: number | null;
  slopesLength: number | null;
  slopesOpenLength: number | null;
  valleyRuns: number | null;
  openFacilities: number | null;
  openingTime: string | null;
  closingTime: string | null;
  condition: string | null;
  snowCondition: string | null;
  valleyRunsCondition: string | null;
  report: string | null;
}
export interface SnowdataSnowpark {
  name: string | null;
  type: string | null;
  status: string | null;
  lastUpdated: string | null;
}
export interface SnowdataSnowboard {
  funparkName: string | null;
  snowparksTotal: number | null;
  snowparksOpen: number | null;
  halfpipesOpen: number | null;
  snowtubesOpen: number | null;
  hasArtificialSnow: boolean | null;
  hasFloodlight: boolean | null;
  condition: string | null;
  snowparks: SnowdataSnowpark[] | null;
}
export interface SnowdataMobilityRoute {
  title: string | null;
  status: string | null;
}
export interface SnowdataCrosscountry {
  areaName: string | null;
  phone: string | null;
  classicLength: number | null;
  classicPrepared: number | null;
  skatingLength: number | null;
  skatingPrepared: number | null;
  dogTrailLength: number | null;
  dogTrailOpen: number | null;
  floodlightLength: number | null;
  floodlightTill: string | null;
  classicCondition: string | null;
  skatingCondition: string | null;
  report: string | null;
  routes: SnowdataMobilityRoute[] | null;
}
export interface SnowdataHiking {
  areaName: string | null;
  walkingTrailLength: number | null;
  walkingTrailPrepared: number | null;
  snowshoeTrailsTotal: number | null;
  snowshoeTrailsLength: number | null;
  condition: string | null;
  openingTime: string | null;
  closingTime: string | null;
  report: string | null;
  routes: SnowdataMobilityRoute[] | null;
}
export interface SnowdataTobogganing {
  areaName: string | null;
  tracksTotal: number | null;
  tracksLength: number | null;
  tracksOpen: number | null;
  tracksOpenLength: number | null;
  hasArtificialSnow: boolean | null;
  hasPublicTransport: boolean | null;
  hasRental: boolean | null;
  skillLevel: string | null;
  condition: string | null;
  report: string | null;
}
export interface SnowdataSledge {
  runsTotal: number | null;
  runsLength: number | null;
  runsOpenLength: number | null;
  condition: string | null;
}
export interface SnowdataSnowshoe {
  trailsTotal: number | null;
  trailsLength: number | null;
  trailsOpenLength: number | null;
  condition: string | null;
}
export interface SnowdataPriceCategory {
  adult: string | null;
  child: string | null;
  teenager: string | null;
  senior: string | null;
  currency: string | null;
}
export interface SnowdataPrices {
  dayTicket: SnowdataPriceCategory | null;
  halfDayTicket: SnowdataPriceCategory | null;
  weekTicket: SnowdataPriceCategory | null;
  seasonTicket: SnowdataPriceCategory | null;
  halfDayFrom: string | null;
  familyReduction: boolean | null;
  hourCardsAvailable: boolean | null;
  dynamicPrices: boolean | null;
  description: string | null;
}
export interface SnowdataWeather {
  condition: string | null;
  temperatureResort: number | null;
  temperaturePiste: number | null;
  forecast: string | null;
}
export interface SnowdataWeatherForecast {
  /** BERG (mountain) or TAL (valley). */
  type: string;
  date: string;
  temperature: number | null;
  iconCode: number | null;
  url: string | null;
}
export interface SnowdataImage {
  type: string;
  url: string;
  created: string | null;
  updated: string | null;
}
export interface SnowdataWebcam {
  url: string;
  sourceUrl: string | null;
  place: string | null;
  latitude: number | null;
  longitude: number | null;
}
export interface SnowdataLink {
  type: string;
  title: string | null;
  url: string;
}
export interface SnowdataDetailLink {
  lang: string;
  url: string;
}
export interface StationRecord {
  id: number;
  name: string;
  /** From the first webcam that has coordinates. */
  latitude: number | null;
  longitude: number | null;
  resort: SnowdataResort | null;
  address: SnowdataAddress | null;
  info: SnowdataInfo | null;
  snow: SnowdataSnow | null;
  ski: SnowdataSki | null;
  snowboard: SnowdataSnowboard | null;
  crosscountry: SnowdataCrosscountry | null;
  hiking: SnowdataHiking | null;
  tobogganing: SnowdataTobogganing | null;
  /** Derived from tobogganing. */
  sledge: SnowdataSledge | null;
  /** Derived from hiking. */
  snowshoe: SnowdataSnowshoe | null;
  prices: SnowdataPrices | null;
  weather: SnowdataWeather | null;
  weatherForecast: SnowdataWeatherForecast[] | null;
  images: SnowdataImage[] | null;
  webcams: SnowdataWebcam[] | null;
  links: SnowdataLink[] | null;
  detailLinks: SnowdataDetailLink[] | null;
  lastUpdate: string | null;
  /** The upstream record as received. */
  raw: unknown;
}

export interface RouteRecord {
  id: string;
  /** snowshoe, crosscountry, winterhiking or sledging. */
  type: string;
  number: string;
  /** OPEN, CLOSED or NOINFO. */
  status: string | null;
  lastUpdated: string | null;
  link: string | null;
  isStationActive: boolean;
}

export interface TourRecord {
  id: string;
  name: string;
  abstract: string | null;
  url: string | null;
  routeType: string | null;
  routeCategory: string | null;
  difficulty: string | null;
  season: string | null;
  latitude: number | null;
  longitude: number | null;
  startPoint: string | null;
  endPoint: string | null;
  /** Kilometres. */
  distance: number | null;
  /** Minutes. */
  duration: number | null;
  ascent: number | null;
  descent: number | null;
  minAltitude: number | null;
  maxAltitude: number | null;
  isRoundtrip: boolean;
  isBarrierFree: boolean;
  switzerlandMobilityRoute: number | null;
  switzerlandMobilityUrl: string | null;
  geodataUrl: string | null;
  providerName: string | null;
  providerEmail: string | null;
  providerPhone: string | null;
  providerUrl: string | null;
  imageUrl: string | null;
  logoUrl: string | null;
  landscapes: string[];
  views: string[];
  origin: string | null;
  lastUpdated: string | null;
}

export interface AttractionRecord {
  id: string;
  name: string;
  abstract: string | null;
  description: string | null;
  url: string | null;
  latitude: number | null;
  longitude: number | null;
  locality: string | null;
  postalCode: string | null;
  contactName: string | null;
  contactPhone: string | null;
  contactEmail: string | null;
  contactUrl: string | null;
  touristType: string[];
  seasons: string[];
  sportTypes: string[];
  neededTime: string | null;
  childrenAges: string[];
  difficulty: string | null;
  natureTypes: string[];
  experienceTypes: string[];
  views: string[];
  isAccessibleForFree: boolean;
  isWheelchairAccessible: boolean;
  isIndoor: boolean;
  isOutdoor: boolean;
  suitableFor: string[];
  seasonStart: string | null;
  seasonEnd: string | null;
  imageUrl: string | null;
  images: string[];
  destinationId: string | null;
  lastUpdated: string | null;
}

/** The record type stored in each area's files. */
export interface AreaRecords {
  activities: ActivityRecord;
  locations: LocationRecord;
  types: ActivityTypeRecord;
  stations: StationRecord;
  routes: RouteRecord;
  tours: TourRecord;
  attractions: AttractionRecord;
}

// ---------------------------------------------------------------------------
// Writing

/** A content file of an earlier version of the same data directory, copied as it is. */
export interface CarriedFile {
  carry: FileEntry;
}

/** What one source contributes to a snapshot. */
export interface SourceSnapshot {
  label: string;
  /** ISO 8601 time the data was fetched (of the oldest part, when some files are carried). */
  lastSync: string;
  stale?: boolean;
  /** Per locale and area: fresh records to write, or a file to carry over from an earlier version. */
  locales: Partial<Record<Locale, Partial<{ [A in AreaName]: AreaRecords[A][] | CarriedFile }>>>;
}

/** Snapshot ids sort by time and are safe as directory names: `2026-11-21T04-00-00Z`. */
export function versionId(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}

/** Relative path of one content file inside a data directory. */
export function contentPath(version: string, locale: Locale, area: AreaName): string {
  return `${version}/${locale}/${area}.json.gz`;
}

/**
 * Writes a complete snapshot and then commits it by replacing `manifest.json`.
 *
 * Content goes to `<version>.tmp/` first, every file is fsynced, the directory is renamed
 * to `<version>/`, and only then is the manifest replaced through temp-then-rename. A crash
 * at any point leaves the previous manifest, and so the previous snapshot, intact.
 * A {@link CarriedFile} is copied from its earlier version after checking its sha256.
 *
 * @param options.fixture marks the snapshot as the fixture generator's (see {@link FixtureOrigin})
 * @throws if `<version>/` already exists (versions are immutable once published), or a carried
 *   file is missing or no longer matches its sha256
 */
export async function writeSnapshot(
  dataDir: string,
  version: string,
  sources: Partial<Record<SourceName, SourceSnapshot>>,
  now = new Date(),
  options: { fixture?: FixtureOrigin } = {},
): Promise<Manifest> {
  const finalDir = path.join(dataDir, version);
  const tmpDir = `${finalDir}.tmp`;
  if (await exists(finalDir)) throw new Error(`snapshot version ${version} already exists in ${dataDir}`);
  await fs.rm(tmpDir, { recursive: true, force: true });

  const { fixture } = options;
  const manifest: Manifest = {
    formatVersion: FORMAT_VERSION,
    version,
    createdAt: now.toISOString(),
    ...(fixture && { fixture: { seed: fixture.seed, scale: fixture.scale } }),
    sources: {},
  };
  try {
    for (const name of SOURCE_NAMES) {
      const source = sources[name];
      if (!source) continue;
      const entry: SourceEntry = {
        label: source.label,
        lastSync: source.lastSync,
        expiresAt: new Date(Date.parse(source.lastSync) + TTL_MS).toISOString(),
        stale: source.stale ?? false,
        locales: {},
      };
      for (const locale of LOCALES) {
        const areas = source.locales[locale];
        if (!areas) continue;
        const files: Partial<Record<AreaName, FileEntry>> = {};
        for (const area of SOURCE_AREAS[name]) {
          const content = (areas as Partial<Record<AreaName, unknown[] | CarriedFile>>)[area];
          if (!content) continue;
          const file = contentPath(version, locale, area);
          const bytes = Array.isArray(content) ? encodeRecords(content) : await readCarried(dataDir, content.carry);
          await writeDurably(path.join(tmpDir, locale, `${area}.json.gz`), bytes);
          files[area] = { file, count: Array.isArray(content) ? content.length : content.carry.count, sha256: sha256(bytes) };
        }
        entry.locales[locale] = files;
      }
      manifest.sources[name] = entry;
    }
    await writeDurably(path.join(tmpDir, 'manifest.json'), encodeManifest(manifest));
    await fsyncDir(tmpDir);
    await fs.rename(tmpDir, finalDir);
    await fsyncDir(dataDir);
  } catch (error) {
    await fs.rm(tmpDir, { recursive: true, force: true });
    throw error;
  }
  await writeManifest(dataDir, manifest);
  return manifest;
}

/** Replaces `manifest.json` atomically: temp file beside it, fsync, rename, fsync the directory. */
export async function writeManifest(dataDir: string, manifest: Manifest): Promise<void> {
  const target = path.join(dataDir, 'manifest.json');
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    await writeDurably(tmp, encodeManifest(manifest));
    await fs.rename(tmp, target);
    await fsyncDir(dataDir);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/**
 * Reads a data directory's `manifest.json` as it is, without checking it.
 *
 * @returns the parsed manifest, or null when there is none
 * @throws when the file cannot be read or is not JSON
 */
export async function readManifest(dataDir: string): Promise<Manifest | null> {
  const file = path.join(dataDir, 'manifest.json');
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return JSON.parse(text) as Manifest;
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
}

function encodeManifest(manifest: Manifest): Buffer {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
}

async function readCarried(dataDir: string, entry: FileEntry): Promise<Buffer> {
  const file = path.join(dataDir, entry.file);
  const bytes = await fs.readFile(file);
  const actual = sha256(bytes);
  if (actual !== entry.sha256) throw new Error(`cannot carry ${file} over: sha256 ${actual}, expected ${entry.sha256}`);
  return bytes;
}

/**
 * One JSON array, one record per line (readable with `zcat`), gzip-compressed deterministically.
 * Characters outside ASCII are written as `\uXXXX` escapes, so the file is ASCII: the server
 * decodes an ASCII file as Latin-1 (server/load.ts), a plain copy, where UTF-8 with accented
 * letters has to be decoded; the escapes cost little, since gzip takes most of them back.
 */
export function encodeRecords(records: readonly unknown[]): Buffer {
  const json = records.length === 0 ? '[]\n' : `[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`;
  return gzipSync(json.replace(NON_ASCII, escapeUnicode), { level: 9 });
}

// Every UTF-16 unit above ASCII; the halves of a surrogate pair are escaped one by one, as JSON allows.
const NON_ASCII = /[\u0080-\uffff]/g;

function escapeUnicode(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Hex sha256 of some bytes, as stored in {@link FileEntry.sha256}. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function writeDurably(file: string, bytes: Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const handle = await fs.open(file, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
