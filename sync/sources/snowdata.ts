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
 * Paging:      stn-page from 1, {@link PAGE_SIZE} stations a page, until header.totalPages.
 * Rate limit:  not published; we page one request at a time.
 * Licence:     Switzerland Tourism's data, for holders of an STnet account; not openly licensed.
 */

import { createHash, randomBytes } from 'node:crypto';
import { FetchError, type HttpClient, redactUrl } from '../client.ts';
import type { FetchContext, PageProgress, Rejection, SourceData } from '../publish.ts';
import type { Locale, RouteRecord, SnowdataCrosscountry, SnowdataHiking, SnowdataMobilityRoute, SnowdataTobogganing, StationRecord } from '../format.ts';
import { InvalidRecordError } from './invalidRecordError.ts';
import { compareFields, type ProbeEndpoint } from './probe.ts';

/** The real service (plain http in every client seen). */
export const DEFAULT_BASE_URL = 'http://st.stnet.ch/api/services/wispostations';
/** Stations per page, as the clients of the service ask for. */
export const PAGE_SIZE = 50;
/** The date in the ticket is the date in Switzerland, where the service runs. */
export const TICKET_TIME_ZONE = 'Europe/Zurich';

export interface SnowdataConfig {
  /** STNET_BASE_URL, default {@link DEFAULT_BASE_URL}. */
  baseUrl: string;
  /** STNET_USERNAME: the STnet account name. */
  username: string;
  /** STNET_API_KEY: the account's key; only its hash in the ticket is ever sent. */
  apiKey: string;
}

/** The language of the texts published in each locale; a text missing in it falls back to {@link FALLBACK_LANGUAGE}. */
export const TEXT_LANGUAGE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, string>;
/** Every text the service's clients read has a German version. */
export const FALLBACK_LANGUAGE = 'de';

/** A random request token: 16 letters and digits, like the service's clients send. */
export function stnetToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every letter equally likely.
  let token = '';
  while (token.length < 16) {
    for (const byte of randomBytes(32)) if (byte < 248 && token.length < 16) token += alphabet[byte % 62];
  }
  return token;
}

/** `YYYY.MM.DD` of `at` in {@link TICKET_TIME_ZONE}. */
export function stnetDate(at: Date): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone: TICKET_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}.${part('month')}.${part('day')}`;
}

/** The request ticket: lowercase hex md5 of `username:apiKey:token:YYYY.MM.DD`. */
export function stnetTicket(username: string, apiKey: string, token: string, date: string): string {
  return createHash('md5').update(`${username}:${apiKey}:${token}:${date}`).digest('hex');
}

/** URL of one page, with a fresh token and its ticket for the date of `at`. */
export function stnetPageUrl(config: SnowdataConfig, page: number, at: Date = new Date()): string {
  const token = stnetToken();
  const url = new URL(config.baseUrl);
  url.searchParams.set('stn-username', config.username);
  url.searchParams.set('stn-token', token);
  url.searchParams.set('stn-ticket', stnetTicket(config.username, config.apiKey, token, stnetDate(at)));
  url.searchParams.set('stn-output', 'json');
  url.searchParams.set('stn-size', String(PAGE_SIZE));
  url.searchParams.set('stn-page', String(page));
  url.searchParams.set('stn-stationType', 'full');
  return url.toString();
}

// ---------------------------------------------------------------------------
// The service's shapes (test/fixtures/upstream/stnet/CONTRACT.md). Everything is optional:
// the normaliser reads defensively and publishes null for what is missing.

/** A value: `{ content, unit }`, or a bare value where clients read `content` defensively. */
export type StnetValue = { content?: unknown; unit?: unknown } | string | number | null | undefined;
/** One text of a `textArray`. */
export interface StnetText {
  lang?: unknown;
  content?: unknown;
}
/** Texts in every language. `textArray` may be a single object, like every list of the service. */
export interface StnetTexts {
  textArray?: StnetText[] | StnetText | null;
}
/** A condition or status: a code id with its texts. */
export interface StnetCode extends StnetTexts {
  id?: unknown;
}
/** An item of `slopesArray`, `liftsArray`, `tracksArray`, `trailsArray` or `runsArray`. */
export interface StnetItem {
  /** Can be a number (slope 5). */
  name?: unknown;
  description?: StnetTexts | null;
  info?: {
    type?: { id?: unknown } | null;
    condition?: StnetCode | null;
    /** Lifts carry `status` instead of `condition`. */
    status?: StnetCode | null;
    totalLength?: StnetValue;
    totalLengthToday?: StnetValue;
    lastPreparation?: StnetValue;
    sortOrder?: unknown;
    latitude?: StnetValue;
    longitude?: StnetValue;
  } | null;
}
type Many<T> = T[] | T | null | undefined;

/** One station of `stationsArray` (`stn-stationType=full`). */
export interface StnetStation {
  id?: unknown;
  name?: unknown;
  lastUpdate?: StnetValue;
  address?: { place?: unknown; zip?: unknown; phone1?: unknown; url?: unknown } | null;
  info?: {
    numberOfFacilities?: StnetValue;
    numberOfCableCarWinter?: StnetValue;
    numberOfChairliftWinter?: StnetValue;
    numberOfSkilift?: StnetValue;
    numberOfBabyLifts?: StnetValue;
    numberOfSnowConveyorBelts?: StnetValue;
    heightOfSnowMeasurementResort?: StnetValue;
  } | null;
  snow?: {
    depthOfSnowResort?: StnetValue;
    depthOfSnowPiste?: StnetValue;
    freshSnow?: StnetValue;
    freshSnowPisteTop?: StnetValue;
    lastSnowfallResort?: StnetValue;
    lastSnowfallPiste?: StnetValue;
    avalancheRiskLevel?: StnetValue;
    reportSnow?: StnetTexts | null;
  } | null;
  ski?: {
    numberOfSlopes?: StnetValue;
    lengthOfSlopes?: StnetValue;
    lengthOfSlopesOpen?: StnetValue;
    numberOfValleyRuns?: StnetValue;
    numberOfValleyRunsOpen?: StnetValue;
    lengthOfSlopesArtificialSnow?: StnetValue;
    lengthOfSlopesWithFloodlight?: StnetValue;
    runsCondition?: StnetCode | null;
    snowConditionMain?: StnetCode | null;
    snowConditionPartial?: StnetCode | null;
    slopesArray?: Many<StnetItem>;
  } | null;
  facility?: {
    numberOfOpenFacilities?: StnetValue;
    facilityOpeningTime?: StnetValue;
    facilityClosingTime?: StnetValue;
    reportFacility?: StnetTexts | null;
  } | null;
  liftInfo?: { liftsArray?: Many<StnetItem> } | null;
  crosscountry?: {
    lengthOfClassic?: StnetValue;
    lengthOfClassicPrepared?: StnetValue;
    lengthOfSkating?: StnetValue;
    lengthOfSkatingPrepared?: StnetValue;
    lengthOfFloodlightTotal?: StnetValue;
    tracksArray?: Many<StnetItem>;
  } | null;
  hiking?: {
    lengthOfWalkingtrailPrepared?: StnetValue;
    lengthOfSnowshoeTrails?: StnetValue;
    trailsArray?: Many<StnetItem>;
  } | null;
  tobogganing?: {
    numberOfTracks?: StnetValue;
    numberOfTracksOpen?: StnetValue;
    lengthOfTracks?: StnetValue;
    hasArtificialSnow?: StnetValue;
    hasPublicTransport?: StnetValue;
    hasRentalPossibility?: StnetValue;
    runsArray?: Many<StnetItem>;
  } | null;
}

/** One answer page. `stationsArray` is a single object when the page holds one station. */
export interface StnetPage {
  stations?: { header?: { totalPages?: unknown; resultSize?: unknown }; stationsArray?: Many<StnetStation> } | null;
}

/**
 * The fields the adapter reads, as dotted paths (list items as `[]`): what the probe compares
 * an answer with, and what docs/snowdata-mapping.md lists.
 */
export const READ_FIELDS: readonly string[] = (() => {
  const value = (path: string) => [path, `${path}.content`];
  const measure = (path: string) => [path, `${path}.content`, `${path}.unit`];
  const texts = (path: string) => [path, `${path}.textArray`, `${path}.textArray[].lang`, `${path}.textArray[].content`];
  const code = (path: string) => [...texts(path), `${path}.id`];
  /** An array of items read for their name, condition and `sortOrder` (and position, when `located`). */
  const items = (path: string, located = false) => [
    path,
    `${path}[].name`,
    `${path}[].info`,
    `${path}[].info.sortOrder`,
    ...code(`${path}[].info.condition`),
    ...(located ? [...value(`${path}[].info.latitude`), ...value(`${path}[].info.longitude`)] : []),
  ];
  const under = (section: string, fields: string[], read: (path: string) => string[]) => fields.flatMap((field) => read(`${section}.${field}`));
  return [
    'id',
    'name',
    ...value('lastUpdate'),
    'address',
    ...['place', 'zip', 'phone1', 'url'].map((field) => `address.${field}`),
    'info',
    ...under('info', ['numberOfFacilities', 'numberOfCableCarWinter', 'numberOfChairliftWinter', 'numberOfSkilift', 'numberOfBabyLifts', 'numberOfSnowConveyorBelts'], value),
    ...measure('info.heightOfSnowMeasurementResort'),
    'snow',
    ...under('snow', ['depthOfSnowResort', 'depthOfSnowPiste', 'freshSnow', 'freshSnowPisteTop'], measure),
    ...under('snow', ['lastSnowfallResort', 'avalancheRiskLevel'], value),
    ...texts('snow.reportSnow'),
    'ski',
    ...under('ski', ['numberOfSlopes', 'numberOfValleyRuns'], value),
    ...under('ski', ['lengthOfSlopes', 'lengthOfSlopesOpen'], measure),
    ...code('ski.runsCondition'),
    ...code('ski.snowConditionMain'),
    'ski.slopesArray',
    'ski.slopesArray[].info',
    ...code('ski.slopesArray[].info.condition'),
    'facility',
    ...under('facility', ['numberOfOpenFacilities', 'facilityOpeningTime', 'facilityClosingTime'], value),
    ...texts('facility.reportFacility'),
    'liftInfo',
    'liftInfo.liftsArray',
    'liftInfo.liftsArray[].info',
    ...code('liftInfo.liftsArray[].info.status'),
    'crosscountry',
    ...under('crosscountry', ['lengthOfClassic', 'lengthOfClassicPrepared', 'lengthOfSkating', 'lengthOfSkatingPrepared', 'lengthOfFloodlightTotal'], measure),
    ...items('crosscountry.tracksArray', true),
    'hiking',
    ...under('hiking', ['lengthOfWalkingtrailPrepared', 'lengthOfSnowshoeTrails'], measure),
    ...items('hiking.trailsArray'),
    'tobogganing',
    ...under('tobogganing', ['numberOfTracks', 'numberOfTracksOpen', 'hasArtificialSnow', 'hasPublicTransport', 'hasRentalPossibility'], value),
    ...measure('tobogganing.lengthOfTracks'),
    ...items('tobogganing.runsArray', true),
  ];
})();

/** The lists of a station that the service sends as a single object when they hold one item. */
const ITEM_ARRAYS = [
  ['ski', 'slopesArray'],
  ['liftInfo', 'liftsArray'],
  ['crosscountry', 'tracksArray'],
  ['hiking', 'trailsArray'],
  ['tobogganing', 'runsArray'],
] as const;

/** A copy of a station whose item arrays are lists, so that their fields compare as `[]` paths. */
function withLists(station: StnetStation): StnetStation {
  const copy: Record<string, unknown> = { ...station };
  for (const [section, array] of ITEM_ARRAYS) {
    const part = copy[section] as Record<string, unknown> | null | undefined;
    if (part && typeof part === 'object' && part[array] != null) copy[section] = { ...part, [array]: list(part[array] as Many<StnetItem>) };
  }
  return copy as StnetStation;
}

// ---------------------------------------------------------------------------
// Condition codes → route status

/** Status of a route from its condition code; codes not listed (807 and unknown ones) give null. */
export const ROUTE_STATUS: Readonly<Record<number, 'OPEN' | 'CLOSED' | 'NOINFO'>> = {
  // Slopes, cross-country tracks and toboggan runs.
  800: 'NOINFO',
  801: 'OPEN',
  802: 'OPEN',
  803: 'OPEN',
  804: 'OPEN',
  805: 'CLOSED',
  806: 'CLOSED', // end of season
  // Winter hiking trails.
  1200: 'NOINFO',
  1201: 'OPEN',
  1202: 'OPEN',
  1203: 'CLOSED',
  1204: 'CLOSED', // end of season
};
/** Lift status 3001 (open): a station with one running lift is active. */
const LIFT_OPEN = 3001;

/** Which station array becomes which route type. */
export const ROUTE_ARRAYS = [
  { type: 'crosscountry', section: 'crosscountry', array: 'tracksArray' },
  { type: 'winterhiking', section: 'hiking', array: 'trailsArray' },
  { type: 'sledging', section: 'tobogganing', array: 'runsArray' },
] as const;

// ---------------------------------------------------------------------------
// Normalisers

/**
 * Maps one station to the published record in one locale: texts in the locale's language (or
 * German when missing), lengths in metres, depths in centimetres. `raw` is the station as
 * received, every language included. What the service does not carry is null
 * (docs/snowdata-mapping.md lists it).
 *
 * @throws InvalidRecordError when `id` is not an integer or `name` is empty
 */
export function normalizeStation(raw: StnetStation, locale: Locale): StationRecord {
  const id = integer(raw?.id);
  const name = text(raw?.name);
  if (id === null || name === null) {
    throw new InvalidRecordError('snowdata.stations', raw?.id == null ? null : String(raw.id), 'id must be an integer and name non-empty');
  }
  const lang = TEXT_LANGUAGE[locale];
  const { info, snow, ski, facility } = raw;
  const hiking = readHiking(raw.hiking, lang);
  const tobogganing = readTobogganing(raw.tobogganing);
  const located = [...list(raw.crosscountry?.tracksArray), ...list(raw.tobogganing?.runsArray)].map(position).find((p) => p !== null) ?? null;
  return {
    id,
    name,
    latitude: located?.[1] ?? null,
    longitude: located?.[0] ?? null,
    resort: null,
    address: raw.address
      ? { name: null, street: null, place: text(raw.address.place), zip: integer(raw.address.zip), phone: text(raw.address.phone1), email: null, website: text(raw.address.url) }
      : null,
    info:
      info || facility
        ? {
            altitude: metres(info?.heightOfSnowMeasurementResort),
            seasonStart: null,
            seasonEnd: null,
            totalFacilities: count(info?.numberOfFacilities),
            cableCars: count(info?.numberOfCableCarWinter),
            chairlifts: count(info?.numberOfChairliftWinter),
            skilifts: count(info?.numberOfSkilift),
            babyLifts: count(info?.numberOfBabyLifts),
            conveyorBelts: count(info?.numberOfSnowConveyorBelts),
            hasShuttlebus: null,
            report: translate(facility?.reportFacility, lang),
            lifts: info
              ? { cableCar: count(info.numberOfCableCarWinter), chairlift: count(info.numberOfChairliftWinter), skilift: count(info.numberOfSkilift), babyLift: count(info.numberOfBabyLifts) }
              : null,
          }
        : null,
    snow: snow
      ? {
          freshSnow: centimetres(snow.freshSnow),
          freshSnowPisteTop: centimetres(snow.freshSnowPisteTop),
          depthResort: centimetres(snow.depthOfSnowResort),
          depthPiste: centimetres(snow.depthOfSnowPiste),
          lastSnowfall: day(snow.lastSnowfallResort),
          avalancheRiskUrl: text(content(snow.avalancheRiskLevel)),
          report: translate(snow.reportSnow, lang),
        }
      : null,
    ski:
      ski || facility
        ? {
            areaName: null,
            slopesTotal: count(ski?.numberOfSlopes),
            slopesLength: metres(ski?.lengthOfSlopes),
            slopesOpenLength: metres(ski?.lengthOfSlopesOpen),
            valleyRuns: count(ski?.numberOfValleyRuns),
            openFacilities: count(facility?.numberOfOpenFacilities),
            openingTime: clock(facility?.facilityOpeningTime),
            closingTime: clock(facility?.facilityClosingTime),
            condition: translate(ski?.runsCondition, lang),
            snowCondition: translate(ski?.snowConditionMain, lang),
            valleyRunsCondition: null,
            report: null,
          }
        : null,
    snowboard: null,
    crosscountry: readCrosscountry(raw.crosscountry, lang),
    hiking,
    tobogganing,
    sledge: tobogganing && { runsTotal: tobogganing.tracksTotal, runsLength: tobogganing.tracksLength, runsOpenLength: tobogganing.tracksOpenLength, condition: tobogganing.condition },
    snowshoe: hiking && { trailsTotal: hiking.snowshoeTrailsTotal, trailsLength: hiking.snowshoeTrailsLength, trailsOpenLength: null, condition: hiking.condition },
    prices: null,
    weather: null,
    weatherForecast: null,
    images: null,
    webcams: null,
    links: null,
    detailLinks: null,
    lastUpdate: timestamp(raw.lastUpdate),
    raw,
  };
}

function readCrosscountry(raw: StnetStation['crosscountry'], lang: string): SnowdataCrosscountry | null {
  if (!raw) return null;
  return {
    areaName: null,
    phone: null,
    classicLength: metres(raw.lengthOfClassic),
    classicPrepared: metres(raw.lengthOfClassicPrepared),
    skatingLength: metres(raw.lengthOfSkating),
    skatingPrepared: metres(raw.lengthOfSkatingPrepared),
    dogTrailLength: null,
    dogTrailOpen: null,
    floodlightLength: metres(raw.lengthOfFloodlightTotal),
    floodlightTill: null,
    classicCondition: null,
    skatingCondition: null,
    report: null,
    routes: readMobilityRoutes(raw.tracksArray, lang),
  };
}

function readHiking(raw: StnetStation['hiking'], lang: string): SnowdataHiking | null {
  if (!raw) return null;
  return {
    areaName: null,
    walkingTrailLength: null,
    walkingTrailPrepared: metres(raw.lengthOfWalkingtrailPrepared),
    snowshoeTrailsTotal: null,
    snowshoeTrailsLength: metres(raw.lengthOfSnowshoeTrails),
    condition: null,
    openingTime: null,
    closingTime: null,
    report: null,
    routes: readMobilityRoutes(raw.trailsArray, lang),
  };
}

function readTobogganing(raw: StnetStation['tobogganing']): SnowdataTobogganing | null {
  if (!raw) return null;
  return {
    areaName: null,
    tracksTotal: count(raw.numberOfTracks),
    tracksLength: metres(raw.lengthOfTracks),
    tracksOpen: count(raw.numberOfTracksOpen),
    tracksOpenLength: null,
    hasArtificialSnow: flag(raw.hasArtificialSnow),
    hasPublicTransport: flag(raw.hasPublicTransport),
    hasRental: flag(raw.hasRentalPossibility),
    skillLevel: null,
    condition: null,
    report: null,
  };
}

/** The named items of a section with their condition text; a section without its array gives null. */
function readMobilityRoutes(items: Many<StnetItem>, lang: string): SnowdataMobilityRoute[] | null {
  if (items == null) return null;
  return list(items).map((item) => ({ title: text(item.name), status: translate(item.info?.condition, lang) }));
}

/**
 * Builds the winter routes of one station from its cross-country tracks, winter hiking trails
 * and toboggan runs (docs/snowdata-mapping.md, "Winter routes"). Items without a name are left
 * out: the name is what keeps a route's id stable from one day to the next.
 */
export function stationRoutes(raw: StnetStation): RouteRecord[] {
  return stationRouteItems(raw).map((item) => item.route);
}

/** A station route with what the tour join (winterJoin.ts) matches it by. */
export interface StationRouteItem {
  route: RouteRecord;
  /** The item's name as the service gives it. */
  name: string;
  /** The item's own `[lng, lat]`, null when it has none (trails never do). */
  position: [number, number] | null;
}

/** {@link stationRoutes}, each with the item's name and position. */
export function stationRouteItems(raw: StnetStation): StationRouteItem[] {
  const stationId = integer(raw?.id);
  if (stationId === null) return [];
  const active = isStationActive(raw);
  const lastUpdated = timestamp(raw.lastUpdate);
  const items: StationRouteItem[] = [];
  for (const { type, section, array } of ROUTE_ARRAYS) {
    const seen = new Map<string, number>();
    for (const [index, item] of list((raw[section] as Record<string, Many<StnetItem>> | null | undefined)?.[array]).entries()) {
      const name = text(item.name);
      if (name === null) continue;
      // Two items of one array with the same name still get their own ids.
      const repeat = (seen.get(name) ?? 0) + 1;
      seen.set(name, repeat);
      const order = integer(item.info?.sortOrder);
      const route: RouteRecord = {
        id: nameUuid(`${stationId}/${type}/${name}${repeat > 1 ? `#${repeat}` : ''}`),
        type,
        number: `${stationId}-${order ?? index + 1}`,
        status: routeStatus(item.info?.condition),
        lastUpdated,
        link: null,
        isStationActive: active,
      };
      items.push({ route, name, position: position(item) });
    }
  }
  return items;
}

/** A station is active while one of its lifts, slopes, tracks, trails or runs is open. */
export function isStationActive(raw: StnetStation): boolean {
  if (list(raw.liftInfo?.liftsArray).some((lift) => integer(lift.info?.status?.id) === LIFT_OPEN)) return true;
  const items = [...list(raw.ski?.slopesArray), ...ROUTE_ARRAYS.flatMap(({ section, array }) => list((raw[section] as Record<string, Many<StnetItem>> | null | undefined)?.[array]))];
  return items.some((item) => routeStatus(item.info?.condition) === 'OPEN');
}

function routeStatus(code: StnetCode | null | undefined): 'OPEN' | 'CLOSED' | 'NOINFO' | null {
  const id = integer(code?.id);
  return id !== null && Object.hasOwn(ROUTE_STATUS, id) ? ROUTE_STATUS[id]! : null;
}

/** Our namespace for route ids; changing it changes every route id. */
export const ROUTE_NAMESPACE = '6f1c7a52-3b0e-4d8a-9c1e-5a7d2b4e8f10';

/** A name-based UUID (RFC 9562 version 5, SHA-1) in {@link ROUTE_NAMESPACE}. */
function nameUuid(name: string): string {
  const hash = createHash('sha1').update(Buffer.from(ROUTE_NAMESPACE.replaceAll('-', ''), 'hex')).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ---------------------------------------------------------------------------
// Field readers: each returns null for a missing or unreadable value.

function list<T>(value: Many<T>): T[] {
  if (value == null) return [];
  return (Array.isArray(value) ? value : [value]).filter((item): item is T => item !== null && typeof item === 'object');
}

function content(value: StnetValue): unknown {
  return value !== null && typeof value === 'object' ? value.content : value;
}

function unit(value: StnetValue): string | null {
  return value !== null && typeof value === 'object' && typeof value.unit === 'string' ? value.unit.trim().toLowerCase() : null;
}

function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function decimal(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const s = text(value);
  return s !== null && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : null;
}

function integer(value: unknown): number | null {
  const n = decimal(value);
  return n !== null && Number.isInteger(n) ? n : null;
}

/** A count: a whole number >= 0. */
function count(value: StnetValue): number | null {
  const n = decimal(content(value));
  return n !== null && n >= 0 ? Math.round(n) : null;
}

/** Metres per unit the service writes lengths and heights in; no unit means metres. */
const METRES_PER: Readonly<Record<string, number>> = { m: 1, km: 1000, cm: 0.01 };
/** Centimetres per unit the service writes snow depths in; no unit means centimetres. */
const CENTIMETRES_PER: Readonly<Record<string, number>> = { cm: 1, m: 100, mm: 0.1 };

function scaled(value: StnetValue, per: Readonly<Record<string, number>>, fallback: string): number | null {
  const n = decimal(content(value));
  const factor = per[unit(value) ?? fallback];
  return n === null || factor === undefined || n < 0 ? null : Math.round(n * factor);
}

/** A length or height in whole metres. */
function metres(value: StnetValue): number | null {
  return scaled(value, METRES_PER, 'm');
}

/** A snow depth in whole centimetres. */
function centimetres(value: StnetValue): number | null {
  return scaled(value, CENTIMETRES_PER, 'cm');
}

/** 0/1 (or a boolean) as a flag. */
function flag(value: StnetValue): boolean | null {
  const v = content(value);
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  return null;
}

/** An ISO 8601 timestamp with offset, published in UTC (`…Z`). */
function timestamp(value: StnetValue): string | null {
  const s = text(content(value));
  const ms = s === null ? NaN : Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The calendar day of an ISO timestamp as the service wrote it (its own offset), `YYYY-MM-DD`. */
function day(value: StnetValue): string | null {
  const s = text(content(value));
  return s !== null && /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)) ? s.slice(0, 10) : null;
}

/** The time of day of an ISO timestamp as the service wrote it, `HH:MM`. */
function clock(value: StnetValue): string | null {
  const match = /T(\d{2}):(\d{2})/.exec(text(content(value)) ?? '');
  return match ? `${match[1]}:${match[2]}` : null;
}

/** The text in `lang`, else the German one, else null. */
function translate(texts: StnetTexts | null | undefined, lang: string): string | null {
  const all = list(texts?.textArray);
  const pick = (l: string) => text(all.find((t) => t.lang === l)?.content);
  return pick(lang) ?? pick(FALLBACK_LANGUAGE);
}

/** `[lng, lat]` of a track or run with both coordinates in range; 0 means "not set" to the service's clients. */
function position(item: StnetItem): [number, number] | null {
  const lat = decimal(content(item.info?.latitude));
  const lng = decimal(content(item.info?.longitude));
  if (lat === null || lng === null || lat === 0 || lng === 0 || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return [lng, lat];
}

// ---------------------------------------------------------------------------
// Fetching

/** Served as `meta.source` of stations and routes. */
export const SOURCE_LABEL = 'Switzerland Tourism STnet winter sports report';
/** Progress is reported under this part name: one answer holds every locale. */
export const PROGRESS_PART = 'stations';
/** More pages than the service ever has: a guard against an answer that never stops paging. */
const MAX_PAGES = 1_000;

/**
 * Fetches every page of the service once and normalises the stations in each locale of `ctx`;
 * the winter routes, which carry no text, are the same in every locale. A station failing
 * {@link normalizeStation} is returned as a rejection, in stations and (its routes) in routes.
 *
 * @throws FetchError when a request fails for good; Error when an answer is not a stations page
 */
export async function fetchSnowdata(ctx: FetchContext, config: SnowdataConfig): Promise<SourceData> {
  const raws = await fetchStations(ctx, config);
  const routes: RouteRecord[] = [];
  for (const raw of raws) routes.push(...stationRoutes(raw));
  const locales: SourceData['locales'] = {};
  for (const locale of ctx.locales) {
    const stations: StationRecord[] = [];
    const rejected: Rejection[] = [];
    for (const raw of raws) {
      try {
        stations.push(normalizeStation(raw, locale));
      } catch (error) {
        if (!(error instanceof InvalidRecordError)) throw error;
        rejected.push({ id: error.id, reason: error.message });
      }
    }
    locales[locale] = { stations: { records: stations, rejected }, routes: { records: routes, rejected: [] } };
  }
  return { label: SOURCE_LABEL, locales };
}

/** Every station of every page, in answer order. */
async function fetchStations(ctx: FetchContext, config: SnowdataConfig): Promise<StnetStation[]> {
  const stations: StnetStation[] = [];
  const progress: PageProgress = { pages: 0, totalPages: null, items: 0 };
  let totalPages = 1;
  // One page at a time: the service's rate limit is not published.
  for (let page = 1; page <= totalPages; page++) {
    // A fresh token and ticket per page, as the service's clients send.
    const body = await ctx.http.json(stnetPageUrl(config, page), { onRetry: (event) => ctx.onRetry(PROGRESS_PART, event) });
    const read = readPage(body, page);
    totalPages = read.totalPages;
    if (totalPages > MAX_PAGES) throw new Error(`STnet page ${page}: header.totalPages is ${totalPages}, more than ${MAX_PAGES}`);
    stations.push(...read.stations);
    progress.pages = page;
    progress.totalPages = totalPages;
    progress.items += read.stations.length;
    ctx.onPage(PROGRESS_PART, { ...progress });
  }
  return stations;
}

/**
 * Checks the envelope of one page; the stations themselves are checked by the normaliser.
 *
 * @throws Error naming the page and the expected shape
 */
export function readPage(body: unknown, page: number): { totalPages: number; stations: StnetStation[] } {
  const root = (body as StnetPage | null)?.stations;
  const totalPages = integer(root?.header?.totalPages);
  const array = root?.stationsArray;
  if (root == null || typeof root !== 'object' || totalPages === null || totalPages < 0 || (array != null && typeof array !== 'object')) {
    throw new Error(
      `STnet page ${page}: not a stations page (expected { stations: { header: { totalPages, resultSize }, stationsArray } }), got ${JSON.stringify(body)?.slice(0, 120)}`,
    );
  }
  return { totalPages, stations: list(array) };
}

// ---------------------------------------------------------------------------
// Probe

/**
 * Calls the first page once and reports what came back: reachable, key accepted, stations on
 * the page, and how their fields compare with {@link READ_FIELDS}. Never throws for an upstream
 * failure; the URL and error are redacted by the client.
 */
export async function probeSnowdata(client: HttpClient, config: SnowdataConfig): Promise<ProbeEndpoint[]> {
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
    const body = await client.json(url);
    endpoint.reachable = true;
    endpoint.keyAccepted = true;
    const { stations } = readPage(body, 1);
    endpoint.records = stations.length;
    Object.assign(endpoint, compareFields(stations.map(withLists), READ_FIELDS));
  } catch (error) {
    if (error instanceof FetchError) {
      endpoint.reachable = error.status !== undefined;
      endpoint.keyAccepted = error.status === undefined ? null : error.status !== 401 && error.status !== 403;
    }
    endpoint.error = (error as Error).message;
  }
  return [endpoint];
}
