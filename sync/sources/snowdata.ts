/**
 * Source: ski-resort stations and winter routes from the national winter sports report
 * ("snowdata"). The report has no public feed format (access after registration), so this
 * module defines the JSON feed contract we consume, docs/snowdata-feed.md, and is the ONLY
 * place that knows it: to map a real feed, change this file and that document.
 *
 * URL:         SNOWDATA_BASE_URL, default {@link DEFAULT_BASE_URL} (placeholder: the address is
 *              handed out on registration).
 * Endpoints:   GET {base}/stations?lang=de&offset=0&limit=100 and GET {base}/routes?lang=de&…
 *              ({@link FEED_PATHS}); lang is de, en, fr or it; one request per language.
 * Paging:      `offset` (0-based) and `limit` (at most {@link FEED_MAX_LIMIT}); the response
 *              envelope {@link FeedPage} carries `total`; stop when offset + items >= total.
 * Auth:        header {@link AUTH_HEADER} with SNOWDATA_API_KEY.
 * Rate limit:  unknown (not published).
 * Licence:     data of the report's operator, for registered partners; not openly licensed.
 *
 * Conventions of the feed (all mapped here): numbers are JSON strings; lengths are kilometres
 * (we publish metres); dates are Swiss `DD.MM.YYYY`; times `HH:MM:SS` with `00:00:00` meaning
 * "not set"; flags are "true"/"false"; conditions, weather, skill level and statuses are
 * numeric codes ({@link CONDITION_CODES} and friends) that we publish as text in the language.
 */

import type {
  Locale,
  RouteRecord,
  SnowdataAddress,
  SnowdataCrosscountry,
  SnowdataDetailLink,
  SnowdataHiking,
  SnowdataImage,
  SnowdataInfo,
  SnowdataLink,
  SnowdataMobilityRoute,
  SnowdataPriceCategory,
  SnowdataPrices,
  SnowdataResort,
  SnowdataSki,
  SnowdataSnow,
  SnowdataSnowboard,
  SnowdataSnowpark,
  SnowdataTobogganing,
  SnowdataWeather,
  SnowdataWeatherForecast,
  SnowdataWebcam,
  StationRecord,
} from '../snapshot.ts';
import type { FetchContext, PageProgress, Rejection, SourceData } from '../publish.ts';
import { InvalidRecordError } from './invalidRecordError.ts';

/** Placeholder (the .invalid TLD never resolves): the real base URL comes with the registration. */
export const DEFAULT_BASE_URL = 'https://snowdata.invalid/v1';
/** Feed endpoints, appended to the base URL. */
export const FEED_PATHS = { stations: '/stations', routes: '/routes' } as const;
/** Items we ask for per page. */
export const FEED_PAGE_LIMIT = 100;
/** The largest `limit` the feed accepts. */
export const FEED_MAX_LIMIT = 200;
/** Request header carrying SNOWDATA_API_KEY. */
export const AUTH_HEADER = 'X-Api-Key';

/** The feed's `lang` values. */
export type FeedLanguage = 'de' | 'en' | 'fr' | 'it';
/** The feed's `lang` per service locale. */
export const FEED_LANGUAGE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, FeedLanguage>;
const DETAIL_LINK_LANGUAGES: readonly FeedLanguage[] = ['de', 'en', 'fr', 'it'];

/** URL of one feed page. */
export function feedUrl(base: string, path: (typeof FEED_PATHS)[keyof typeof FEED_PATHS], lang: FeedLanguage, offset: number, limit: number): string {
  const url = new URL(base.replace(/\/+$/, '') + path);
  url.searchParams.set('lang', lang);
  url.searchParams.set('offset', String(offset));
  url.searchParams.set('limit', String(limit));
  return url.toString();
}

// ---------------------------------------------------------------------------
// The feed contract (docs/snowdata-feed.md)

/** A decimal number written as a string, e.g. "12" or "4.5"; null or "" when unknown. */
export type NumText = string | null;
/** "true" or "false"; null when unknown. */
export type FlagText = 'true' | 'false' | null;

/** One page of a feed list. */
export interface FeedPage<T> {
  total: number;
  offset: number;
  limit: number;
  items: T[];
}

/** One item of `/stations` (docs/snowdata-feed.md, "Station record"). */
export interface FeedStation {
  /** Integer id as a string. */
  stationId: string;
  stationName: string;
  resort: { resortId: string; resortName: string; regionId: NumText } | null;
  contact: {
    company: string | null;
    street: string | null;
    zip: NumText;
    town: string | null;
    phone: string | null;
    email: string | null;
    web: string | null;
  } | null;
  facilities: {
    /** Metres above sea level of the station. */
    altitudeM: NumText;
    /** DD.MM.YYYY */
    seasonFrom: string | null;
    seasonTo: string | null;
    facilitiesTotal: NumText;
    cableCars: NumText;
    chairlifts: NumText;
    skilifts: NumText;
    babyLifts: NumText;
    conveyorBelts: NumText;
    /** Lifts running today, by kind. */
    cableCarsOpen: NumText;
    chairliftsOpen: NumText;
    skiliftsOpen: NumText;
    babyLiftsOpen: NumText;
    shuttleBus: FlagText;
    remarks: string | null;
  } | null;
  snow: {
    newSnowCm: NumText;
    newSnowTopCm: NumText;
    depthVillageCm: NumText;
    depthPisteCm: NumText;
    /** DD.MM.YYYY */
    lastSnowfall: string | null;
    avalancheBulletinUrl: string | null;
    remarks: string | null;
  } | null;
  alpine: {
    areaName: string | null;
    slopesCount: NumText;
    slopesKm: NumText;
    slopesOpenKm: NumText;
    valleyRunsCount: NumText;
    liftsOpen: NumText;
    /** HH:MM:SS */
    openFrom: string | null;
    openTo: string | null;
    runCode: NumText;
    snowCode: NumText;
    valleyRunCode: NumText;
    remarks: string | null;
  } | null;
  freestyle: {
    funparkName: string | null;
    parksTotal: NumText;
    parksOpen: NumText;
    halfpipesOpen: NumText;
    snowtubesOpen: NumText;
    artificialSnow: FlagText;
    floodlight: FlagText;
    runCode: NumText;
    parks: { name: string | null; kind: string | null; statusCode: NumText; updatedAt: string | null }[] | null;
  } | null;
  nordic: {
    areaName: string | null;
    phone: string | null;
    classicKm: NumText;
    classicPreparedKm: NumText;
    skatingKm: NumText;
    skatingPreparedKm: NumText;
    dogTrailKm: NumText;
    dogTrailOpenKm: NumText;
    floodlitKm: NumText;
    /** HH:MM:SS */
    floodlitUntil: string | null;
    classicCode: NumText;
    skatingCode: NumText;
    remarks: string | null;
    trails: FeedTrail[] | null;
  } | null;
  winterHiking: {
    areaName: string | null;
    walkingKm: NumText;
    walkingPreparedKm: NumText;
    snowshoeTrailsCount: NumText;
    snowshoeKm: NumText;
    snowshoeOpenKm: NumText;
    trailCode: NumText;
    openFrom: string | null;
    openTo: string | null;
    remarks: string | null;
    trails: FeedTrail[] | null;
  } | null;
  sledging: {
    areaName: string | null;
    runsCount: NumText;
    runsKm: NumText;
    runsOpenCount: NumText;
    runsOpenKm: NumText;
    artificialSnow: FlagText;
    publicTransport: FlagText;
    rental: FlagText;
    skillCode: NumText;
    runCode: NumText;
    remarks: string | null;
  } | null;
  tickets: {
    currency: string | null;
    categories: { kind: 'DAY' | 'HALF_DAY' | 'WEEK' | 'SEASON'; adult: NumText; child: NumText; youth: NumText; senior: NumText }[] | null;
    /** HH:MM:SS */
    halfDayFrom: string | null;
    familyDiscount: FlagText;
    hourCards: FlagText;
    dynamicPricing: FlagText;
    remarks: string | null;
  } | null;
  weather: { code: NumText; tempVillageC: NumText; tempMountainC: NumText; outlook: string | null } | null;
  forecast: { level: 'BERG' | 'TAL'; date: string; tempC: NumText; icon: NumText; url: string | null }[] | null;
  media: { kind: string; href: string; createdAt: string | null; modifiedAt: string | null }[] | null;
  webcams: { imageUrl: string; pageUrl: string | null; location: string | null; lat: NumText; lon: NumText }[] | null;
  links: { kind: 'INTERACTIVE_PISTE_MAP' | 'TICKETSHOP' | 'SKI_SCHOOL'; label: string | null; href: string }[] | null;
  /** Tourism-portal detail page per language. */
  portalLinks: Partial<Record<FeedLanguage, string>> | null;
  /** ISO 8601 with offset. */
  updatedAt: string | null;
}

/** A named trail or track of a station, with its status code. */
export interface FeedTrail {
  name: string | null;
  statusCode: NumText;
}

/** Route kinds as the feed writes them, and what we publish. */
export const ROUTE_TYPES = {
  SCHNEESCHUH: 'snowshoe',
  LOIPE: 'crosscountry',
  WINTERWANDERWEG: 'winterhiking',
  SCHLITTELWEG: 'sledging',
} as const;
/** Route kinds as the feed writes them. */
export type FeedRouteType = keyof typeof ROUTE_TYPES;

/** One item of `/routes` (docs/snowdata-feed.md, "Route record"). */
export interface FeedRoute {
  /** UUID, the same in every language. */
  routeId: string;
  stationId: string;
  routeType: FeedRouteType;
  routeNo: string;
  statusCode: NumText;
  /** ISO 8601 with offset. */
  updatedAt: string | null;
  /** Tourism-portal page in the requested language. */
  portalUrl: string | null;
  stationActive: FlagText;
}

// ---------------------------------------------------------------------------
// Code tables. A code mapped to null means "no information".

type Labels = Record<FeedLanguage, string>;
const labels = (de: string, en: string, fr: string, it: string): Labels => ({ de, en, fr, it });

/** Run, track and trail conditions (slopes, valley runs, parks, cross-country, trails, sledge runs). */
export const CONDITION_CODES: Readonly<Record<string, Labels | null>> = {
  '800': null,
  '801': labels('sehr gut', 'very good', 'très bonnes', 'ottime'),
  '802': labels('gut', 'good', 'bonnes', 'buone'),
  '803': labels('mässig', 'fair', 'moyennes', 'discrete'),
  '804': labels('schlecht', 'poor', 'mauvaises', 'cattive'),
  '805': labels('geschlossen', 'closed', 'fermé', 'chiuso'),
};
/** Snow quality on the slopes. */
export const SNOW_CODES: Readonly<Record<string, Labels | null>> = {
  '900': null,
  '901': labels('Pulverschnee', 'powder', 'poudreuse', 'neve farinosa'),
  '902': labels('griffig', 'packed powder', 'neige compacte', 'neve compatta'),
  '903': labels('hart', 'hard-packed', 'neige dure', 'neve dura'),
  '904': labels('Sulzschnee', 'spring snow', 'neige de printemps', 'neve primaverile'),
  '905': labels('vereist', 'icy', 'verglacée', 'ghiacciata'),
  '906': labels('Nassschnee', 'wet snow', 'neige mouillée', 'neve bagnata'),
  '907': labels('Kunstschnee', 'artificial snow', 'neige de culture', 'neve artificiale'),
};
/** Skill level of sledge runs. */
export const SKILL_CODES: Readonly<Record<string, Labels | null>> = {
  '1000': null,
  '1001': labels('leicht', 'easy', 'facile', 'facile'),
  '1002': labels('mittel', 'medium', 'moyen', 'medio'),
  '1003': labels('schwierig', 'difficult', 'difficile', 'difficile'),
};
/** Today's weather at the station. */
export const WEATHER_CODES: Readonly<Record<string, Labels | null>> = {
  '600': null,
  '601': labels('sonnig', 'sunny', 'ensoleillé', 'soleggiato'),
  '602': labels('leicht bewölkt', 'partly cloudy', 'peu nuageux', 'poco nuvoloso'),
  '603': labels('bewölkt', 'cloudy', 'nuageux', 'nuvoloso'),
  '604': labels('Schneefall', 'snowfall', 'chutes de neige', 'nevicate'),
  '605': labels('Regen', 'rain', 'pluie', 'pioggia'),
  '606': labels('Nebel', 'fog', 'brouillard', 'nebbia'),
  '607': labels('Hochnebel', 'low cloud', 'stratus', 'nebbia alta'),
};
/** Status of routes, trails and snowparks; published as is, not translated. */
export const STATUS_CODES: Readonly<Record<string, 'OPEN' | 'CLOSED' | 'NOINFO'>> = { '0': 'NOINFO', '1': 'OPEN', '2': 'CLOSED' };

// ---------------------------------------------------------------------------
// Normalisers

/**
 * Maps one station of the `lang` feed to the published record. `raw` is the feed record itself;
 * latitude/longitude come from the first webcam that has both coordinates; `sledge` and
 * `snowshoe` are views of the tobogganing and hiking data.
 *
 * A sub-object or list item lacking a field the API marks non-null (resort id and name, image
 * type and url, webcam url, link type and url, forecast level and date) is left out; a number
 * that does not parse becomes null.
 *
 * @throws InvalidRecordError when stationId is not an integer or stationName is empty
 */
export function normalizeStation(raw: FeedStation, lang: FeedLanguage): StationRecord {
  const id = int(raw?.stationId);
  const name = text(raw?.stationName);
  if (id === null || name === null) {
    throw new InvalidRecordError('snowdata.stations', typeof raw?.stationId === 'string' ? raw.stationId : null, 'stationId must be an integer and stationName non-empty');
  }
  const hiking = readHiking(raw.winterHiking, lang);
  const tobogganing = readTobogganing(raw.sledging, lang);
  const webcams = list(raw.webcams, readWebcam);
  const located = webcams?.find((w) => w.latitude !== null && w.longitude !== null);
  return {
    id,
    name,
    latitude: located?.latitude ?? null,
    longitude: located?.longitude ?? null,
    resort: readResort(raw.resort),
    address: readAddress(raw.contact),
    info: readInfo(raw.facilities),
    snow: readSnow(raw.snow),
    ski: readSki(raw.alpine, lang),
    snowboard: readSnowboard(raw.freestyle, lang),
    crosscountry: readCrosscountry(raw.nordic, lang),
    hiking,
    tobogganing,
    sledge: tobogganing && {
      runsTotal: tobogganing.tracksTotal,
      runsLength: tobogganing.tracksLength,
      runsOpenLength: tobogganing.tracksOpenLength,
      condition: tobogganing.condition,
    },
    snowshoe: hiking && {
      trailsTotal: hiking.snowshoeTrailsTotal,
      trailsLength: hiking.snowshoeTrailsLength,
      // SnowdataHiking has no open snowshoe length, so this one comes from the feed directly.
      trailsOpenLength: metres(raw.winterHiking?.snowshoeOpenKm),
      condition: hiking.condition,
    },
    prices: readPrices(raw.tickets),
    weather: readWeather(raw.weather, lang),
    weatherForecast: list(raw.forecast, readForecast),
    images: list(raw.media, readImage),
    webcams,
    links: list(raw.links, readLink),
    detailLinks: readDetailLinks(raw.portalLinks),
    lastUpdate: timestamp(raw.updatedAt),
    raw,
  };
}

/**
 * Maps one winter route of the feed to the published record.
 *
 * @throws InvalidRecordError when routeId or routeNo is empty or routeType is not one of {@link ROUTE_TYPES}
 */
export function normalizeRoute(raw: FeedRoute): RouteRecord {
  const id = text(raw?.routeId);
  const number = text(raw?.routeNo);
  const type = Object.hasOwn(ROUTE_TYPES, raw?.routeType) ? ROUTE_TYPES[raw.routeType] : undefined;
  if (id === null || number === null || type === undefined) {
    throw new InvalidRecordError('snowdata.routes', id, `routeId and routeNo must be non-empty and routeType one of ${Object.keys(ROUTE_TYPES).join(', ')}`);
  }
  return {
    id,
    type,
    number,
    status: status(raw.statusCode),
    lastUpdated: timestamp(raw.updatedAt),
    link: text(raw.portalUrl),
    isStationActive: flag(raw.stationActive) ?? false,
  };
}

function readResort(raw: FeedStation['resort']): SnowdataResort | null {
  const id = int(raw?.resortId);
  const name = text(raw?.resortName);
  if (!raw || id === null || name === null) return null;
  return { id, name, regionId: int(raw.regionId) };
}

function readAddress(raw: FeedStation['contact']): SnowdataAddress | null {
  if (!raw) return null;
  return {
    name: text(raw.company),
    street: text(raw.street),
    place: text(raw.town),
    zip: int(raw.zip),
    phone: text(raw.phone),
    email: text(raw.email),
    website: text(raw.web),
  };
}

function readInfo(raw: FeedStation['facilities']): SnowdataInfo | null {
  if (!raw) return null;
  return {
    altitude: int(raw.altitudeM),
    seasonStart: swissDate(raw.seasonFrom),
    seasonEnd: swissDate(raw.seasonTo),
    totalFacilities: int(raw.facilitiesTotal),
    cableCars: int(raw.cableCars),
    chairlifts: int(raw.chairlifts),
    skilifts: int(raw.skilifts),
    babyLifts: int(raw.babyLifts),
    conveyorBelts: int(raw.conveyorBelts),
    hasShuttlebus: flag(raw.shuttleBus),
    report: text(raw.remarks),
    lifts: {
      cableCar: int(raw.cableCarsOpen),
      chairlift: int(raw.chairliftsOpen),
      skilift: int(raw.skiliftsOpen),
      babyLift: int(raw.babyLiftsOpen),
    },
  };
}

function readSnow(raw: FeedStation['snow']): SnowdataSnow | null {
  if (!raw) return null;
  return {
    freshSnow: int(raw.newSnowCm),
    freshSnowPisteTop: int(raw.newSnowTopCm),
    depthResort: int(raw.depthVillageCm),
    depthPiste: int(raw.depthPisteCm),
    lastSnowfall: swissDate(raw.lastSnowfall),
    avalancheRiskUrl: text(raw.avalancheBulletinUrl),
    report: text(raw.remarks),
  };
}

function readSki(raw: FeedStation['alpine'], lang: FeedLanguage): SnowdataSki | null {
  if (!raw) return null;
  return {
    areaName: text(raw.areaName),
    slopesTotal: int(raw.slopesCount),
    slopesLength: metres(raw.slopesKm),
    slopesOpenLength: metres(raw.slopesOpenKm),
    valleyRuns: int(raw.valleyRunsCount),
    openFacilities: int(raw.liftsOpen),
    openingTime: time(raw.openFrom),
    closingTime: time(raw.openTo),
    condition: label(CONDITION_CODES, raw.runCode, lang),
    snowCondition: label(SNOW_CODES, raw.snowCode, lang),
    valleyRunsCondition: label(CONDITION_CODES, raw.valleyRunCode, lang),
    report: text(raw.remarks),
  };
}

function readSnowboard(raw: FeedStation['freestyle'], lang: FeedLanguage): SnowdataSnowboard | null {
  if (!raw) return null;
  return {
    funparkName: text(raw.funparkName),
    snowparksTotal: int(raw.parksTotal),
    snowparksOpen: int(raw.parksOpen),
    halfpipesOpen: int(raw.halfpipesOpen),
    snowtubesOpen: int(raw.snowtubesOpen),
    hasArtificialSnow: flag(raw.artificialSnow),
    hasFloodlight: flag(raw.floodlight),
    condition: label(CONDITION_CODES, raw.runCode, lang),
    snowparks: list(raw.parks, (park): SnowdataSnowpark => ({
      name: text(park.name),
      type: text(park.kind),
      status: status(park.statusCode),
      lastUpdated: timestamp(park.updatedAt),
    })),
  };
}

function readCrosscountry(raw: FeedStation['nordic'], lang: FeedLanguage): SnowdataCrosscountry | null {
  if (!raw) return null;
  return {
    areaName: text(raw.areaName),
    phone: text(raw.phone),
    classicLength: metres(raw.classicKm),
    classicPrepared: metres(raw.classicPreparedKm),
    skatingLength: metres(raw.skatingKm),
    skatingPrepared: metres(raw.skatingPreparedKm),
    dogTrailLength: metres(raw.dogTrailKm),
    dogTrailOpen: metres(raw.dogTrailOpenKm),
    floodlightLength: metres(raw.floodlitKm),
    floodlightTill: time(raw.floodlitUntil),
    classicCondition: label(CONDITION_CODES, raw.classicCode, lang),
    skatingCondition: label(CONDITION_CODES, raw.skatingCode, lang),
    report: text(raw.remarks),
    routes: list(raw.trails, readTrail),
  };
}

function readHiking(raw: FeedStation['winterHiking'], lang: FeedLanguage): SnowdataHiking | null {
  if (!raw) return null;
  return {
    areaName: text(raw.areaName),
    walkingTrailLength: metres(raw.walkingKm),
    walkingTrailPrepared: metres(raw.walkingPreparedKm),
    snowshoeTrailsTotal: int(raw.snowshoeTrailsCount),
    snowshoeTrailsLength: metres(raw.snowshoeKm),
    condition: label(CONDITION_CODES, raw.trailCode, lang),
    openingTime: time(raw.openFrom),
    closingTime: time(raw.openTo),
    report: text(raw.remarks),
    routes: list(raw.trails, readTrail),
  };
}

function readTobogganing(raw: FeedStation['sledging'], lang: FeedLanguage): SnowdataTobogganing | null {
  if (!raw) return null;
  return {
    areaName: text(raw.areaName),
    tracksTotal: int(raw.runsCount),
    tracksLength: metres(raw.runsKm),
    tracksOpen: int(raw.runsOpenCount),
    tracksOpenLength: metres(raw.runsOpenKm),
    hasArtificialSnow: flag(raw.artificialSnow),
    hasPublicTransport: flag(raw.publicTransport),
    hasRental: flag(raw.rental),
    skillLevel: label(SKILL_CODES, raw.skillCode, lang),
    condition: label(CONDITION_CODES, raw.runCode, lang),
    report: text(raw.remarks),
  };
}

function readTrail(raw: FeedTrail): SnowdataMobilityRoute {
  return { title: text(raw.name), status: status(raw.statusCode) };
}

function readPrices(raw: FeedStation['tickets']): SnowdataPrices | null {
  if (!raw) return null;
  const currency = text(raw.currency);
  const category = (kind: 'DAY' | 'HALF_DAY' | 'WEEK' | 'SEASON'): SnowdataPriceCategory | null => {
    const found = raw.categories?.find((c) => c?.kind === kind);
    if (!found) return null;
    return { adult: text(found.adult), child: text(found.child), teenager: text(found.youth), senior: text(found.senior), currency };
  };
  return {
    dayTicket: category('DAY'),
    halfDayTicket: category('HALF_DAY'),
    weekTicket: category('WEEK'),
    seasonTicket: category('SEASON'),
    halfDayFrom: time(raw.halfDayFrom),
    familyReduction: flag(raw.familyDiscount),
    hourCardsAvailable: flag(raw.hourCards),
    dynamicPrices: flag(raw.dynamicPricing),
    description: text(raw.remarks),
  };
}

function readWeather(raw: FeedStation['weather'], lang: FeedLanguage): SnowdataWeather | null {
  if (!raw) return null;
  return {
    condition: label(WEATHER_CODES, raw.code, lang),
    temperatureResort: int(raw.tempVillageC),
    temperaturePiste: int(raw.tempMountainC),
    forecast: text(raw.outlook),
  };
}

function readForecast(raw: NonNullable<FeedStation['forecast']>[number]): SnowdataWeatherForecast | null {
  const date = isoDate(raw.date);
  if ((raw.level !== 'BERG' && raw.level !== 'TAL') || date === null) return null;
  return { type: raw.level, date, temperature: int(raw.tempC), iconCode: int(raw.icon), url: text(raw.url) };
}

function readImage(raw: NonNullable<FeedStation['media']>[number]): SnowdataImage | null {
  const type = text(raw.kind);
  const url = text(raw.href);
  if (type === null || url === null) return null;
  return { type, url, created: timestamp(raw.createdAt), updated: timestamp(raw.modifiedAt) };
}

function readWebcam(raw: NonNullable<FeedStation['webcams']>[number]): SnowdataWebcam | null {
  const url = text(raw.imageUrl);
  if (url === null) return null;
  const latitude = decimal(raw.lat);
  const longitude = decimal(raw.lon);
  const valid = latitude !== null && longitude !== null && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  return {
    url,
    sourceUrl: text(raw.pageUrl),
    place: text(raw.location),
    latitude: valid ? latitude : null,
    longitude: valid ? longitude : null,
  };
}

function readLink(raw: NonNullable<FeedStation['links']>[number]): SnowdataLink | null {
  const type = text(raw.kind);
  const url = text(raw.href);
  if (type === null || url === null) return null;
  return { type, title: text(raw.label), url };
}

function readDetailLinks(raw: FeedStation['portalLinks']): SnowdataDetailLink[] | null {
  if (!raw) return null;
  return DETAIL_LINK_LANGUAGES.flatMap((lang) => {
    const url = text(raw[lang]);
    return url === null ? [] : [{ lang, url }];
  });
}

// ---------------------------------------------------------------------------
// Field readers: each returns null for a missing or unreadable value.

/** Items that map to null are dropped; a missing list stays null. */
function list<T, R>(items: readonly T[] | null | undefined, read: (item: T) => R | null): R[] | null {
  if (!Array.isArray(items)) return null;
  return items.flatMap((item) => {
    const mapped = item == null ? null : read(item);
    return mapped === null ? [] : [mapped];
  });
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function decimal(value: unknown): number | null {
  const s = text(value);
  return s !== null && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : null;
}

function int(value: unknown): number | null {
  const n = decimal(value);
  return n === null ? null : Math.round(n);
}

/** Kilometres as text to whole metres. */
function metres(value: unknown): number | null {
  const km = decimal(value);
  return km === null ? null : Math.round(km * 1000);
}

function flag(value: unknown): boolean | null {
  return value === 'true' ? true : value === 'false' ? false : null;
}

/** `HH:MM:SS` to `HH:MM`; the feed writes `00:00:00` for "not set". */
function time(value: unknown): string | null {
  const match = /^(\d{2}):(\d{2})(:\d{2})?$/.exec(text(value) ?? '');
  if (!match || (match[1] === '00' && match[2] === '00')) return null;
  return `${match[1]}:${match[2]}`;
}

/** Swiss `DD.MM.YYYY` to ISO `YYYY-MM-DD`. */
function swissDate(value: unknown): string | null {
  const match = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text(value) ?? '');
  if (!match) return null;
  return isoDate(`${match[3]}-${match[2]!.padStart(2, '0')}-${match[1]!.padStart(2, '0')}`);
}

/** A real calendar date `YYYY-MM-DD`, else null. */
function isoDate(value: unknown): string | null {
  const s = text(value);
  if (s === null || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return null;
  const ms = Date.parse(`${s}T00:00:00Z`);
  // Date.parse accepts 2026-02-30; the round trip rejects it.
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(s) ? s : null;
}

/** Any ISO 8601 timestamp with offset, published in UTC (`…Z`). */
function timestamp(value: unknown): string | null {
  const s = text(value);
  const ms = s === null ? NaN : Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function label(table: Readonly<Record<string, Labels | null>>, code: unknown, lang: FeedLanguage): string | null {
  const key = text(code);
  return key !== null && Object.hasOwn(table, key) ? (table[key]?.[lang] ?? null) : null;
}

function status(code: unknown): 'OPEN' | 'CLOSED' | 'NOINFO' | null {
  const key = text(code);
  return key !== null && Object.hasOwn(STATUS_CODES, key) ? STATUS_CODES[key]! : null;
}

// ---------------------------------------------------------------------------
// Fetching

/** Served as `meta.source` of stations and routes. */
export const SOURCE_LABEL = 'Snowdata winter sports report';
/** More pages than the feed ever has: a guard against a feed that never stops paging. */
const MAX_PAGES = 10_000;

export interface SnowdataConfig {
  /** SNOWDATA_BASE_URL, default {@link DEFAULT_BASE_URL}. */
  baseUrl: string;
  /** SNOWDATA_API_KEY, sent in {@link AUTH_HEADER}. */
  apiKey: string;
}

/**
 * Fetches both feeds in each locale of `ctx`, every page up to `total`, and normalises them.
 * Records failing {@link normalizeStation} or {@link normalizeRoute} are returned as rejections.
 *
 * @throws FetchError when a request fails for good; Error when a page is not a {@link FeedPage}
 */
export async function fetchSnowdata(ctx: FetchContext, config: SnowdataConfig): Promise<SourceData> {
  const locales = await Promise.all(
    ctx.locales.map(async (locale) => {
      const lang = FEED_LANGUAGE[locale];
      const progress: PageProgress = { pages: 0, totalPages: 0, items: 0 };
      const [stations, routes] = await Promise.all([
        fetchFeed(ctx, config, FEED_PATHS.stations, locale, progress),
        fetchFeed(ctx, config, FEED_PATHS.routes, locale, progress),
      ]);
      return [
        locale,
        {
          stations: normalizeAll(stations as FeedStation[], (raw) => normalizeStation(raw, lang)),
          routes: normalizeAll(routes as FeedRoute[], normalizeRoute),
        },
      ] as const;
    }),
  );
  return { label: SOURCE_LABEL, locales: Object.fromEntries(locales) as SourceData['locales'] };
}

function normalizeAll<T, R>(items: readonly T[], normalize: (raw: T) => R): { records: R[]; rejected: Rejection[] } {
  const records: R[] = [];
  const rejected: Rejection[] = [];
  for (const raw of items) {
    try {
      records.push(normalize(raw));
    } catch (error) {
      if (!(error instanceof InvalidRecordError)) throw error;
      rejected.push({ id: error.id, reason: error.message });
    }
  }
  return { records, rejected };
}

/** Every item of one feed in one language, in feed order; `progress` is shared by the locale's feeds. */
async function fetchFeed(ctx: FetchContext, config: SnowdataConfig, path: (typeof FEED_PATHS)[keyof typeof FEED_PATHS], locale: Locale, progress: PageProgress): Promise<unknown[]> {
  const lang = FEED_LANGUAGE[locale];
  const pages: unknown[][] = [];
  let total = 0;
  let expected = 0;
  const get = async (index: number): Promise<void> => {
    const url = feedUrl(config.baseUrl, path, lang, index * FEED_PAGE_LIMIT, FEED_PAGE_LIMIT);
    const body = await ctx.http.json(url, { headers: { [AUTH_HEADER]: config.apiKey }, onRetry: (event) => ctx.onRetry(locale, event) });
    const page = readFeedPage(body, `${path} offset ${index * FEED_PAGE_LIMIT} [${lang}]`);
    pages[index] = page.items;
    total = Math.max(total, page.total);
    const pagesNow = Math.max(1, Math.ceil(total / FEED_PAGE_LIMIT));
    progress.totalPages = (progress.totalPages ?? 0) + pagesNow - expected;
    expected = pagesNow;
    progress.pages++;
    progress.items += page.items.length;
    ctx.onPage(locale, { ...progress });
  };
  await get(0);
  // The rest concurrently (the client bounds requests in flight); a feed that grew while we
  // paged reports a larger total: go on until no page asks for more.
  for (let next = 1; next * FEED_PAGE_LIMIT < total; ) {
    const count = Math.ceil(total / FEED_PAGE_LIMIT);
    if (count > MAX_PAGES) throw new Error(`${path} [${lang}]: the feed reports ${total} items, more than ${MAX_PAGES} pages`);
    const batch = Array.from({ length: count - next }, (_, i) => next + i);
    next = count;
    await Promise.all(batch.map(get));
  }
  return pages.flat();
}

/** Checks the envelope of one feed page; the items themselves are checked by the normalisers. */
function readFeedPage(body: unknown, what: string): { total: number; items: unknown[] } {
  const page = body as Partial<FeedPage<unknown>> | null;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.items) || !Number.isSafeInteger(page.total) || page.total! < 0) {
    throw new Error(`${what}: not a feed page (expected { total, offset, limit, items: [...] }), got ${JSON.stringify(body).slice(0, 120)}`);
  }
  return { total: page.total!, items: page.items };
}
