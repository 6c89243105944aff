/**
 * Sources: tours and attractions from the MySwitzerland Open Data API (Switzerland Tourism).
 *
 * - Upstream: https://opendata.myswitzerland.io/v1 — `GET /tours` and `GET /attractions`, with
 *   `lang` (de, en, fr, it), `page`, `hitsPerPage`, `expand=true` (whole records in the list)
 *   and `striphtml=true`; each tour's line from `GET /tours/{id}/geodata` (geodata.ts).
 *   Portal: https://opendata.myswitzerland.io/
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
 *   derived data under the same terms. Each record keeps it as `upstreamLicense` (license.ts),
 *   which the API answers as the record's `license`.
 *
 * The field-by-field mapping onto our Tour and Attraction types, with the reasons behind each
 * choice, is in docs/myswitzerland-mapping.md. The attraction shape is read off 1,069 real
 * records (test/fixtures/upstream/myswitzerland/). No real tour response is public:
 * `UpstreamTour` follows the client code that reads the real one
 * (test/fixtures/upstream/myswitzerland/TOURS-EVIDENCE.md), and `npm run sync -- --probe
 * tours` checks it against the real answer once a key is at hand.
 */

import { FetchError, type HttpClient, redactUrl } from '../../client.ts';
import type { Locale } from '../../format.ts';
import { headerName, milliseconds, type Setting, text, url } from '../../settings.ts';
import type { FetchContext, ProbeEndpoint, Rejection, Source, SourceData } from '../../source.ts';
import { pageThrough } from '../paging.ts';
import { compareFields } from '../probe.ts';
import { FieldReader, InvalidRecordError } from '../read.ts';
import {
  DEFAULT_BASE_URL,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  DEFAULT_REQUEST_INTERVAL_MS,
  HITS_PER_PAGE,
  LANGUAGE,
  type Language,
  listUrl,
  type MySwitzerlandConfig,
  readPage,
  requestOptions,
} from './api.ts';
import { fetchTourLines } from './geodata.ts';
import { normalizeAttraction, normalizeTour } from './normalize.ts';

/** Served as `meta.source` of tours and attractions. */
export const SOURCE_LABEL = 'MySwitzerland Open Data';

/** The MySwitzerland settings, shared by tours and attractions (one key, one quota). */
export const MYSWITZERLAND_SETTINGS: readonly Setting[] = [
  { name: 'MYSWITZERLAND_BASE_URL', schema: url(DEFAULT_BASE_URL, 'MySwitzerland Open Data API base URL') },
  { name: 'MYSWITZERLAND_API_KEY', schema: text('MySwitzerland Open Data API key (developer portal, opendata.myswitzerland.io)'), secret: true },
  { name: 'MYSWITZERLAND_REQUEST_INTERVAL_MS', schema: milliseconds(0, 3_600_000, DEFAULT_REQUEST_INTERVAL_MS, 'least time between two MySwitzerland requests (the API has a quota)') },
  { name: 'MYSWITZERLAND_RATE_LIMIT_WAIT_MS', schema: milliseconds(0, 3_600_000, DEFAULT_RATE_LIMIT_WAIT_MS, 'wait after a MySwitzerland 429 that has no Retry-After') },
];

function configure(values: Readonly<Record<string, string>>): MySwitzerlandConfig {
  return {
    baseUrl: values.MYSWITZERLAND_BASE_URL!,
    apiKey: values.MYSWITZERLAND_API_KEY!,
    requestIntervalMs: Number(values.MYSWITZERLAND_REQUEST_INTERVAL_MS),
    rateLimitWaitMs: Number(values.MYSWITZERLAND_RATE_LIMIT_WAIT_MS),
  };
}

/**
 * Fetches every record of one list in each locale of `ctx`, page by page to the last, and
 * normalises each page as it arrives, counting the fields each record lacks; records failing
 * `normalize` are rejections. The locales
 * page concurrently (the client's pace spaces their requests).
 *
 * @throws FetchError when a request fails for good; Error when a page is not a list response or
 *   the paging goes wrong (see pageThrough)
 */
async function fetchList<R>(
  ctx: FetchContext<MySwitzerlandConfig>,
  list: 'tours' | 'attractions',
  normalize: (record: unknown, lang: Language, misses: FieldReader) => R,
): Promise<SourceData> {
  const { config } = ctx;
  const locales = await Promise.all(
    ctx.locales.map(async (locale: Locale) => {
      const lang = LANGUAGE[locale];
      const records: R[] = [];
      const rejected: Rejection[] = [];
      const misses = new FieldReader();
      const paged = await pageThrough<unknown>({
        what: `MySwitzerland ${list} [${lang}]`,
        pageSize: HITS_PER_PAGE,
        async fetchPage(page) {
          const body = await ctx.http.json(listUrl(config.baseUrl, list, lang, page), { ...requestOptions(config), onRetry: (event) => ctx.onRetry(locale, event) });
          const { data, totalPages, totalElements } = readPage(body, `${list} page ${page} [${lang}]`);
          return { records: data, ids: data.map(identifier), declaredTotal: totalElements, totalPages };
        },
        onRecords(page) {
          for (const record of page) {
            try {
              records.push(normalize(record, lang, misses));
            } catch (error) {
              if (!(error instanceof InvalidRecordError)) throw error;
              rejected.push({ id: error.id, reason: error.message });
            }
          }
        },
        onPage: (progress) => ctx.onPage(locale, progress),
      });
      return [locale, { [list]: { records, rejected, declared: paged.declared, received: paged.received, fieldMisses: misses.misses } }] as const;
    }),
  );
  return { label: SOURCE_LABEL, locales: Object.fromEntries(locales) as SourceData['locales'] };
}

/** A record's `identifier` when it is a string or number, for telling repeated pages apart. */
function identifier(record: unknown): string | number | null {
  const id = typeof record === 'object' && record !== null ? (record as { identifier?: unknown }).identifier : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}


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
function probeTours(http: HttpClient, config: MySwitzerlandConfig): Promise<ProbeEndpoint[]> {
  return probeList(http, config, 'tours', TOUR_FIELDS);
}

/** Calls `GET /attractions` once; see {@link probeTours}. */
function probeAttractions(http: HttpClient, config: MySwitzerlandConfig): Promise<ProbeEndpoint[]> {
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every locale's tours, then each tour's line (geodata.ts): asked for once per tour, whatever
 * the locales, and only for the tours changed since the version served.
 */
async function fetchTours(ctx: FetchContext<MySwitzerlandConfig>): Promise<SourceData> {
  const data = await fetchList(ctx, 'tours', normalizeTour);
  const tours = Object.values(data.locales).flatMap((areas) => areas?.tours?.records ?? []);
  const served = await ctx.served();
  const geometry = await fetchTourLines(ctx.http, ctx.config, tours, served, (event) => ctx.onRetry('geodata', event), (done, total) =>
    ctx.onPage('geodata', { pages: done, totalPages: total, items: 0 }),
  );
  return { ...data, geometry };
}

/** Tours (summer and winter) from MySwitzerland. */
export const toursSource: Source<MySwitzerlandConfig> = {
  name: 'tours',
  areas: ['tours'],
  settings: MYSWITZERLAND_SETTINGS,
  configure,
  fetch: fetchTours,
  probe: ({ http, config }) => probeTours(http, config),
};

/** Attractions from MySwitzerland. */
export const attractionsSource: Source<MySwitzerlandConfig> = {
  name: 'attractions',
  areas: ['attractions'],
  settings: MYSWITZERLAND_SETTINGS,
  configure,
  fetch: (ctx) => fetchList(ctx, 'attractions', normalizeAttraction),
  probe: ({ http, config }) => probeAttractions(http, config),
};
