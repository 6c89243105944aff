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
 *               the first one with fewer than `limit` items (sources/paging.ts). Each page
 *               also asks for `<collection>Connection { aggregate { count } }`, the declared total.
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

import { FetchError, type HttpClient, redactUrl } from '../../client.ts';
import { headerName, milliseconds, type Setting, text, url } from '../../settings.ts';
import type { FetchContext, ProbeEndpoint, Rejection, Source, SourceData } from '../../source.ts';
import { pageThrough } from '../paging.ts';
import { compareFields } from '../probe.ts';
import {
  ACTIVITY_FIELDS,
  BOOKING_PATHS,
  BOOKING_SHAPES,
  bookingAuthHeaders,
  bookingUrl,
  CONTENT_FIELDS,
  CONTENT_PAGE_SIZE,
  contentRequest,
  DEFAULT_AUTH_HEADER,
  DEFAULT_BOOKING_URL,
  DEFAULT_CONTENT_URL,
  readContentPage,
  readContentTotal,
  SUMMARY_FIELDS,
  type SwissActivitiesConfig,
} from './api.ts';
import { isIsoDate, joinActivities } from './join.ts';
import type { BookingDates, BookingMappings, BookingPayload, BookingSummary, ContentActivity, ContentActivityType, ContentLocation, ContentPayload, GraphQLResponse } from './shapes.ts';

/** Served as `meta.source` of activities, locations and types. */
export const SOURCE_LABEL = 'Swiss Activities';

/** The Swiss Activities settings. */
export const SWISSACTIVITIES_SETTINGS: readonly Setting[] = [
  { name: 'SWISSACTIVITIES_CONTENT_URL', schema: url(DEFAULT_CONTENT_URL, 'Swiss Activities content API (GraphQL) URL') },
  { name: 'SWISSACTIVITIES_BOOKING_URL', schema: url(DEFAULT_BOOKING_URL, 'Swiss Activities booking API base URL') },
  { name: 'SWISSACTIVITIES_API_KEY', schema: text('Swiss Activities booking API key (from the partner contract; the content API takes none)'), secret: true },
  { name: 'SWISSACTIVITIES_AUTH_HEADER', schema: headerName(DEFAULT_AUTH_HEADER, 'header that carries the booking key: Authorization sends "Bearer <key>", any other name the bare key') },
];

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
async function fetchActivities(ctx: FetchContext<SwissActivitiesConfig>): Promise<SourceData> {
  const [{ payload: content, received, declared }, booking] = await Promise.all([fetchContent(ctx), fetchBooking(ctx)]);
  const locales: SourceData['locales'] = {};
  for (const locale of ctx.locales) {
    const joined = joinActivities(content, booking, locale, ctx.syncDay);
    const rejected: Record<'activities' | 'locations' | 'types', Rejection[]> = { activities: [], locations: [], types: [] };
    for (const error of joined.report.invalid) {
      rejected[AREA_OF_COLLECTION[error.kind] ?? 'activities'].push({ id: error.id, reason: error.message });
    }
    locales[locale] = {
      activities: { records: joined.activities, rejected: rejected.activities, declared: declared.activities, received: received.activities, fieldMisses: joined.report.misses.misses },
      locations: { records: joined.locations, rejected: rejected.locations, declared: declared.locations, received: received.locations, fieldMisses: {} },
      types: { records: joined.types, rejected: rejected.types, declared: declared.types, received: received.types, fieldMisses: {} },
    };
  }
  return { label: SOURCE_LABEL, locales };
}

/**
 * All three content collections, each paged with start/limit until a short page
 * (pageThrough), merged by id (the last copy wins) so a record that moved between pages is
 * joined once; with the records received of each, and the count the first page declared.
 */
async function fetchContent(ctx: FetchContext<SwissActivitiesConfig>): Promise<{ payload: ContentPayload; received: Record<keyof typeof CONTENT_FIELDS, number>; declared: Record<keyof typeof CONTENT_FIELDS, number | null> }> {
  let pages = 0;
  let items = 0;
  const collection = async <T extends { id?: unknown }>(kind: keyof typeof CONTENT_FIELDS): Promise<{ records: T[]; received: number; declared: number | null }> => {
    const byId = new Map<unknown, T>();
    const paged = await pageThrough<T>({
      what: `content API ${kind}`,
      pageSize: CONTENT_PAGE_SIZE,
      async fetchPage(page) {
        const start = page * CONTENT_PAGE_SIZE;
        const body = await ctx.http.json<GraphQLResponse<Record<string, unknown>>>(ctx.config.contentUrl, {
          body: contentRequest(kind, start),
          onRetry: (event) => ctx.onRetry('content', event),
        });
        const records = readContentPage<T>(body, CONTENT_FIELDS[kind], start);
        const ids = records.map((record) => (typeof record?.id === 'string' || typeof record?.id === 'number' ? record.id : null));
        return { records, ids, declaredTotal: readContentTotal(body), totalPages: null };
      },
      onRecords(records) {
        // A record without an id cannot be merged; keep it so the join reports it as invalid.
        for (const record of records) byId.set(record?.id ?? `#${byId.size}`, record);
      },
      onPage(progress) {
        pages++;
        items += progress.items - (progress.pages > 1 ? lastItems.get(kind)! : 0);
        lastItems.set(kind, progress.items);
        ctx.onPage('content', { pages, totalPages: null, items });
      },
    });
    return { records: [...byId.values()], received: paged.received, declared: paged.declared };
  };
  const lastItems = new Map<string, number>();
  const [activities, locations, types] = await Promise.all([
    collection<ContentActivity>('activities'),
    collection<ContentLocation>('locations'),
    collection<ContentActivityType>('types'),
  ]);
  return {
    payload: { activities: activities.records, locations: locations.records, types: types.records },
    received: { activities: activities.received, locations: locations.received, types: types.received },
    declared: { activities: activities.declared, locations: locations.declared, types: types.declared },
  };
}

/** The three booking answers, each checked for its shape. */
async function fetchBooking(ctx: FetchContext<SwissActivitiesConfig>): Promise<BookingPayload> {
  const { config } = ctx;
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

/**
 * Calls each upstream endpoint once, as the sync would (the content API's first page of
 * activities, then each booking path), and reports what answered: reachable, key accepted,
 * records, and how the records' fields compare with the fields the adapter reads. Never
 * throws on a failed call; the failure is in the endpoint's `error`.
 *
 * @param client used as is: its retries apply to each call
 */
async function probeActivities(client: HttpClient, config: SwissActivitiesConfig): Promise<ProbeEndpoint[]> {
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

/** Activities, their locations and types from Swiss Activities. */
export const activitiesSource: Source<SwissActivitiesConfig> = {
  name: 'activities',
  areas: ['activities', 'locations', 'types'],
  settings: SWISSACTIVITIES_SETTINGS,
  configure: (values) => ({
    contentUrl: values.SWISSACTIVITIES_CONTENT_URL!,
    bookingUrl: values.SWISSACTIVITIES_BOOKING_URL!,
    apiKey: values.SWISSACTIVITIES_API_KEY!,
    authHeader: values.SWISSACTIVITIES_AUTH_HEADER!,
  }),
  fetch: fetchActivities,
  probe: ({ http, config }) => probeActivities(http, config),
};
