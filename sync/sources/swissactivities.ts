/**
 * Source: activities, activity locations and activity types from the activity partner
 * (Swiss Activities). Two upstream APIs are joined per locale; the mapping, and the evidence
 * for each field, is in docs/swissactivities-mapping.md.
 *
 * Content API (texts, images, supplier, location, type, coordinates, attributes)
 *   URL:        SWISSACTIVITIES_CONTENT_URL, default {@link DEFAULT_CONTENT_URL}.
 *   Protocol:   GraphQL over HTTP POST (Strapi v3), documents in {@link CONTENT_QUERIES}; they
 *               validate against the service's schema (test/fixtures/upstream/swissactivities/).
 *   Paging:     `start` (0-based offset) and `limit` ({@link CONTENT_PAGE_SIZE}); the last page is
 *               the first one with fewer than `limit` items. No total is requested.
 *   Locales:    German is the record's own `info` (`title`, `slug` on locations and types); the
 *               others are `translations` with `locale` `en_CH`, `fr_CH`, `it_CH`.
 *   Auth:       none: the partner's own website sends no credentials, and Strapi refuses a
 *               bearer token it did not issue itself.
 * Booking API (ids, popularity, prices, bookable dates)
 *   URL:        SWISSACTIVITIES_BOOKING_URL, default {@link DEFAULT_BOOKING_URL}; the paths of
 *               {@link BOOKING_PATHS} are appended as they stand (no version segment).
 *   Protocol:   REST, GET, JSON; one answer holds every activity, for every locale; not paged.
 *   Auth:       SWISSACTIVITIES_API_KEY in the header SWISSACTIVITIES_AUTH_HEADER (default
 *               `Authorization`, as `Bearer <key>`; any other header carries the bare key).
 * Rate limit:  unknown (not published).
 * Licence:     partner contract; the content is not openly licensed and may be shown only
 *              in the partner's distribution channels.
 */

import type { FetchContext, Rejection, SourceData } from '../publish.ts';
import type { ActivityRecord, ActivityTypeRecord, Image, Info, Locale, LocationRecord, Price, Summary, Supplier } from '../format.ts';
import { FetchError, type HttpClient, redactUrl } from '../client.ts';
import { InvalidRecordError } from './invalidRecordError.ts';
import { compareFields, type ProbeEndpoint } from './probe.ts';

/** Default content API endpoint (GraphQL), the partner website's production host. */
export const DEFAULT_CONTENT_URL = 'https://contentapi.swissactivities.com/graphql';
/** Default booking API base, the partner website's production host; {@link BOOKING_PATHS} are appended. */
export const DEFAULT_BOOKING_URL = 'https://bookingapi.swissactivities.com';
/** Default header that carries the booking API key. */
export const DEFAULT_AUTH_HEADER = 'Authorization';

/**
 * Items per content API page (`limit`). Strapi v3 caps `limit` at its `amountLimit` (100 unless
 * configured otherwise) without saying so; a larger page would come back short and end the paging.
 */
export const CONTENT_PAGE_SIZE = 100;

/**
 * The content API's translation locale per service locale; null for German, which is the
 * record's own top-level text rather than a translation.
 */
export const CONTENT_LOCALE = { 'de-CH': null, 'en-CH': 'en_CH', 'fr-CH': 'fr_CH', 'it-CH': 'it_CH' } as const satisfies Record<Locale, string | null>;
/** A translation locale as the content API writes it: en_CH, fr_CH, it_CH. */
export type ContentLocale = NonNullable<(typeof CONTENT_LOCALE)[Locale]>;

/**
 * GraphQL documents sent to the content API, each with variables `{ start: Int!, limit: Int! }`.
 * Sorting by id keeps pages stable while the content changes between requests.
 */
export const CONTENT_QUERIES = {
  activities: /* GraphQL */ `
    query Activities($start: Int!, $limit: Int!) {
      activities(start: $start, limit: $limit, sort: "id:asc") {
        id
        info { title slug teaser }
        translations { locale info { title slug teaser } teaser_image_alt_text }
        teaser_image { url alternativeText }
        supplier { id name }
        location { id }
        type { id }
        destination { latitude longitude }
        meeting_points { latitude longitude }
        attribute_values { id value translations { locale value } }
        updated_at
      }
    }`,
  locations: /* GraphQL */ `
    query ActivityLocations($start: Int!, $limit: Int!) {
      activityLocations(start: $start, limit: $limit, sort: "id:asc") {
        id
        title
        slug
        translations { locale title slug }
      }
    }`,
  types: /* GraphQL */ `
    query ActivityTypes($start: Int!, $limit: Int!) {
      activityTypes(start: $start, limit: $limit, sort: "id:asc") {
        id
        title
        slug
        translations { locale title slug }
      }
    }`,
} as const;

/**
 * The fields {@link CONTENT_QUERIES}.activities reads, as dotted paths with list items as `[]`
 * (the probe compares an answer's records with them).
 */
export const ACTIVITY_FIELDS = [
  'id',
  'info',
  'info.title',
  'info.slug',
  'info.teaser',
  'translations',
  'translations[].locale',
  'translations[].info',
  'translations[].info.title',
  'translations[].info.slug',
  'translations[].info.teaser',
  'translations[].teaser_image_alt_text',
  'teaser_image',
  'teaser_image.url',
  'teaser_image.alternativeText',
  'supplier',
  'supplier.id',
  'supplier.name',
  'location',
  'location.id',
  'type',
  'type.id',
  'destination',
  'destination.latitude',
  'destination.longitude',
  'meeting_points',
  'meeting_points[].latitude',
  'meeting_points[].longitude',
  'attribute_values',
  'attribute_values[].id',
  'attribute_values[].value',
  'attribute_values[].translations',
  'attribute_values[].translations[].locale',
  'attribute_values[].translations[].value',
  'updated_at',
] as const;

/** Booking API paths (GET), appended to the booking base URL as they stand. */
export const BOOKING_PATHS = {
  summaries: '/activities/summaries',
  dates: '/activities/dates',
  mappings: '/activities/mappings',
} as const;

/** The fields of a summary the adapter reads. */
export const SUMMARY_FIELDS = ['activityId', 'startingPrice', 'startingPrice.amount', 'startingPrice.currency', 'popularity', 'numOffers'] as const;

// ---------------------------------------------------------------------------
// Upstream shapes

/** A GraphQL response as the content API sends it. */
export interface GraphQLResponse<TData> {
  data?: TData | null;
  errors?: { message: string; path?: (string | number)[] }[];
}

/** The text of an activity in one language (`ComponentActivityInfo`). */
export interface ContentInfo {
  title: string | null;
  slug: string | null;
  teaser: string | null;
}
/** One non-German language of a content activity (`ComponentActivityTranslation`). */
export interface ContentTranslation {
  /** A {@link ContentLocale}. */
  locale: string;
  info: ContentInfo | null;
  /** The teaser image's alternative text in this language. */
  teaser_image_alt_text: string | null;
}
/** A point (`ComponentLocationLocation`): decimal degrees as text, e.g. "46.686300". */
export interface ContentPoint {
  latitude: string | null;
  longitude: string | null;
}
/** A curated attribute value of an activity (`ActivityAttribute`): German text and its translations. */
export interface ContentAttributeValue {
  id: string;
  /** German text, e.g. `Familienfreundlich`. */
  value: string | null;
  translations: { locale: string; value: string | null }[] | null;
}
/** One activity of the content API: German at the top, the other languages in `translations`. */
export interface ContentActivity {
  /** Numeric id written as a GraphQL ID (a string). */
  id: string;
  info: ContentInfo | null;
  translations: ContentTranslation[] | null;
  teaser_image: { url: string | null; alternativeText: string | null } | null;
  supplier: { id: string | null; name: string | null } | null;
  location: { id: string } | null;
  type: { id: string } | null;
  destination: ContentPoint | null;
  meeting_points: ContentPoint[] | null;
  attribute_values: ContentAttributeValue[] | null;
  updated_at: string | null;
}
/** One non-German language of a location or activity type. */
export interface ContentNamedTranslation {
  locale: string;
  title: string | null;
  slug: string | null;
}
/** An activity location (a place) or an activity type (e.g. paragliding): German title and slug on the record. */
export interface ContentNamed {
  id: string;
  title: string | null;
  slug: string | null;
  translations: ContentNamedTranslation[] | null;
}
/** An activity location (a place) of the content API. */
export type ContentLocation = ContentNamed;
/** An activity type (e.g. paragliding) of the content API. */
export type ContentActivityType = ContentNamed;
/** Everything the content API returned, all pages merged. */
export interface ContentPayload {
  activities: ContentActivity[];
  locations: ContentLocation[];
  types: ContentActivityType[];
}

/** An item of `/activities/summaries` (the fields the adapter reads; the answer has more). */
export interface BookingSummary {
  /** Booking-API id of the activity. */
  activityId: number;
  /** `amount` in francs (a JSON number or numeric text); null when no price is on sale. */
  startingPrice: { amount: number | string; currency: string; formatted?: string | null } | null;
  popularity: number;
  /** Offers on sale; absent means the answer does not say. */
  numOffers?: number | null;
}
/** `/activities/dates`: each date (`YYYY-MM-DD`) with the booking ids bookable on it. */
export type BookingDates = Record<string, number[]>;
/** `/activities/mappings`: booking id (an object key) → content id. */
export interface BookingMappings {
  contentApiIds: Record<string, number>;
}
/** What the booking API returned (one answer per path, for every locale). */
export interface BookingPayload {
  summaries: BookingSummary[];
  dates: BookingDates;
  mappings: BookingMappings;
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
 * Joins the content API records with the booking API records into one locale's activities,
 * locations and types, in the shape the GraphQL API returns.
 *
 * Records are left out, and listed in `report.skipped`, when they have no text in the locale,
 * no booking mapping (bookingId is required) or no booking summary (summary is required).
 * Malformed records are listed in `report.invalid`. Never throws on upstream data.
 *
 * @param locale the service locale; the content text and the price format follow it
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
  for (const raw of Array.isArray(booking.summaries) ? booking.summaries : []) {
    const summary = readSummary(raw, locale, report);
    if (summary) summaries.set(raw.activityId, summary);
  }
  const nextDates = indexDates(booking.dates, report);

  const activities: ActivityRecord[] = [];
  for (const raw of content.activities) {
    if (!isNonEmptyString(raw?.id)) {
      report.invalid.push(new InvalidRecordError('content.activities', null, 'id missing'));
      continue;
    }
    const translation = contentLocale === null ? null : (Array.isArray(raw.translations) ? raw.translations : []).find((t) => t?.locale === contentLocale);
    const text = contentLocale === null ? raw.info : translation?.info;
    if (!text) {
      report.skipped.push({ kind: 'activity', id: raw.id, reason: 'no-translation' });
      continue;
    }
    const info = readInfo(text);
    if (!info) {
      report.invalid.push(new InvalidRecordError('content.activities', raw.id, `${describeLocale(contentLocale)} has no title or slug`));
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
    const [lat, lng] = readCoordinates(raw.destination, raw.meeting_points);
    activities.push({
      id: raw.id,
      bookingId,
      locale,
      title: info.title,
      teaserImage: readImage(raw.teaser_image, translation?.teaser_image_alt_text),
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
      attributeValues: readAttributeValues(raw.attribute_values, contentLocale),
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

function describeLocale(contentLocale: ContentLocale | null): string {
  return contentLocale === null ? 'German text (info)' : `translation "${contentLocale}"`;
}

function pickNamed(
  collection: string,
  raw: ContentNamed,
  contentLocale: ContentLocale | null,
  kind: 'location' | 'type',
  report: JoinReport,
): ActivityTypeRecord | null {
  if (!isNonEmptyString(raw?.id)) {
    report.invalid.push(new InvalidRecordError(collection, null, 'id missing'));
    return null;
  }
  const text = contentLocale === null ? raw : (Array.isArray(raw.translations) ? raw.translations : []).find((t) => t?.locale === contentLocale);
  if (!text) {
    report.skipped.push({ kind, id: raw.id, reason: 'no-translation' });
    return null;
  }
  if (!isNonEmptyString(text.title) || !isNonEmptyString(text.slug)) {
    report.invalid.push(new InvalidRecordError(collection, raw.id, `${describeLocale(contentLocale)} has no title or slug`));
    return null;
  }
  return { id: raw.id, title: text.title, slug: text.slug };
}

/** Content id → booking id. Several booking ids for one content activity: the lowest wins. */
function indexMappings(raw: BookingMappings, report: JoinReport): Map<string, number> {
  const index = new Map<string, number>();
  const entries = raw?.contentApiIds;
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    report.invalid.push(new InvalidRecordError('booking.mappings', null, `expected { contentApiIds: { "<bookingId>": <contentId> } }, got ${JSON.stringify(raw).slice(0, 80)}`));
    return index;
  }
  for (const [key, contentApiId] of Object.entries(entries)) {
    const bookingId = Number(key);
    if (!/^\d+$/.test(key) || !isBookingId(bookingId) || !Number.isSafeInteger(contentApiId) || contentApiId <= 0) {
      report.invalid.push(new InvalidRecordError('booking.mappings', key, `"${key}": ${JSON.stringify(contentApiId)} is not a booking id and a content id`));
      continue;
    }
    const contentId = String(contentApiId);
    const known = index.get(contentId);
    if (known === undefined || bookingId < known) index.set(contentId, bookingId);
  }
  return index;
}

/** Booking id → the earliest date it is listed on (ISO dates order as text). */
function indexDates(raw: BookingDates, report: JoinReport): Map<number, string> {
  const next = new Map<number, string>();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    report.invalid.push(new InvalidRecordError('booking.dates', null, `expected { "YYYY-MM-DD": [bookingIds] }, got ${JSON.stringify(raw).slice(0, 80)}`));
    return next;
  }
  for (const [date, ids] of Object.entries(raw)) {
    if (!isIsoDate(date) || !Array.isArray(ids)) {
      report.invalid.push(new InvalidRecordError('booking.dates', date, 'expected a YYYY-MM-DD key holding a list of booking ids'));
      continue;
    }
    const bad = ids.filter((id) => !isBookingId(id));
    if (bad.length > 0) report.invalid.push(new InvalidRecordError('booking.dates', date, `${JSON.stringify(bad[0])} is not a booking id`));
    for (const id of ids) {
      if (!isBookingId(id)) continue;
      const known = next.get(id);
      if (known === undefined || date < known) next.set(id, date);
    }
  }
  return next;
}

function readSummary(raw: BookingSummary, locale: Locale, report: JoinReport): Summary | null {
  const id = isBookingId(raw?.activityId) ? String(raw.activityId) : null;
  const fail = (reason: string) => {
    report.invalid.push(new InvalidRecordError('booking.summaries', id, reason));
    return null;
  };
  if (id === null) return fail('activityId is not a positive 32-bit integer');
  if (!Number.isFinite(raw.popularity) || raw.popularity < 0) return fail('popularity is not a non-negative number');
  if (raw.numOffers != null && (!Number.isSafeInteger(raw.numOffers) || raw.numOffers < 0)) return fail('numOffers is not a non-negative integer');
  let startingPrice: Price | null = null;
  if (raw.startingPrice != null) {
    const { amount, currency } = raw.startingPrice;
    const francs = typeof amount === 'string' && /^\d+(\.\d+)?$/.test(amount.trim()) ? Number(amount) : amount;
    if (typeof francs !== 'number' || !Number.isFinite(francs) || francs < 0 || !isNonEmptyString(currency)) return fail('startingPrice needs a non-negative amount and a currency');
    const text = francs.toFixed(2);
    startingPrice = { amount: text, currency, formatted: formatPrice(text, currency, locale) };
  }
  return {
    startingPrice,
    // The booking API has no ranking score; the partner's website ranks by popularity.
    rankingScoreValue: raw.popularity,
    popularity: Math.round(raw.popularity),
    // An answer that does not count offers is taken as selling: the activity is in the list.
    isActive: raw.numOffers == null || raw.numOffers > 0,
  };
}

function readInfo(raw: ContentInfo): Info | null {
  if (!isNonEmptyString(raw.title) || !isNonEmptyString(raw.slug)) return null;
  return { title: raw.title, teaser: isNonEmptyString(raw.teaser) ? raw.teaser : null, slug: raw.slug };
}

/** The image with the locale's alternative text, else the record's own (German) one, as the partner's website shows it. */
function readImage(raw: ContentActivity['teaser_image'], localeAltText: string | null | undefined): Image | null {
  if (!raw || !isNonEmptyString(raw.url)) return null;
  const alternativeText = isNonEmptyString(localeAltText) ? localeAltText : isNonEmptyString(raw.alternativeText) ? raw.alternativeText : null;
  return { url: raw.url, alternativeText };
}

/** The content API's Supplier has no slug. */
function readSupplier(raw: ContentActivity['supplier']): Supplier | null {
  if (!raw) return null;
  return { id: raw.id || null, name: raw.name || null, slug: null };
}

/**
 * The destination's coordinates, else the first meeting point's, as sent (text); the first
 * point whose latitude and longitude are both numbers in range wins, and none gives nulls.
 */
function readCoordinates(destination: ContentPoint | null, meetingPoints: ContentPoint[] | null): [string | null, string | null] {
  for (const point of [destination, ...(Array.isArray(meetingPoints) ? meetingPoints : [])]) {
    if (!point) continue;
    const { latitude: lat, longitude: lng } = point;
    const latitude = typeof lat === 'string' && lat.trim() !== '' ? Number(lat) : NaN;
    const longitude = typeof lng === 'string' && lng.trim() !== '' ? Number(lng) : NaN;
    if (Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180) return [lat as string, lng as string];
  }
  return [null, null];
}

/** The values' texts in the locale: German `value`, else the locale's translation, falling back to German. */
function readAttributeValues(raw: ContentActivity['attribute_values'], contentLocale: ContentLocale | null): string[] {
  if (!Array.isArray(raw)) return [];
  const texts = raw.map((v) => {
    const translated = contentLocale === null || !Array.isArray(v?.translations) ? undefined : v.translations.find((t) => t?.locale === contentLocale)?.value;
    return isNonEmptyString(translated) ? translated : v?.value;
  });
  return [...new Set(texts.filter(isNonEmptyString))];
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
  /** SWISSACTIVITIES_API_KEY, sent to the booking API only. */
  apiKey: string;
  /** SWISSACTIVITIES_AUTH_HEADER, default {@link DEFAULT_AUTH_HEADER}. */
  authHeader: string;
}

/**
 * The header that carries the booking API key: `Authorization: Bearer <key>`, or the bare key
 * in any other header (e.g. `X-Api-Key`), until the partner contract names its scheme.
 */
export function bookingAuthHeaders(config: SwissActivitiesConfig): Record<string, string> {
  const name = config.authHeader.toLowerCase();
  return { [name]: name === 'authorization' ? `Bearer ${config.apiKey}` : config.apiKey };
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
 * Fetches the content API and the booking API once each (both answer for every locale) and
 * joins them per locale of `ctx` with {@link joinActivities}. Invalid upstream records are
 * returned as rejections of the area they would have fed (booking records count against
 * activities); records a locale lacks (`report.skipped`) are not rejections.
 *
 * @throws FetchError when a request fails for good (a document the content API refuses is a
 *   400); Error when an answer has GraphQL errors or the wrong shape
 */
export async function fetchActivities(ctx: FetchContext, config: SwissActivitiesConfig): Promise<SourceData> {
  const [content, booking] = await Promise.all([fetchContent(ctx, config), fetchBooking(ctx, config)]);
  const locales: SourceData['locales'] = {};
  for (const locale of ctx.locales) {
    const joined = joinActivities(content, booking, locale);
    const rejected: Record<'activities' | 'locations' | 'types', Rejection[]> = { activities: [], locations: [], types: [] };
    for (const error of joined.report.invalid) {
      rejected[AREA_OF_COLLECTION[error.kind] ?? 'activities'].push({ id: error.id, reason: error.message });
    }
    locales[locale] = {
      activities: { records: joined.activities, rejected: rejected.activities },
      locations: { records: joined.locations, rejected: rejected.locations },
      types: { records: joined.types, rejected: rejected.types },
    };
  }
  return { label: SOURCE_LABEL, locales };
}

/** The request body of one content page. */
function contentRequest(kind: keyof typeof CONTENT_QUERIES, start: number) {
  return { query: CONTENT_QUERIES[kind], variables: { start, limit: CONTENT_PAGE_SIZE } };
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
        body: contentRequest(kind, start),
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

function bookingUrl(config: SwissActivitiesConfig, name: keyof typeof BOOKING_PATHS): string {
  return config.bookingUrl.replace(/\/+$/, '') + BOOKING_PATHS[name];
}

/** The three booking answers, each checked for its shape. */
async function fetchBooking(ctx: FetchContext, config: SwissActivitiesConfig): Promise<BookingPayload> {
  let pages = 0;
  let items = 0;
  const get = async (name: keyof typeof BOOKING_PATHS): Promise<unknown> => {
    const body = await ctx.http.json<unknown>(bookingUrl(config, name), {
      headers: bookingAuthHeaders(config),
      onRetry: (event) => ctx.onRetry('booking', event),
    });
    if (BOOKING_SHAPES[name].isWrong(body)) throw new Error(`booking API ${BOOKING_PATHS[name]}: expected ${BOOKING_SHAPES[name].expected}, got ${JSON.stringify(body).slice(0, 120)}`);
    pages++;
    items += BOOKING_SHAPES[name].records(body).length;
    ctx.onPage('booking', { pages, totalPages: 3, items });
    return body;
  };
  const [summaries, dates, mappings] = await Promise.all([get('summaries'), get('dates'), get('mappings')]);
  return { summaries: summaries as BookingSummary[], dates: dates as BookingDates, mappings: mappings as BookingMappings };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Per booking path: what its answer must look like, and its records (what a probe counts). */
const BOOKING_SHAPES: Record<keyof typeof BOOKING_PATHS, { expected: string; isWrong: (body: unknown) => boolean; records: (body: unknown) => unknown[] }> = {
  summaries: { expected: 'a list of summaries', isWrong: (body) => !Array.isArray(body), records: (body) => body as unknown[] },
  dates: { expected: '{ "YYYY-MM-DD": [bookingIds] }', isWrong: (body) => !isObject(body), records: (body) => Object.keys(body as object) },
  mappings: {
    expected: '{ contentApiIds: { "<bookingId>": <contentId> } }',
    isWrong: (body) => !isObject(body) || !isObject(body.contentApiIds),
    records: (body) => Object.keys((body as BookingMappings).contentApiIds),
  },
};

// ---------------------------------------------------------------------------
// Probe

/**
 * Calls each upstream endpoint once, as the sync would (the content API's first page of
 * activities, then each booking path), and reports what answered: reachable, key accepted,
 * records, and how the records' fields compare with the fields the adapter reads. Never
 * throws on a failed call; the failure is in the endpoint's `error`.
 *
 * @param client used as is: its retries apply to each call
 */
export async function probeActivities(client: HttpClient, config: SwissActivitiesConfig): Promise<ProbeEndpoint[]> {
  const endpoints: ProbeEndpoint[] = [];
  endpoints.push(
    await probeOne(client, 'content API (activities, first page)', config.contentUrl, { body: contentRequest('activities', 0) }, (body) => {
      const records = readContentPage<unknown>(body as GraphQLResponse<Record<string, unknown>>, 'activities', 0);
      return { records: records.length, ...compareFields(records, ACTIVITY_FIELDS) };
    }),
  );
  const fields: Record<keyof typeof BOOKING_PATHS, (body: unknown) => { unexpectedFields: string[]; missingFields: string[] }> = {
    summaries: (body) => compareFields(body as unknown[], SUMMARY_FIELDS),
    // The keys are data (dates, booking ids); what is compared is that they are what the adapter reads.
    dates: (body) => ({ unexpectedFields: Object.keys(body as object).filter((key) => !isIsoDate(key)), missingFields: [] }),
    mappings: (body) => compareFields([body], ['contentApiIds']),
  };
  for (const name of Object.keys(BOOKING_PATHS) as (keyof typeof BOOKING_PATHS)[]) {
    endpoints.push(
      await probeOne(client, `booking ${name}`, bookingUrl(config, name), { headers: bookingAuthHeaders(config) }, (body) => {
        if (BOOKING_SHAPES[name].isWrong(body)) throw new Error(`expected ${BOOKING_SHAPES[name].expected}, got ${JSON.stringify(body).slice(0, 120)}`);
        return { records: BOOKING_SHAPES[name].records(body).length, ...fields[name](body) };
      }),
    );
  }
  return endpoints;
}

async function probeOne(
  client: HttpClient,
  name: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string> },
  read: (body: unknown) => { records: number; unexpectedFields: string[]; missingFields: string[] },
): Promise<ProbeEndpoint> {
  const shown = redactUrl(url);
  let body: unknown;
  try {
    body = await client.json<unknown>(url, options);
  } catch (error) {
    const status = error instanceof FetchError ? error.status : undefined;
    return {
      name,
      url: shown,
      reachable: status !== undefined,
      keyAccepted: status === undefined ? null : status !== 401 && status !== 403,
      records: null,
      unexpectedFields: [],
      missingFields: [],
      error: (error as Error).message,
    };
  }
  try {
    return { name, url: shown, reachable: true, keyAccepted: true, ...read(body) };
  } catch (error) {
    return { name, url: shown, reachable: true, keyAccepted: true, records: null, unexpectedFields: [], missingFields: [], error: (error as Error).message };
  }
}
