/**
 * The Swiss Activities APIs' requests: endpoints, the content API's GraphQL documents and page
 * size, the booking paths and their answers' shapes, the settings, and the auth header. The
 * source as a whole is activitiesSource.ts.
 */

import type { Locale } from '../../format.ts';
import type { BookingMappings, ContentLocale, GraphQLResponse } from './shapes.ts';

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
export const CONTENT_LOCALE = { 'de-CH': null, 'en-CH': 'en_CH', 'fr-CH': 'fr_CH', 'it-CH': 'it_CH' } as const satisfies Record<Locale, ContentLocale | null>;

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
      total: activitiesConnection { aggregate { count } }
    }`,
  locations: /* GraphQL */ `
    query ActivityLocations($start: Int!, $limit: Int!) {
      activityLocations(start: $start, limit: $limit, sort: "id:asc") {
        id
        title
        slug
        translations { locale title slug }
      }
      total: activityLocationsConnection { aggregate { count } }
    }`,
  types: /* GraphQL */ `
    query ActivityTypes($start: Int!, $limit: Int!) {
      activityTypes(start: $start, limit: $limit, sort: "id:asc") {
        id
        title
        slug
        translations { locale title slug }
      }
      total: activityTypesConnection { aggregate { count } }
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
export const CONTENT_FIELDS = { activities: 'activities', locations: 'activityLocations', types: 'activityTypes' } as const;

/** The request body of one content page. */
export function contentRequest(kind: keyof typeof CONTENT_QUERIES, start: number) {
  return { query: CONTENT_QUERIES[kind], variables: { start, limit: CONTENT_PAGE_SIZE } };
}

/**
 * The records the content API declares a collection holds: the `total` each document asks for
 * (`<collection>Connection { aggregate { count } }`), null when the answer lacks it.
 */
export function readContentTotal(body: GraphQLResponse<Record<string, unknown>>): number | null {
  const count = (body?.data?.total as { aggregate?: { count?: unknown } } | null | undefined)?.aggregate?.count;
  return Number.isSafeInteger(count) && (count as number) >= 0 ? (count as number) : null;
}

/**
 * The records of one content page.
 *
 * @throws Error naming the collection and offset when the answer has GraphQL errors or no list
 */
export function readContentPage<T>(body: GraphQLResponse<Record<string, unknown>>, field: string, start: number): T[] {
  if (body?.errors?.length) {
    throw new Error(`content API ${field} (start ${start}): ${body.errors.map((e) => e.message).join('; ')}`);
  }
  const records = body?.data?.[field];
  if (!Array.isArray(records)) throw new Error(`content API ${field} (start ${start}): expected data.${field} to be a list, got ${JSON.stringify(body).slice(0, 120)}`);
  return records as T[];
}

/** The URL of one booking path. */
export function bookingUrl(config: SwissActivitiesConfig, name: keyof typeof BOOKING_PATHS): string {
  return config.bookingUrl.replace(/\/+$/, '') + BOOKING_PATHS[name];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Per booking path: what its answer must look like, and its records (what a probe counts). */
export const BOOKING_SHAPES: Record<keyof typeof BOOKING_PATHS, { expected: string; isWrong: (body: unknown) => boolean; records: (body: unknown) => unknown[] }> = {
  summaries: { expected: 'a list of summaries', isWrong: (body) => !Array.isArray(body), records: (body) => body as unknown[] },
  dates: { expected: '{ "YYYY-MM-DD": [bookingIds] }', isWrong: (body) => !isObject(body), records: (body) => Object.keys(body as object) },
  mappings: {
    expected: '{ contentApiIds: { "<bookingId>": <contentId> } }',
    isWrong: (body) => !isObject(body) || !isObject(body.contentApiIds),
    records: (body) => Object.keys((body as BookingMappings).contentApiIds),
  },
};
