/**
 * Source: ski-resort stations and winter routes from Switzerland Tourism's STnet "WISPO
 * stations" service (the winter sports report behind snow.myswitzerland.com). The mapping,
 * field by field with its evidence, is docs/snowdata-mapping.md.
 *
 * URL:         STNET_BASE_URL, default {@link DEFAULT_BASE_URL}.
 * Request:     GET {base}?stn-username&stn-token&stn-ticket&stn-output=json&stn-size&stn-page
 *              &stn-stationType=full ({@link stnetPageUrl}); every language in one answer.
 * Auth:        STNET_USERNAME, and a ticket per request: md5 of username, STNET_API_KEY, a fresh
 *              random token and the Swiss date ({@link stnetTicket}).
 * Paging:      stn-page from 1, {@link PAGE_SIZE} stations a page, until header.totalPages;
 *              header.resultSize declares the stations in all.
 * Rate limit:  not published; we page one request at a time, {@link DEFAULT_PAGE_PAUSE_MS} ms apart,
 *              each with a fresh token (a retry included) and a {@link DEFAULT_TIMEOUT_MS} ms timeout.
 * Licence:     Switzerland Tourism's data, for holders of an STnet account; not openly licensed.
 */

import { FetchError, type HttpClient, redactUrl } from '../../client.ts';
import { headerName, milliseconds, type Setting, text, url } from '../../settings.ts';
import type { FetchContext, ProbeEndpoint, Rejection, Source, SourceData } from '../../source.ts';
import type { RouteRecord, StationRecord } from '../../format.ts';
import { pageThrough } from '../paging.ts';
import { compareFields } from '../probe.ts';
import { FieldReader, integer, InvalidRecordError } from '../read.ts';
import { DEFAULT_BASE_URL, DEFAULT_PAGE_PAUSE_MS, DEFAULT_TIMEOUT_MS, PAGE_SIZE, readPage, type SnowdataConfig, stnetPageUrl } from './api.ts';
import { OPTIONAL_FIELDS, READ_FIELDS, withLists } from './fields.ts';
import { normalizeStation } from './normalize.ts';
import { stationRoutes } from './routes.ts';

/** Served as `meta.source` of stations and routes. */
export const SOURCE_LABEL = 'Switzerland Tourism STnet winter sports report';
/** Progress is reported under this part name: one answer holds every locale. */
export const PROGRESS_PART = 'stations';

/** The STnet settings. */
export const STNET_SETTINGS: readonly Setting[] = [
  { name: 'STNET_BASE_URL', schema: url(DEFAULT_BASE_URL, "Switzerland Tourism's STnet WISPO stations service URL") },
  { name: 'STNET_USERNAME', schema: text('STnet account name (an STnet account is issued by Switzerland Tourism)') },
  { name: 'STNET_API_KEY', schema: text("STnet account key; never sent, only hashed into each request's stn-ticket"), secret: true },
  { name: 'STNET_PAGE_PAUSE_MS', schema: milliseconds(0, 60_000, DEFAULT_PAGE_PAUSE_MS, 'pause between two STnet pages') },
  { name: 'STNET_TIMEOUT_MS', schema: milliseconds(1_000, 600_000, DEFAULT_TIMEOUT_MS, 'longest wait for an STnet answer (headers, or between two parts of the body)') },
];

/**
 * Fetches every page of the service once and normalises each page's stations in each locale of
 * the context as it arrives; the winter routes, which carry no text, are the same in every
 * locale. A station failing {@link normalizeStation} is a rejection, in stations and (its
 * routes) in routes. The stations declared are the first page's `header.resultSize`.
 *
 * @throws FetchError when a request fails for good; Error when an answer is not a stations page
 *   or the paging goes wrong (see pageThrough)
 */
async function fetchSnowdata(ctx: FetchContext<SnowdataConfig>): Promise<SourceData> {
  const { config } = ctx;
  const perLocale = ctx.locales.map((locale) => ({ locale, stations: [] as StationRecord[], rejected: [] as Rejection[], reader: new FieldReader() }));
  const routes: RouteRecord[] = [];
  const paged = await pageThrough({
    what: 'STnet stations',
    pageSize: PAGE_SIZE,
    pauseMs: config.pagePauseMs,
    async fetchPage(index) {
      const page = index + 1;
      const body = await ctx.http.json(() => stnetPageUrl(config, page), { timeoutMs: config.timeoutMs, onRetry: (event) => ctx.onRetry(PROGRESS_PART, event) });
      const read = readPage(body, page);
      return { records: read.stations, ids: read.stations.map((s) => integer(s?.id)), declaredTotal: read.resultSize, totalPages: read.totalPages };
    },
    onRecords(stations) {
      for (const raw of stations) {
        routes.push(...stationRoutes(raw));
        for (const part of perLocale) {
          try {
            part.stations.push(normalizeStation(raw, part.locale, part.reader));
          } catch (error) {
            if (!(error instanceof InvalidRecordError)) throw error;
            part.rejected.push({ id: error.id, reason: error.message });
          }
        }
      }
    },
    onPage: (progress) => ctx.onPage(PROGRESS_PART, progress),
  });
  const locales: SourceData['locales'] = {};
  for (const { locale, stations, rejected, reader } of perLocale) {
    locales[locale] = {
      stations: { records: stations, rejected, declared: paged.declared, received: paged.received, fieldMisses: reader.misses },
      routes: { records: routes, rejected: [], declared: null, received: routes.length, fieldMisses: {} },
    };
  }
  return { label: SOURCE_LABEL, locales };
}

/**
 * Calls the first page once and reports what came back: reachable, key accepted, stations on
 * the page, and how their fields compare with {@link READ_FIELDS} and {@link OPTIONAL_FIELDS}
 * (never reported missing). Never throws for an upstream failure; the URL and error are
 * redacted by the client.
 */
async function probeSnowdata(client: HttpClient, config: SnowdataConfig): Promise<ProbeEndpoint[]> {
  const url = stnetPageUrl(config, 1);
  const endpoint: ProbeEndpoint = {
    name: 'WISPO stations',
    url: redactUrl(url),
    reachable: false,
    keyAccepted: null,
    records: null,
    unexpectedFields: [],
    missingFields: [],
  };
  try {
    const body = await client.json(url, { timeoutMs: config.timeoutMs });
    endpoint.reachable = true;
    endpoint.keyAccepted = true;
    const { stations } = readPage(body, 1);
    endpoint.records = stations.length;
    const compared = compareFields(stations.map(withLists), [...READ_FIELDS, ...OPTIONAL_FIELDS]);
    const optional = new Set(OPTIONAL_FIELDS);
    Object.assign(endpoint, { ...compared, missingFields: compared.missingFields.filter((field) => !optional.has(field)) });
  } catch (error) {
    if (error instanceof FetchError) {
      endpoint.reachable = error.status !== undefined;
      endpoint.keyAccepted = error.status === undefined ? null : error.status !== 401 && error.status !== 403;
    }
    endpoint.error = (error as Error).message;
  }
  return [endpoint];
}

/** Ski-resort stations and winter routes from STnet. */
export const snowdataSource: Source<SnowdataConfig> = {
  name: 'snowdata',
  areas: ['stations', 'routes'],
  settings: STNET_SETTINGS,
  configure: (values) => ({
    baseUrl: values.STNET_BASE_URL!,
    username: values.STNET_USERNAME!,
    apiKey: values.STNET_API_KEY!,
    pagePauseMs: Number(values.STNET_PAGE_PAUSE_MS),
    timeoutMs: Number(values.STNET_TIMEOUT_MS),
  }),
  fetch: fetchSnowdata,
  probe: ({ http, config }) => probeSnowdata(http, config),
};
