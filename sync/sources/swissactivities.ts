/**
 * Source: activities, activity locations and activity types from the activity partner
 * (Swiss Activities). Two upstream APIs are joined per locale; the mapping is documented in
 * docs/swissactivities-mapping.md.
 *
 * Content API (texts, images, supplier, location, type, coordinates, attributes)
 *   URL:        SWISSACTIVITIES_CONTENT_URL, default {@link DEFAULT_CONTENT_URL} (partner host,
 *               given with the contract; the default is our best knowledge, not verified).
 *   Protocol:   GraphQL over HTTP POST, documents in {@link CONTENT_QUERIES}.
 *   Paging:     `start` (0-based offset) and `limit` (we send {@link CONTENT_PAGE_SIZE}); the last
 *               page is the first one with fewer than `limit` items. No total is requested.
 *   Locales:    every record carries all its translations, `locale` written "de", "en", "fr", "it".
 * Booking API (ids, ranking, prices, availability)
 *   URL:        SWISSACTIVITIES_BOOKING_URL, default {@link DEFAULT_BOOKING_URL}.
 *   Protocol:   REST, GET {@link BOOKING_PATHS} with `?locale=de_CH` (underscore form), one
 *               response per locale holding every activity, `{ data: [...] }`; not paged.
 * Auth:        both APIs take `Authorization: Bearer ${SWISSACTIVITIES_API_KEY}`.
 * Rate limit:  unknown (not published; SPEC.md says "not shown").
 * Licence:     partner contract; the content is not openly licensed and may be shown only
 *              in the partner's distribution channels.
 */

import type { FetchContext, Rejection, SourceData } from '../publish.ts';
import type {
  ActivityRecord,
  ActivityTypeRecord,
  Image,
  Info,
  Locale,
  LocationRecord,
  Price,
  Summary,
  Supplier,
} from '../snapshot.ts';
import { InvalidRecordError } from './invalidRecordError.ts';

/** Default content API endpoint (GraphQL). */
export const DEFAULT_CONTENT_URL = 'https://contentapi.swissactivities.com/graphql';
/** Default booking API base; {@link BOOKING_PATHS} are appended to it. */
export const DEFAULT_BOOKING_URL = 'https://api.swissactivities.com';

/** Items per content API page (`limit`). */
export const CONTENT_PAGE_SIZE = 100;

/** The content API's locale code per service locale. */
export const CONTENT_LOCALE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, string>;
/** A locale as the content API writes it: de, en, fr, it. */
export type ContentLocale = (typeof CONTENT_LOCALE)[Locale];

/** The booking API's locale code per service locale (language and region joined by `_`). */
export const BOOKING_LOCALE = { 'de-CH': 'de_CH', 'en-CH': 'en_CH', 'fr-CH': 'fr_CH', 'it-CH': 'it_CH' } as const satisfies Record<Locale, string>;
/** A locale as the booking API writes it: de_CH, en_CH, fr_CH, it_CH. */
export type BookingLocale = (typeof BOOKING_LOCALE)[Locale];

/**
 * GraphQL documents sent to the content API, each with variables `{ start: Int!, limit: Int! }`.
 * Sorting by id keeps pages stable while the content changes between requests.
 */
export const CONTENT_QUERIES = {
  activities: /* GraphQL */ `
    query Activities($start: Int!, $limit: Int!) {
      activities(start: $start, limit: $limit, sort: "id:asc") {
        id
        translations { locale info { title slug teaser } }
        teaser_image { url alternativeText }
        supplier { id name slug }
        location { id }
        type { id }
        lat
        lng
        attribute_values { id value attribute { id label } }
        updated_at
      }
    }`,
  locations: /* GraphQL */ `
    query ActivityLocations($start: Int!, $limit: Int!) {
      activityLocations(start: $start, limit: $limit, sort: "id:asc") {
        id
        translations { locale title slug }
      }
    }`,
  types: /* GraphQL */ `
    query ActivityTypes($start: Int!, $limit: Int!) {
      activityTypes(start: $start, limit: $limit, sort: "id:asc") {
        id
        translations { locale title slug }
      }
    }`,
} as const;

/** Booking API paths (GET, query `locale`), relative to the booking base URL. */
export const BOOKING_PATHS = {
  summaries: '/v1/activities/summaries',
  dates: '/v1/activities/dates',
  mappings: '/v1/activities/mappings',
} as const;

// ---------------------------------------------------------------------------
// Upstream shapes

/** A GraphQL response as the content API sends it. */
export interface GraphQLResponse<TData> {
  data?: TData | null;
  errors?: { message: string; path?: (string | number)[] }[];
}
/** `data` of the activities query. */
export interface ActivitiesData {
  activities: ContentActivity[];
}
/** `data` of the locations query. */
export interface LocationsData {
  activityLocations: ContentLocation[];
}
/** `data` of the types query. */
export interface TypesData {
  activityTypes: ContentActivityType[];
}

/** One language of a content activity; `locale` is a {@link ContentLocale}. */
export interface ContentTranslation {
  locale: string;
  info: { title: string | null; slug: string | null; teaser: string | null } | null;
}
/** A curated attribute of an activity, e.g. value `family` of attribute `suitability`. */
export interface ContentAttributeValue {
  id: string;
  /** Language-neutral code, e.g. `family`, `indoor`, `guided`. */
  value: string;
  attribute: { id: string; label: string } | null;
}
/** One activity of the content API, with every translation it has. */
export interface ContentActivity {
  /** Numeric id written as a GraphQL ID (a string). */
  id: string;
  translations: ContentTranslation[];
  teaser_image: { url: string | null; alternativeText: string | null } | null;
  supplier: { id: string | null; name: string | null; slug: string | null } | null;
  location: { id: string } | null;
  type: { id: string } | null;
  /** Decimal degrees as text, e.g. "46.686300". */
  lat: string | null;
  lng: string | null;
  attribute_values: ContentAttributeValue[] | null;
  updated_at: string | null;
}
/** One language of a location or activity type. */
export interface ContentNamedTranslation {
  locale: string;
  title: string | null;
  slug: string | null;
}
/** An activity location (a place) of the content API. */
export interface ContentLocation {
  id: string;
  translations: ContentNamedTranslation[];
}
/** An activity type (e.g. paragliding) of the content API. */
export interface ContentActivityType {
  id: string;
  translations: ContentNamedTranslation[];
}
/** Everything the content API returned, all pages merged. */
export interface ContentPayload {
  activities: ContentActivity[];
  locations: ContentLocation[];
  types: ContentActivityType[];
}

/** A list response of the booking API. */
export interface BookingListResponse<T> {
  data: T[];
}
/** An item of `/v1/activities/summaries`. */
export interface BookingSummary {
  /** Booking-API id of the activity. */
  activityId: number;
  rankingScoreValue: number;
  popularity: number;
  /** `amount` in francs (a JSON number, e.g. 49 or 129.5); null when no price is on sale. */
  startingPrice: { amount: number; currency: string } | null;
  isActive: boolean;
}
/** An item of `/v1/activities/dates`. */
export interface BookingDate {
  activityId: number;
  /** ISO date `YYYY-MM-DD`, or null when nothing is available. */
  nextAvailableDate: string | null;
}
/** An item of `/v1/activities/mappings`: booking id ↔ content id. */
export interface BookingMapping {
  activityId: number;
  /** The content API id, as a number. */
  contentApiActivityId: number;
}
/** What the booking API returned for one locale. */
export interface BookingPayload {
  summaries: BookingSummary[];
  dates: BookingDate[];
  mappings: BookingMapping[];
}

// ---------------------------------------------------------------------------
// Join


/** Why a valid record is not published in a locale (docs/swissactivities-mapping.md, decisions 1–3). */
export type SkipReason = 'no-translation' | 'no-mapping' | 'no-summary';
/** A valid upstream record left out of one locale, with why. */
export interface SkippedRecord {
  kind: 'activity' | 'location' | 'type';
  id: string;
  reason: SkipReason;
}
/** What {@link joinActivities} left out: valid records skipped, and invalid ones. */
export interface JoinReport {
  skipped: SkippedRecord[];
  invalid: InvalidRecordError[];
}
/** One locale's published activities, locations and types, and the report. */
export interface JoinedActivities {
  /** Ranking order: rankingScoreValue desc, popularity desc, id asc. */
  activities: ActivityRecord[];
  /** By title (collation of the locale), then id. */
  locations: LocationRecord[];
  /** By title (collation of the locale), then id. */
  types: ActivityTypeRecord[];
  report: JoinReport;
}

/**
 * Joins the content API records with one locale's booking API records into that locale's
 * activities, locations and types, in the shape the GraphQL API returns.
 *
 * Records are left out, and listed in `report.skipped`, when they have no translation in the
 * locale, no booking mapping (bookingId is required) or no booking summary (summary is
 * required). Malformed records are listed in `report.invalid`. Never throws on upstream data.
 *
 * @param locale the service locale; the content translation and the price format follow it
 */
export function joinActivities(content: ContentPayload, booking: BookingPayload, locale: Locale): JoinedActivities {
  const report: JoinReport = { skipped: [], invalid: [] };
  const contentLocale = CONTENT_LOCALE[locale];

  const locations = new Map<string, LocationRecord>();
  for (const raw of content.locations) {
    const named = pickNamed('content.locations', raw, contentLocale, 'location', report);
    if (named) locations.set(named.id, { ...named, activityCount: 0 });
  }
  const types = new Map<string, ActivityTypeRecord>();
  for (const raw of content.types) {
    const named = pickNamed('content.types', raw, contentLocale, 'type', report);
    if (named) types.set(named.id, named);
  }

  const bookingIdByContentId = indexMappings(booking.mappings, report);
  const summaries = new Map<number, Summary>();
  for (const raw of booking.summaries) {
    const summary = readSummary(raw, locale, report);
    if (summary) summaries.set(raw.activityId, summary);
  }
  const nextDates = new Map<number, string>();
  for (const raw of booking.dates) {
    if (!isBookingId(raw?.activityId)) {
      report.invalid.push(new InvalidRecordError('booking.dates', null, 'activityId is not a positive 32-bit integer'));
    } else if (raw.nextAvailableDate !== null && !isIsoDate(raw.nextAvailableDate)) {
      report.invalid.push(new InvalidRecordError('booking.dates', String(raw.activityId), `nextAvailableDate "${String(raw.nextAvailableDate)}" is not YYYY-MM-DD`));
    } else if (raw.nextAvailableDate !== null) {
      nextDates.set(raw.activityId, raw.nextAvailableDate);
    }
  }

  const activities: ActivityRecord[] = [];
  for (const raw of content.activities) {
    if (!isNonEmptyString(raw?.id) || !Array.isArray(raw.translations)) {
      report.invalid.push(new InvalidRecordError('content.activities', isNonEmptyString(raw?.id) ? raw.id : null, 'id or translations missing'));
      continue;
    }
    const translation = raw.translations.find((t) => t?.locale === contentLocale);
    if (!translation) {
      report.skipped.push({ kind: 'activity', id: raw.id, reason: 'no-translation' });
      continue;
    }
    const info = readInfo(translation.info);
    if (!info) {
      report.invalid.push(new InvalidRecordError('content.activities', raw.id, `translation "${contentLocale}" has no title or slug`));
      continue;
    }
    const bookingId = bookingIdByContentId.get(raw.id);
    if (bookingId === undefined) {
      report.skipped.push({ kind: 'activity', id: raw.id, reason: 'no-mapping' });
      continue;
    }
    const summary = summaries.get(bookingId);
    if (!summary) {
      report.skipped.push({ kind: 'activity', id: raw.id, reason: 'no-summary' });
      continue;
    }
    const nextAvailableDate = nextDates.get(bookingId) ?? null;
    const location = raw.location ? (locations.get(raw.location.id) ?? null) : null;
    if (location) location.activityCount = (location.activityCount ?? 0) + 1;
    const [lat, lng] = readCoordinates(raw.lat, raw.lng);
    activities.push({
      id: raw.id,
      bookingId,
      locale,
      title: info.title,
      teaserImage: readImage(raw.teaser_image),
      supplier: readSupplier(raw.supplier),
      location,
      type: raw.type ? (types.get(raw.type.id) ?? null) : null,
      info,
      summary,
      // The mapping exists here; an inactive or sold-out activity is listed but not bookable.
      isBookable: summary.isActive && nextAvailableDate !== null,
      nextAvailableDate,
      lat,
      lng,
      attributeValues: readAttributeValues(raw.attribute_values),
    });
  }

  activities.sort(
    (a, b) =>
      b.summary.rankingScoreValue - a.summary.rankingScoreValue ||
      b.summary.popularity - a.summary.popularity ||
      compareIds(a.id, b.id),
  );
  const collator = new Intl.Collator(locale);
  const byTitle = (a: { title: string; id: string }, b: { title: string; id: string }) =>
    collator.compare(a.title, b.title) || compareIds(a.id, b.id);
  return {
    activities,
    locations: [...locations.values()].sort(byTitle),
    types: [...types.values()].sort(byTitle),
    report,
  };
}

/**
 * A price as text in the locale's Swiss convention: `CHF 1'290.00` (de-CH, en-CH),
 * `1 290.00 CHF` (fr-CH, narrow no-break space), `CHF 1290.00` / `CHF 12'900.00` (it-CH,
 * groups from five digits). Written by hand so the output does not change with Node's ICU data.
 *
 * @param amount francs with two decimals, e.g. "1290.00"
 */
export function formatPrice(amount: string, currency: string, locale: Locale): string {
  const [whole = '', cents = '00'] = amount.split('.');
  const groupFrom = locale === 'it-CH' ? 5 : 4;
  const separator = locale === 'fr-CH' ? '\u202f' : "'";
  const grouped = whole.length >= groupFrom ? whole.replace(/\B(?=(\d{3})+$)/g, separator) : whole;
  return locale === 'fr-CH' ? `${grouped}.${cents} ${currency}` : `${currency} ${grouped}.${cents}`;
}

function pickNamed(
  collection: string,
  raw: ContentLocation | ContentActivityType,
  contentLocale: ContentLocale,
  kind: 'location' | 'type',
  report: JoinReport,
): ActivityTypeRecord | null {
  if (!isNonEmptyString(raw?.id) || !Array.isArray(raw.translations)) {
    report.invalid.push(new InvalidRecordError(collection, isNonEmptyString(raw?.id) ? raw.id : null, 'id or translations missing'));
    return null;
  }
  const translation = raw.translations.find((t) => t?.locale === contentLocale);
  if (!translation) {
    report.skipped.push({ kind, id: raw.id, reason: 'no-translation' });
    return null;
  }
  if (!isNonEmptyString(translation.title) || !isNonEmptyString(translation.slug)) {
    report.invalid.push(new InvalidRecordError(collection, raw.id, `translation "${contentLocale}" has no title or slug`));
    return null;
  }
  return { id: raw.id, title: translation.title, slug: translation.slug };
}

/** Content id → booking id. Several booking ids for one content activity: the lowest wins. */
function indexMappings(mappings: BookingMapping[], report: JoinReport): Map<string, number> {
  const index = new Map<string, number>();
  for (const raw of mappings) {
    if (!isBookingId(raw?.activityId) || !Number.isSafeInteger(raw.contentApiActivityId)) {
      report.invalid.push(new InvalidRecordError('booking.mappings', isBookingId(raw?.activityId) ? String(raw.activityId) : null, 'activityId or contentApiActivityId is not an integer'));
      continue;
    }
    const contentId = String(raw.contentApiActivityId);
    const known = index.get(contentId);
    if (known === undefined || raw.activityId < known) index.set(contentId, raw.activityId);
  }
  return index;
}

function readSummary(raw: BookingSummary, locale: Locale, report: JoinReport): Summary | null {
  const id = isBookingId(raw?.activityId) ? String(raw.activityId) : null;
  const fail = (reason: string) => {
    report.invalid.push(new InvalidRecordError('booking.summaries', id, reason));
    return null;
  };
  if (id === null) return fail('activityId is not a positive 32-bit integer');
  if (!Number.isFinite(raw.rankingScoreValue)) return fail('rankingScoreValue is not a number');
  if (!Number.isSafeInteger(raw.popularity)) return fail('popularity is not an integer');
  if (typeof raw.isActive !== 'boolean') return fail('isActive is not a boolean');
  let startingPrice: Price | null = null;
  if (raw.startingPrice != null) {
    const { amount, currency } = raw.startingPrice;
    if (!Number.isFinite(amount) || amount < 0 || !isNonEmptyString(currency)) return fail('startingPrice needs a non-negative amount and a currency');
    const text = amount.toFixed(2);
    startingPrice = { amount: text, currency, formatted: formatPrice(text, currency, locale) };
  }
  return { startingPrice, rankingScoreValue: raw.rankingScoreValue, popularity: raw.popularity, isActive: raw.isActive };
}

function readInfo(raw: ContentTranslation['info']): Info | null {
  if (!raw || !isNonEmptyString(raw.title) || !isNonEmptyString(raw.slug)) return null;
  return { title: raw.title, teaser: isNonEmptyString(raw.teaser) ? raw.teaser : null, slug: raw.slug };
}

function readImage(raw: ContentActivity['teaser_image']): Image | null {
  if (!raw || !isNonEmptyString(raw.url)) return null;
  return { url: raw.url, alternativeText: isNonEmptyString(raw.alternativeText) ? raw.alternativeText : null };
}

function readSupplier(raw: ContentActivity['supplier']): Supplier | null {
  if (!raw) return null;
  return { id: raw.id || null, name: raw.name || null, slug: raw.slug || null };
}

/** Both coordinates as sent, or both null when either is missing, not a number or out of range. */
function readCoordinates(lat: string | null, lng: string | null): [string | null, string | null] {
  const latitude = typeof lat === 'string' && lat.trim() !== '' ? Number(lat) : NaN;
  const longitude = typeof lng === 'string' && lng.trim() !== '' ? Number(lng) : NaN;
  if (!(Math.abs(latitude) <= 90) || !(Math.abs(longitude) <= 180)) return [null, null];
  return [lat, lng];
}

function readAttributeValues(raw: ContentActivity['attribute_values']): string[] {
  if (!Array.isArray(raw)) return [];
  return [...new Set(raw.map((v) => v?.value).filter(isNonEmptyString))];
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** bookingId is a GraphQL Int: a positive signed 32-bit integer. */
function isBookingId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) <= 2 ** 31 - 1;
}

function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

// ---------------------------------------------------------------------------
// Fetching

/** Served as `meta.source` of activities, locations and types. */
export const SOURCE_LABEL = 'Swiss Activities';
/** More pages than the content API ever has: a guard against paging that never ends. */
const MAX_PAGES = 10_000;

export interface SwissActivitiesConfig {
  /** SWISSACTIVITIES_CONTENT_URL, default {@link DEFAULT_CONTENT_URL}. */
  contentUrl: string;
  /** SWISSACTIVITIES_BOOKING_URL, default {@link DEFAULT_BOOKING_URL}. */
  bookingUrl: string;
  /** SWISSACTIVITIES_API_KEY, sent as a bearer token to both APIs. */
  apiKey: string;
}

/** The content collections, the query that pages each, and the `data` field holding its page. */
const CONTENT_FIELDS = { activities: 'activities', locations: 'activityLocations', types: 'activityTypes' } as const;

/** Which published area an invalid record of an upstream collection counts against. */
const AREA_OF_COLLECTION: Record<string, 'activities' | 'locations' | 'types'> = {
  'content.activities': 'activities',
  'content.locations': 'locations',
  'content.types': 'types',
};

/**
 * Fetches the content API once (each record carries every translation), the booking API per
 * locale of `ctx`, and joins them per locale with {@link joinActivities}. Invalid upstream
 * records are returned as rejections of the area they would have fed (booking records count
 * against activities); records a locale lacks (`report.skipped`) are not rejections.
 *
 * @throws FetchError when a request fails for good; Error when the content API answers with
 *   GraphQL errors or a response of the wrong shape
 */
export async function fetchActivities(ctx: FetchContext, config: SwissActivitiesConfig): Promise<SourceData> {
  const [content, ...bookings] = await Promise.all([fetchContent(ctx, config), ...ctx.locales.map((locale) => fetchBooking(ctx, config, locale))]);
  const locales: SourceData['locales'] = {};
  ctx.locales.forEach((locale, i) => {
    const joined = joinActivities(content, bookings[i]!, locale);
    const rejected: Record<'activities' | 'locations' | 'types', Rejection[]> = { activities: [], locations: [], types: [] };
    for (const error of joined.report.invalid) {
      rejected[AREA_OF_COLLECTION[error.kind] ?? 'activities'].push({ id: error.id, reason: error.message });
    }
    locales[locale] = {
      activities: { records: joined.activities, rejected: rejected.activities },
      locations: { records: joined.locations, rejected: rejected.locations },
      types: { records: joined.types, rejected: rejected.types },
    };
  });
  return { label: SOURCE_LABEL, locales };
}

/**
 * All three content collections, each paged with start/limit until a short page, merged by id
 * (the last copy wins) so a record that moved between pages is joined once.
 */
async function fetchContent(ctx: FetchContext, config: SwissActivitiesConfig): Promise<ContentPayload> {
  let pages = 0;
  let items = 0;
  const collection = async <T extends { id?: unknown }>(kind: keyof typeof CONTENT_FIELDS): Promise<T[]> => {
    const byId = new Map<unknown, T>();
    for (let start = 0, page = 0; ; start += CONTENT_PAGE_SIZE, page++) {
      if (page >= MAX_PAGES) throw new Error(`content API ${kind}: more than ${MAX_PAGES} pages`);
      const body = await ctx.http.json<GraphQLResponse<Record<string, unknown>>>(config.contentUrl, {
        body: { query: CONTENT_QUERIES[kind], variables: { start, limit: CONTENT_PAGE_SIZE } },
        headers: { authorization: `Bearer ${config.apiKey}` },
        onRetry: (event) => ctx.onRetry('content', event),
      });
      const records = readContentPage<T>(body, CONTENT_FIELDS[kind], start);
      // A record without an id cannot be merged; keep it so the join reports it as invalid.
      records.forEach((record, i) => byId.set(record?.id ?? `#${start + i}`, record));
      pages++;
      items += records.length;
      ctx.onPage('content', { pages, totalPages: null, items });
      if (records.length < CONTENT_PAGE_SIZE) return [...byId.values()];
    }
  };
  const [activities, locations, types] = await Promise.all([
    collection<ContentActivity>('activities'),
    collection<ContentLocation>('locations'),
    collection<ContentActivityType>('types'),
  ]);
  return { activities, locations, types };
}

function readContentPage<T>(body: GraphQLResponse<Record<string, unknown>>, field: string, start: number): T[] {
  if (body?.errors?.length) {
    throw new Error(`content API ${field} (start ${start}): ${body.errors.map((e) => e.message).join('; ')}`);
  }
  const records = body?.data?.[field];
  if (!Array.isArray(records)) throw new Error(`content API ${field} (start ${start}): expected data.${field} to be a list, got ${JSON.stringify(body).slice(0, 120)}`);
  return records as T[];
}

/** The three booking lists of one locale. */
async function fetchBooking(ctx: FetchContext, config: SwissActivitiesConfig, locale: Locale): Promise<BookingPayload> {
  let pages = 0;
  let items = 0;
  const get = async <T>(name: keyof typeof BOOKING_PATHS): Promise<T[]> => {
    const url = new URL(config.bookingUrl.replace(/\/+$/, '') + BOOKING_PATHS[name]);
    url.searchParams.set('locale', BOOKING_LOCALE[locale]);
    const body = await ctx.http.json<BookingListResponse<T>>(url, {
      headers: { authorization: `Bearer ${config.apiKey}` },
      onRetry: (event) => ctx.onRetry(locale, event),
    });
    if (!Array.isArray(body?.data)) throw new Error(`booking API ${BOOKING_PATHS[name]} [${BOOKING_LOCALE[locale]}]: expected { data: [...] }, got ${JSON.stringify(body).slice(0, 120)}`);
    pages++;
    items += body.data.length;
    ctx.onPage(locale, { pages, totalPages: 3, items });
    return body.data;
  };
  const [summaries, dates, mappings] = await Promise.all([get<BookingSummary>('summaries'), get<BookingDate>('dates'), get<BookingMapping>('mappings')]);
  return { summaries, dates, mappings };
}
