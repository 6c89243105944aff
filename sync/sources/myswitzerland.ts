/**
 * Tours and attractions: the MySwitzerland Open Data API (Switzerland Tourism).
 *
 * - Upstream: https://opendata.myswitzerland.io/v1 — `GET /tours` and `GET /attractions`, with
 *   `lang` (de, en, fr, it), `page`, `hitsPerPage`, `expand=true` (whole records in the list)
 *   and `striphtml=true`. Portal: https://opendata.myswitzerland.io/
 * - Paging: `page` is 0-based. A response is `{ meta: { page: { size, totalElements,
 *   totalPages, number } }, links: { self, first, last, prev, next }, data: [...] }`, where
 *   `number` is the page index and `size` the number of records on that page. The same record
 *   can turn up on two pages; the sync merges by `identifier`.
 * - Auth: an API key in the `x-api-key` header.
 * - Rate limit: a quota, not published. Real clients pause between calls and wait about a
 *   minute after a 429 without `Retry-After`; we pace tours and attractions together
 *   ({@link DEFAULT_REQUEST_INTERVAL_MS}) and wait {@link DEFAULT_RATE_LIMIT_WAIT_MS}.
 * - Licence: every record carries `subjectOf.license`, Creative Commons BY-SA 4.0
 *   (http://creativecommons.org/licenses/by-sa/4.0/): attribute Switzerland Tourism and share
 *   derived data under the same terms.
 *
 * The field-by-field mapping onto our Tour and Attraction types, with the reasons behind each
 * choice, is in docs/myswitzerland-mapping.md. The attraction shape is read off 1,069 real
 * records (test/fixtures/upstream/myswitzerland/). No real tour response is public:
 * `UpstreamTour` follows the client code that reads the real one
 * (test/fixtures/upstream/myswitzerland/TOURS-EVIDENCE.md), and `npm run sync -- --probe
 * tours` checks it against the real answer once a key is at hand.
 */

import { FetchError, type HttpClient, type Pace, redactUrl } from '../client.ts';
import type { FetchContext, Rejection, SourceData } from '../publish.ts';
import type { AttractionRecord, Locale, TourRecord } from '../format.ts';
import { InvalidRecordError } from './invalidRecordError.ts';
import { compareFields, type ProbeEndpoint } from './probe.ts';

export const DEFAULT_BASE_URL = 'https://opendata.myswitzerland.io/v1';

/**
 * Switzerland with a margin of about 30 km (degrees), so Liechtenstein and places just across
 * a border still count. Coordinates outside it are upstream errors and are dropped.
 */
export const SERVICE_AREA = { minLng: 5.5, maxLng: 11, minLat: 45.5, maxLat: 48.2 } as const;

/** The values of the API's `lang` parameter. */
export const LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

// ---------------------------------------------------------------------------
// Upstream shapes: only what we read. Real records carry many more keys (event, price,
// availableLanguage, additionalType, ...), which are ignored.

/** Where the real data varies between one object and a list of them; the first object counts. */
export type OneOrMany<T> = T | T[];

export interface UpstreamClassificationValue {
  /** Language-independent code, e.g. `summer`, `2to4hourshalfday`. */
  name?: string;
  /** Label in the requested language, e.g. `Summer`. */
  title?: string;
}

/** One facet of a record. Entries without `name` exist (lists of spoken languages). */
export interface UpstreamClassification {
  name?: string;
  title?: string;
  values?: UpstreamClassificationValue[];
}

export interface UpstreamAddress {
  /** `Contact Address` or `MICE Office`. */
  contactType?: string;
  name?: string;
  addressLocality?: string;
  postalCode?: string | null;
  streetAddress?: string;
  telephone?: string;
  email?: string;
  url?: string;
}

export interface UpstreamGeo {
  latitude?: number;
  longitude?: number;
}

export interface UpstreamImage {
  url?: string;
  name?: string;
  keywords?: string;
}

/** A record of `GET /attractions?expand=true` (schema.org TouristAttraction). */
export interface UpstreamAttraction {
  identifier: string;
  name: string;
  abstract?: string;
  /** Plain text with `striphtml=true`; may contain HTML otherwise. */
  description?: string;
  url?: string;
  geo?: UpstreamGeo;
  address?: OneOrMany<UpstreamAddress>;
  /** Record-level contact, used when `address` has none. */
  telephone?: string;
  email?: string;
  touristType?: string[] | string | null;
  classification?: UpstreamClassification[];
  image?: UpstreamImage[];
  photo?: string | UpstreamImage;
  containedInPlace?: { identifier?: string; url?: string };
  isAccessibleForFree?: boolean;
  /** `"allyear"` or month names, e.g. `{ start: "may", end: "october" }`. */
  recommendedSeason?: 'allyear' | { start?: string; end?: string } | null;
  /** Not seen in real attraction records; read when present. */
  dateModified?: string;
  subjectOf?: { license?: string };
  [key: string]: unknown;
}

/** `specs` of a tour. Units: distance km, duration minutes, heights metres. */
export interface UpstreamTourSpecs {
  /** `summer` or `winter`. */
  season?: string;
  distance?: number;
  duration?: number;
  ascent?: number;
  descent?: number;
  minAltitude?: number;
  maxAltitude?: number;
  roundTrip?: boolean;
  barrierFree?: boolean;
}

/** Set on routes that come from SwitzerlandMobility (SchweizMobil). */
export interface UpstreamSwitzerlandMobility {
  url?: string;
  /** URL of the route's GeoJSON. */
  geodata?: string;
  /** `national`, `regional`, `local` or `handicap`. */
  routeCategory?: string;
  /** National route number (1–9 national, 2 digits regional, 3 digits local). */
  routeNumber?: number | string;
  /** `easy`, `medium` or `difficult` each. */
  requirements?: { technical?: string; endurance?: string };
}

/** The organisation behind a tour; its contact details are in `address`. */
export interface UpstreamProvider {
  name?: string;
  address?: OneOrMany<UpstreamAddress>;
}

/** A record of `GET /tours?expand=true`, as client code of the real API reads it. */
export interface UpstreamTour {
  identifier: string;
  name: string;
  abstract?: string;
  url?: string;
  /** The start point. */
  geo?: UpstreamGeo;
  provider?: OneOrMany<UpstreamProvider>;
  classification?: UpstreamClassification[];
  image?: UpstreamImage[];
  photo?: string | UpstreamImage;
  logo?: string | UpstreamImage;
  specs?: OneOrMany<UpstreamTourSpecs>;
  switzerlandMobility?: UpstreamSwitzerlandMobility;
  /** Places along the route, start first and end last (a round trip ends where it starts). */
  itinerary?: { name?: string }[];
  dateModified?: string;
  [key: string]: unknown;
}

/** One page of a list response. */
export interface UpstreamPage<T = unknown> {
  meta: { page: { size: number; totalElements: number; totalPages: number; number: number } };
  links: Partial<Record<'self' | 'first' | 'last' | 'prev' | 'next', string>>;
  data: T[];
}

// ---------------------------------------------------------------------------
// Normalising


/**
 * Maps one upstream attraction onto the API's Attraction.
 *
 * Gaps become `null` (lists `[]`, booleans `false`); list values are deduplicated in
 * upstream order.
 *
 * @param lang the language the record was requested in (used in error messages)
 * @throws InvalidRecordError when the record has no identifier or name, or a field we read
 *   has the wrong type
 */
export function normalizeAttraction(record: unknown, lang: Language): AttractionRecord {
  const r = new RecordReader('attraction', record, lang);
  const facets = r.classifications();
  const address = r.first('address');
  const [latitude, longitude] = r.geo();
  const images = r.imageUrls();
  const indoorOutdoor = facets.get('indooroutdoorclassifications') ?? [];
  const [seasonStart, seasonEnd] = r.recommendedSeason();
  const neededTime = facets.get('neededtime')?.[0] ?? null;
  return {
    id: r.id,
    name: r.name,
    abstract: r.string('abstract'),
    description: r.string('description'),
    url: r.string('url'),
    latitude,
    longitude,
    locality: address.string('addressLocality'),
    postalCode: address.string('postalCode'),
    contactName: address.string('name'),
    // Some records have no address but a record-level telephone and email.
    contactPhone: address.string('telephone') ?? r.string('telephone'),
    contactEmail: address.string('email') ?? r.string('email'),
    contactUrl: address.string('url'),
    touristType: r.stringList('touristType'),
    seasons: facets.get('seasons') ?? [],
    sportTypes: facets.get('sporttype') ?? [],
    neededTime,
    childrenAges: facets.get('childrenage') ?? [],
    difficulty: facets.get('difficulty')?.[0] ?? null,
    natureTypes: facets.get('naturetype') ?? [],
    experienceTypes: facets.get('experiencetype') ?? [],
    views: facets.get('views') ?? [],
    isAccessibleForFree: r.boolean('isAccessibleForFree'),
    // `partiallywheelchairaccessible` does not count: a wheelchair user cannot rely on it.
    isWheelchairAccessible: (facets.get('wheelchairaccessibleclassifications') ?? []).includes('wheelchairaccessible'),
    isIndoor: indoorOutdoor.includes('indoor') || indoorOutdoor.includes('indooroutdoor'),
    isOutdoor: indoorOutdoor.includes('outdoor') || indoorOutdoor.includes('indooroutdoor'),
    suitableFor: facets.get('suitablefortype') ?? [],
    seasonStart,
    seasonEnd,
    imageUrl: r.photo() ?? images[0] ?? null,
    images,
    destinationId: r.object('containedInPlace').string('identifier'),
    lastUpdated: r.string('dateModified'),
  };
}

const ROUTE_CATEGORIES: Record<string, string> = {
  national: 'National',
  regional: 'Regional',
  local: 'Local',
  handicap: 'Handicap',
};

// Tour difficulties are easy/medium/difficult; attractions of the same API use low/medium/high,
// and what `requirementconditions` holds is not documented, so accept both.
const TOUR_DIFFICULTIES: Record<string, string> = {
  easy: 'easy',
  low: 'easy',
  medium: 'medium',
  difficult: 'difficult',
  high: 'difficult',
};
const DIFFICULTY_RANK = ['easy', 'medium', 'difficult'];

/**
 * Maps one upstream tour onto the API's Tour. Distance in km, duration in minutes, heights
 * in metres, as upstream sends them (integers are rounded).
 *
 * @param lang the language the record was requested in (used in error messages)
 * @throws InvalidRecordError when the record has no identifier or name, or a field we read
 *   has the wrong type
 */
export function normalizeTour(record: unknown, lang: Language): TourRecord {
  const r = new RecordReader('tour', record, lang);
  const facets = r.classifications();
  const provider = r.first('provider');
  const contact = provider.first('address');
  const specs = r.first('specs');
  const mobility = r.object('switzerlandMobility');
  const requirements = mobility.object('requirements');
  const [latitude, longitude] = r.geo();
  const itinerary = r.items('itinerary').map((place) => place.string('name'));
  const category = facets.get('routecategories')?.[0] ?? mobility.string('routeCategory');
  const requiredLevels = [requirements.string('technical'), requirements.string('endurance')]
    .map((level) => (level === null ? -1 : DIFFICULTY_RANK.indexOf(TOUR_DIFFICULTIES[level] ?? '')))
    .filter((rank) => rank >= 0);
  const difficulty = facets.get('requirementconditions')?.[0];
  const season = [...specs.stringList('season').map((s) => s.toLowerCase()), ...(facets.get('seasons') ?? [])].find((s) => s === 'summer' || s === 'winter');
  return {
    id: r.id,
    name: r.name,
    abstract: r.string('abstract'),
    url: r.string('url'),
    routeType: facets.get('routestypes')?.[0] ?? null,
    routeCategory: category === null ? null : (ROUTE_CATEGORIES[category.toLowerCase()] ?? category),
    // The classification is general; SwitzerlandMobility routes grade technique and endurance
    // separately, and the harder of the two is the route's difficulty.
    difficulty:
      difficulty !== undefined
        ? (TOUR_DIFFICULTIES[difficulty] ?? null)
        : requiredLevels.length > 0
          ? (DIFFICULTY_RANK[Math.max(...requiredLevels)] ?? null)
          : null,
    // `specs.season` is what clients of the real API read; the facet covers tours without it.
    season: season ?? null,
    latitude,
    longitude,
    startPoint: itinerary[0] ?? null,
    endPoint: itinerary.length > 1 ? (itinerary[itinerary.length - 1] ?? null) : null,
    distance: specs.number('distance'),
    duration: specs.integer('duration'),
    ascent: specs.integer('ascent'),
    descent: specs.integer('descent'),
    minAltitude: specs.integer('minAltitude'),
    maxAltitude: specs.integer('maxAltitude'),
    isRoundtrip: specs.boolean('roundTrip'),
    isBarrierFree: specs.boolean('barrierFree'),
    switzerlandMobilityRoute: mobility.routeNumber('routeNumber'),
    switzerlandMobilityUrl: mobility.string('url'),
    geodataUrl: mobility.string('geodata'),
    providerName: provider.string('name'),
    providerEmail: contact.string('email'),
    providerPhone: contact.string('telephone'),
    providerUrl: contact.string('url'),
    imageUrl: r.photo() ?? r.imageUrls()[0] ?? null,
    logoUrl: r.imageRef('logo'),
    landscapes: facets.get('landscape') ?? [],
    views: facets.get('views') ?? [],
    origin: facets.get('origin')?.[0] ?? null,
    lastUpdated: r.string('dateModified'),
  };
}

type Json = Record<string, unknown>;
type Fail = (field: string, problem: string) => never;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

/**
 * Reads the fields of one upstream object. The rule everywhere: a missing or null field is a
 * gap, a field present with the wrong type makes the whole record invalid.
 */
class FieldReader {
  constructor(
    protected readonly value: Json,
    /** Path of this object inside the record, `''` for the record itself. */
    protected readonly path: string,
    protected readonly fail: Fail,
  ) {}

  protected at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  protected wrongType(key: string, expected: string, value: unknown = this.value[key]): never {
    return this.fail(this.at(key), `"${this.at(key)}" must be ${expected}, got ${typeName(value)}`);
  }

  /** Trimmed text; blank text counts as a gap. */
  string(key: string): string | null {
    const v = this.value[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') return this.wrongType(key, 'a string');
    const trimmed = v.trim();
    return trimmed === '' ? null : trimmed;
  }

  number(key: string): number | null {
    const v = this.value[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.wrongType(key, 'a finite number');
    return v;
  }

  integer(key: string): number | null {
    const v = this.number(key);
    return v === null ? null : Math.round(v);
  }

  /** An integer, also when sent as a digit string (`"01"`). */
  routeNumber(key: string): number | null {
    const v = this.value[key];
    if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
    return this.integer(key);
  }

  /** Missing means false. */
  boolean(key: string): boolean {
    const v = this.value[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') return this.wrongType(key, 'a boolean');
    return v;
  }

  /** A nested object; a missing one reads as empty. */
  object(key: string): FieldReader {
    const v = this.value[key];
    if (v === undefined || v === null) return new FieldReader({}, this.at(key), this.fail);
    if (!isObject(v)) return this.wrongType(key, 'an object');
    return new FieldReader(v, this.at(key), this.fail);
  }

  /** An array of objects; a missing array reads as empty, null items are skipped. */
  items(key: string): FieldReader[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return this.wrongType(key, 'an array');
    return v.flatMap((item: unknown, i) => {
      if (item === undefined || item === null) return [];
      if (!isObject(item)) return this.wrongType(`${key}.${i}`, 'an object', item);
      return [new FieldReader(item, this.at(`${key}.${i}`), this.fail)];
    });
  }

  /** Strings of a list (a single string counts as a list of one), deduplicated in order. */
  stringList(key: string): string[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (typeof v === 'string') return unique([v.trim()]);
    if (!Array.isArray(v)) return this.wrongType(key, 'an array');
    return unique(v.map((item: unknown, i) => (typeof item === 'string' ? item.trim() : this.wrongType(`${key}.${i}`, 'a string', item))));
  }

  /**
   * An object sent either alone or as a list of objects: the object, or the first of the list
   * (what clients of the API take); a missing one reads as empty.
   */
  first(key: string): FieldReader {
    return Array.isArray(this.value[key]) ? (this.items(key)[0] ?? new FieldReader(EMPTY, this.at(`${key}.0`), this.fail)) : this.object(key);
  }

  /** A URL given either as a string or as an ImageObject `{ url }`. */
  imageRef(key: string): string | null {
    return typeof this.value[key] === 'string' ? this.string(key) : this.object(key).string('url');
  }
}

const EMPTY: Json = {};

/** The record itself: checks identifier and name up front, and reads the shared parts. */
class RecordReader extends FieldReader {
  readonly id: string;
  readonly name: string;

  constructor(kind: 'tour' | 'attraction', record: unknown, lang: Language) {
    let id: string | null = null;
    const fail: Fail = (field, problem) => {
      throw new InvalidRecordError(kind, id, problem, field);
    };
    if (!isObject(record)) fail('', `record must be an object, got ${typeName(record)}`);
    super(record as Json, '', fail);
    const identifier = (record as Json)['identifier'];
    if (identifier === undefined || identifier === null) fail('identifier', 'missing "identifier"');
    if (typeof identifier !== 'string' || identifier.trim() === '') {
      fail('identifier', `"identifier" must be a non-empty string, got ${JSON.stringify(identifier)}`);
    }
    id = identifier.trim();
    this.id = id;
    const name = this.string('name');
    if (name === null) fail('name', 'missing "name"');
    this.name = name;
  }

  /** Values (`values[].name`) per classification name, merged and deduplicated in order. */
  classifications(): Map<string, string[]> {
    const facets = new Map<string, string[]>();
    for (const entry of this.items('classification')) {
      const name = entry.string('name');
      const values = entry.items('values').map((v) => v.string('name'));
      // Entries without a name are lists of spoken languages, not facets.
      if (name === null) continue;
      const known = facets.get(name) ?? [];
      facets.set(name, unique([...known, ...values.filter((v): v is string => v !== null)]));
    }
    return facets;
  }

  /**
   * `[latitude, longitude]` from `geo`; both null unless both are present and inside
   * `SERVICE_AREA` (one real record places a Lucerne club near Dunkirk: a wrong point would
   * mislead near-me searches, a missing one only leaves the record out of them).
   */
  geo(): [number | null, number | null] {
    const geo = this.object('geo');
    const latitude = geo.number('latitude');
    const longitude = geo.number('longitude');
    if (latitude !== null && (latitude < -90 || latitude > 90)) this.fail('geo.latitude', `"geo.latitude" ${latitude} is outside [-90, 90]`);
    if (longitude !== null && (longitude < -180 || longitude > 180)) this.fail('geo.longitude', `"geo.longitude" ${longitude} is outside [-180, 180]`);
    if (latitude === null || longitude === null) return [null, null];
    const { minLng, maxLng, minLat, maxLat } = SERVICE_AREA;
    return longitude < minLng || longitude > maxLng || latitude < minLat || latitude > maxLat ? [null, null] : [latitude, longitude];
  }

  /** `image[].url`, deduplicated in order. */
  imageUrls(): string[] {
    return unique(this.items('image').flatMap((image) => image.string('url') ?? []));
  }

  photo(): string | null {
    return this.imageRef('photo');
  }

  /** `[seasonStart, seasonEnd]` as month names; `allyear` is January to December. */
  recommendedSeason(): [string | null, string | null] {
    const season = this.value['recommendedSeason'];
    if (typeof season === 'string') return season.trim() === 'allyear' ? ['january', 'december'] : [null, null];
    const range = this.object('recommendedSeason');
    return [range.string('start'), range.string('end')];
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}

// ---------------------------------------------------------------------------
// Fetching

/** Served as `meta.source` of tours and attractions. */
export const SOURCE_LABEL = 'MySwitzerland Open Data';
/** Records per page (`hitsPerPage`); 50 is what real clients of the API send. */
export const HITS_PER_PAGE = 50;
/** The API's `lang` per service locale. */
export const LANGUAGE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, Language>;
/** More pages than any real list has: a guard against an upstream that never stops paging. */
const MAX_PAGES = 10_000;
/**
 * Least time between two requests, tours and attractions together, in ms: about what the
 * slower of the API's known clients pauses, since the quota is not published.
 */
export const DEFAULT_REQUEST_INTERVAL_MS = 1_000;
/** Wait after a 429 without `Retry-After`, in ms: the quota's clock, as its clients found it. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

export interface MySwitzerlandConfig {
  /** MYSWITZERLAND_BASE_URL, default {@link DEFAULT_BASE_URL}. */
  baseUrl: string;
  /** MYSWITZERLAND_API_KEY, sent as `x-api-key`. */
  apiKey: string;
  /** MYSWITZERLAND_REQUEST_INTERVAL_MS, default {@link DEFAULT_REQUEST_INTERVAL_MS}. */
  requestIntervalMs: number;
  /** MYSWITZERLAND_RATE_LIMIT_WAIT_MS, default {@link DEFAULT_RATE_LIMIT_WAIT_MS}. */
  rateLimitWaitMs: number;
}

/** The quota tours and attractions share: one key, so both lists are paced together. */
function quota(config: MySwitzerlandConfig): Pace {
  return { key: 'MySwitzerland', intervalMs: config.requestIntervalMs };
}

/** The options of every request to the API. */
function requestOptions(config: MySwitzerlandConfig) {
  return { headers: { 'x-api-key': config.apiKey }, pace: quota(config), rateLimitWaitMs: config.rateLimitWaitMs };
}

/** URL of one list page: `{base}/{list}?lang=…&page=…&hitsPerPage=…&expand=true&striphtml=true`. */
export function listUrl(baseUrl: string, list: 'tours' | 'attractions', lang: Language, page: number, hitsPerPage = HITS_PER_PAGE): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${list}`);
  url.searchParams.set('lang', lang);
  url.searchParams.set('page', String(page));
  url.searchParams.set('hitsPerPage', String(hitsPerPage));
  url.searchParams.set('expand', 'true');
  url.searchParams.set('striphtml', 'true');
  return url.toString();
}

/**
 * Fetches every tour in each locale of `ctx`, to the last page, and normalises them.
 * Records failing {@link normalizeTour} are returned as rejections.
 *
 * @throws FetchError when a request fails for good; Error when a page is not a list response
 */
export function fetchTours(ctx: FetchContext, config: MySwitzerlandConfig): Promise<SourceData> {
  return fetchList(ctx, config, 'tours', normalizeTour);
}

/**
 * Fetches every attraction in each locale of `ctx`, to the last page, and normalises them.
 *
 * @throws FetchError when a request fails for good; Error when a page is not a list response
 */
export function fetchAttractions(ctx: FetchContext, config: MySwitzerlandConfig): Promise<SourceData> {
  return fetchList(ctx, config, 'attractions', normalizeAttraction);
}

async function fetchList<R>(
  ctx: FetchContext,
  config: MySwitzerlandConfig,
  list: 'tours' | 'attractions',
  normalize: (record: unknown, lang: Language) => R,
): Promise<SourceData> {
  const locales = await Promise.all(
    ctx.locales.map(async (locale) => {
      const lang = LANGUAGE[locale];
      const records: R[] = [];
      const rejected: Rejection[] = [];
      for (const record of await fetchPages(ctx, config, list, locale)) {
        try {
          records.push(normalize(record, lang));
        } catch (error) {
          if (!(error instanceof InvalidRecordError)) throw error;
          rejected.push({ id: error.id, reason: error.message });
        }
      }
      return [locale, { [list]: { records, rejected } }] as const;
    }),
  );
  return { label: SOURCE_LABEL, locales: Object.fromEntries(locales) as SourceData['locales'] };
}

/** The records of every page of one list in one language, in page order. */
async function fetchPages(ctx: FetchContext, config: MySwitzerlandConfig, list: 'tours' | 'attractions', locale: Locale): Promise<unknown[]> {
  const lang = LANGUAGE[locale];
  const pages: unknown[][] = [];
  let done = 0;
  let items = 0;
  let totalPages = 1;
  const get = async (page: number): Promise<number> => {
    const url = listUrl(config.baseUrl, list, lang, page);
    const body = await ctx.http.json(url, { ...requestOptions(config), onRetry: (event) => ctx.onRetry(locale, event) });
    const { data, totalPages: total } = readPage(body, `${list} page ${page} [${lang}]`);
    pages[page] = data;
    done++;
    items += data.length;
    ctx.onPage(locale, { pages: done, totalPages: Math.max(totalPages, total), items });
    return total;
  };
  totalPages = await get(0);
  // The rest concurrently (the client bounds requests in flight). A list that grew while we
  // paged reports more pages on a later page: go on until no page asks for more.
  for (let next = 1; next < totalPages; ) {
    if (totalPages > MAX_PAGES) throw new Error(`${list} [${lang}]: the API reports ${totalPages} pages, more than the ${MAX_PAGES} we fetch`);
    const batch = Array.from({ length: totalPages - next }, (_, i) => next + i);
    next = totalPages;
    for (const total of await Promise.all(batch.map(get))) totalPages = Math.max(totalPages, total);
  }
  return pages.flat();
}

/** Checks the envelope of one list page; the records themselves are checked by the normalisers. */
function readPage(body: unknown, what: string): { data: unknown[]; totalPages: number } {
  const page = isObject(body) && isObject(body['meta']) ? body['meta']['page'] : undefined;
  const totalPages = isObject(page) ? page['totalPages'] : undefined;
  if (!isObject(body) || !Array.isArray(body['data']) || !Number.isSafeInteger(totalPages) || (totalPages as number) < 0) {
    throw new Error(`${what}: not a list response (expected { meta: { page: { totalPages } }, data: [...] }), got ${JSON.stringify(body).slice(0, 120)}`);
  }
  return { data: body['data'], totalPages: totalPages as number };
}

// ---------------------------------------------------------------------------
// Probing

/**
 * The fields {@link normalizeTour} reads, as dotted paths of a record whose object-or-list
 * fields are reduced to their first object ({@link firstObjects}). A path with nothing known
 * below it is read whole (`photo` is a URL or an ImageObject).
 */
export const TOUR_FIELDS = [
  'identifier', 'name', 'abstract', 'url', 'geo', 'geo.latitude', 'geo.longitude',
  'provider', 'provider.name', 'provider.address', 'provider.address.email', 'provider.address.telephone', 'provider.address.url',
  'classification', 'classification[].name', 'classification[].values', 'classification[].values[].name',
  'image', 'image[].url', 'photo', 'logo',
  'specs', 'specs.season', 'specs.distance', 'specs.duration', 'specs.ascent', 'specs.descent', 'specs.minAltitude', 'specs.maxAltitude', 'specs.roundTrip', 'specs.barrierFree',
  'switzerlandMobility', 'switzerlandMobility.url', 'switzerlandMobility.geodata', 'switzerlandMobility.routeCategory', 'switzerlandMobility.routeNumber',
  'switzerlandMobility.requirements', 'switzerlandMobility.requirements.technical', 'switzerlandMobility.requirements.endurance',
  'itinerary', 'itinerary[].name', 'dateModified',
] as const;

/** The fields {@link normalizeAttraction} reads; see {@link TOUR_FIELDS}. */
export const ATTRACTION_FIELDS = [
  'identifier', 'name', 'abstract', 'description', 'url', 'geo', 'geo.latitude', 'geo.longitude',
  'address', 'address.addressLocality', 'address.postalCode', 'address.name', 'address.telephone', 'address.email', 'address.url',
  'telephone', 'email', 'touristType',
  'classification', 'classification[].name', 'classification[].values', 'classification[].values[].name',
  'image', 'image[].url', 'photo', 'containedInPlace', 'containedInPlace.identifier',
  'isAccessibleForFree', 'recommendedSeason', 'dateModified',
] as const;

/** The fields that come as one object or a list of them, per list, as dotted paths. */
const ONE_OR_MANY = { tours: ['specs', 'provider', 'provider.address'], attractions: ['address'] } as const;

/** A record with each object-or-list field replaced by its first object, as the normalisers read it. */
function firstObjects(record: unknown, paths: readonly string[]): unknown {
  const copy = (node: unknown, at: string): unknown => {
    if (!isObject(node)) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        const path = at ? `${at}.${key}` : key;
        const one = paths.includes(path) && Array.isArray(value) ? value.find(isObject) : value;
        return [key, copy(one, path)];
      }),
    );
  };
  return copy(record, '');
}

/**
 * Calls `GET /tours` once (first page, English) and reports what it learnt; publishes nothing.
 * Never throws: a failed call is reported in the result.
 */
export function probeTours(http: HttpClient, config: MySwitzerlandConfig): Promise<ProbeEndpoint[]> {
  return probeList(http, config, 'tours', TOUR_FIELDS);
}

/** Calls `GET /attractions` once; see {@link probeTours}. */
export function probeAttractions(http: HttpClient, config: MySwitzerlandConfig): Promise<ProbeEndpoint[]> {
  return probeList(http, config, 'attractions', ATTRACTION_FIELDS);
}

async function probeList(http: HttpClient, config: MySwitzerlandConfig, list: 'tours' | 'attractions', known: readonly string[]): Promise<ProbeEndpoint[]> {
  const url = listUrl(config.baseUrl, list, 'en', 0);
  const endpoint: ProbeEndpoint = { name: `GET /${list}`, url: redactUrl(url), reachable: false, keyAccepted: null, records: null, unexpectedFields: [], missingFields: [] };
  let body: unknown;
  try {
    body = await http.json(url, requestOptions(config));
  } catch (error) {
    const status = error instanceof FetchError ? error.status : undefined;
    endpoint.reachable = status !== undefined;
    endpoint.keyAccepted = status === undefined ? null : status !== 401 && status !== 403;
    endpoint.error = error instanceof Error ? error.message : String(error);
    return [endpoint];
  }
  endpoint.reachable = true;
  endpoint.keyAccepted = true;
  try {
    const { data } = readPage(body, `${list} page 0 [en]`);
    endpoint.records = data.length;
    Object.assign(endpoint, compareFields(data.map((record) => firstObjects(record, ONE_OR_MANY[list])), known));
  } catch (error) {
    endpoint.error = (error as Error).message;
  }
  return [endpoint];
}
