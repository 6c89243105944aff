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
 * coordinates from its first located track or run, the sledge/snowshoe views, a location's
 * activityCount) are computed by the sync, once, when the snapshot is written.
 *
 * Types and constants only, no I/O: the server imports this module, and nothing else of sync/.
 * The writer is sync/publish/write.ts.
 */
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
  /**
   * Human-readable upstream name, served as `meta.source`; in a fixture snapshot followed by
   * `(fixture data, not from the upstream)`.
   */
  label: string;
  /** ISO 8601 time the data was fetched. */
  lastSync: string;
  /** ISO 8601: lastSync + 24 h. */
  expiresAt: string;
  /** True when the latest run failed for this source and its last good data was carried over. */
  stale: boolean;
  /**
   * One line on why the latest run did not refresh this source (the rule that refused it, or the
   * error that stopped its fetch); absent when it is fresh, and in snapshots written before it existed.
   */
  staleReason?: string;
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
  /** From the first cross-country track, else toboggan run, with both coordinates set. */
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

/** Snapshot ids sort by time and are safe as directory names: `2026-11-21T04-00-00Z`. */
export function versionId(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}

/** Relative path of one content file inside a data directory. */
export function contentPath(version: string, locale: Locale, area: AreaName): string {
  return `${version}/${locale}/${area}.json.gz`;
}
