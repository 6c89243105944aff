/**
 * Swiss Activities' two APIs joined into published records, per locale: content records with
 * the booking API's ids, popularity, prices and bookable dates. The mapping, and the evidence
 * for each field, is docs/swissactivities-mapping.md.
 */

import type { ActivityRecord, ActivityTypeRecord, Image, Info, Locale, LocationRecord, Price, Summary, Supplier } from '../../format.ts';
import { FieldReader, InvalidRecordError } from '../read.ts';
import { CONTENT_LOCALE } from './api.ts';
import type { BookingDates, ContentLocale, BookingMappings, BookingPayload, BookingSummary, ContentActivity, ContentInfo, ContentNamed, ContentPayload, ContentPoint } from './shapes.ts';

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
  /** Per field path, the published activities that lack the field (e.g. `teaser_image`, `booking.dates`). */
  misses: FieldReader;
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
 * @param syncDay the sync's day, `YYYY-MM-DD`: the next available date is the earliest bookable one not before it
 */
export function joinActivities(content: ContentPayload, booking: BookingPayload, locale: Locale, syncDay: string): JoinedActivities {
  const report: JoinReport = { skipped: [], invalid: [], misses: new FieldReader() };
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
  const datesById = indexDates(booking.dates, syncDay, report);

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
    const dates = datesById.get(bookingId) ?? [];
    const nextAvailableDate = dates[0] ?? null;
    const location = raw.location ? (locations.get(raw.location.id) ?? null) : null;
    if (location) location.activityCount = (location.activityCount ?? 0) + 1;
    const [lat, lng] = readCoordinates(raw.destination, raw.meeting_points);
    const teaserImage = readImage(raw.teaser_image, translation?.teaser_image_alt_text);
    const supplier = readSupplier(raw.supplier);
    const type = raw.type ? (types.get(raw.type.id) ?? null) : null;
    const missing: [string, unknown][] = [
      ['info.teaser', info.teaser],
      ['teaser_image', teaserImage],
      ['supplier', supplier],
      ['location', location],
      ['type', type],
      ['destination', lat],
      ['booking.summaries.startingPrice', summary.startingPrice],
      ['booking.dates', nextAvailableDate],
    ];
    for (const [path, value] of missing) if (value === null) report.misses.miss(path);
    activities.push({
      id: raw.id,
      bookingId,
      locale,
      title: info.title,
      teaserImage,
      supplier,
      location,
      type,
      info,
      summary,
      // The mapping exists here; an inactive or sold-out activity is listed but not bookable.
      isBookable: summary.isActive && nextAvailableDate !== null,
      nextAvailableDate,
      updatedAt: readTime(raw.updated_at),
      lat,
      lng,
      attributeValues: readAttributeValues(raw.attribute_values, contentLocale),
      availableDates: compactDays(dates),
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

/** Booking id → the dates it is listed on from the sync's day on, ascending (ISO dates order as text). */
function indexDates(raw: BookingDates, syncDay: string, report: JoinReport): Map<number, string[]> {
  const next = new Map<number, string[]>();
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
    // A day already past offers nothing to book, whatever the upstream still lists.
    if (date < syncDay) continue;
    for (const id of ids) {
      if (!isBookingId(id)) continue;
      const known = next.get(id);
      if (known === undefined) next.set(id, [date]);
      else known.push(date);
    }
  }
  for (const dates of next.values()) {
    dates.sort();
    // A date listed twice for one id is one bookable day.
    for (let i = dates.length - 1; i > 0; i--) if (dates[i] === dates[i - 1]) dates.splice(i, 1);
  }
  return next;
}

/**
 * Ascending distinct days as the snapshot keeps them (sync/records.ts `availableDates`): a run of
 * consecutive days as one `first/last` interval, a lone day as itself.
 */
export function compactDays(days: readonly string[]): string[] {
  const out: string[] = [];
  let first: string | null = null;
  let last: string | null = null;
  const flush = () => {
    if (first !== null) out.push(first === last ? first : `${first}/${last}`);
  };
  for (const day of days) {
    if (last !== null && dayAfter(last) === day) {
      last = day;
      continue;
    }
    flush();
    first = last = day;
  }
  flush();
  return out;
}

/** The `YYYY-MM-DD` day after `day`. */
function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
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

/** A `YYYY-MM-DD` date that exists. */
export function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** An upstream time as ISO 8601 (UTC), or null when it is missing or cannot be read as a time. */
function readTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}
