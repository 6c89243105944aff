/**
 * The plausibility rules, one table per area: each checks field values against what can
 * physically or commercially be true, and says what happens to a value outside (clear the field,
 * or reject the record) and why. Units are those of sync/format.ts: station lengths and altitudes
 * in metres, snow in centimetres, tour distances in kilometres and durations in minutes.
 */

import type { AreaName } from '../../format.ts';

/** What a rule may look at besides the value. */
export interface RuleContext {
  /** The sync's calendar day in Europe/Zurich, `YYYY-MM-DD` (`syncDay` of sync/source.ts). */
  syncDay: string;
}

/** One plausibility rule of an area. */
export interface PlausibilityRule {
  /** Name, unique in the area, used in counts and reports. */
  rule: string;
  /** Dotted field paths the rule checks; a path whose value is null or absent is not checked. */
  paths: readonly string[];
  /** The limit in words, for the report and docs/sync.md. */
  limit: string;
  action: 'clear-field' | 'reject-record';
  reason: string;
  /** True when a present value, found at `path` (one of {@link paths}), is plausible. */
  holds(value: unknown, context: RuleContext, path: string): boolean;
  /** Paths cleared when any checked path fails; default the failing path. */
  clears?: readonly string[];
  /** Numeric paths whose medians are watched for a unit change. */
  medianPaths: readonly string[];
}

/** Switzerland's extent in degrees (WGS 84), before the margin. */
export const SWITZERLAND = { minLat: 45.818, maxLat: 47.808, minLng: 5.956, maxLng: 10.492 } as const;
/** Degrees around Switzerland still accepted (about 10 km): border resorts, tours starting abroad. */
export const COORDINATE_MARGIN_DEG = 0.1;
/** Lowest and highest ground in Switzerland, in metres (Lago Maggiore, Dufourspitze), with a few metres to spare. */
const ALTITUDE_M = { min: 190, max: 4_640 } as const;
/** Highest starting price an activity may have, in CHF: beyond any day out or multi-day package on sale. */
export const ACTIVITY_PRICE_CEILING_CHF = 10_000;
/** Highest lift ticket price, in CHF: above any season pass sold in Switzerland. */
export const TICKET_PRICE_CEILING_CHF = 5_000;

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
}

function range(rule: string, paths: readonly string[], min: number, max: number, unit: string, reason: string, action: PlausibilityRule['action'] = 'clear-field'): PlausibilityRule {
  return {
    rule,
    paths,
    limit: `${min.toLocaleString('en')}–${max.toLocaleString('en')} ${unit}`,
    action,
    reason,
    holds: (value) => {
      const n = numberOf(value);
      return n >= min && n <= max;
    },
    medianPaths: paths,
  };
}

function coordinates(latPath: string, lngPath: string): PlausibilityRule {
  const { minLat, maxLat, minLng, maxLng } = SWITZERLAND;
  const m = COORDINATE_MARGIN_DEG;
  return {
    rule: 'coordinates-in-switzerland',
    paths: [latPath, lngPath],
    limit: `latitude ${minLat}–${maxLat}°, longitude ${minLng}–${maxLng}°, each ± ${m}°`,
    action: 'clear-field',
    reason: 'everything served lies in Switzerland or just across its border; a point elsewhere is swapped or wrong, and would misplace geo searches',
    holds: (value, _context, path) => {
      const n = numberOf(value);
      return path === latPath ? n >= minLat - m && n <= maxLat + m : n >= minLng - m && n <= maxLng + m;
    },
    // A lone latitude or longitude places nothing.
    clears: [latPath, lngPath],
    medianPaths: [],
  };
}

/** Price rules for price objects holding `amountFields` and a `currency`. */
function prices(paths: readonly string[], amountFields: readonly string[], ceiling: number): PlausibilityRule[] {
  const amounts = (value: unknown) =>
    amountFields.map((field) => (value as Record<string, unknown>)[field]).filter((amount) => amount !== null && amount !== undefined).map(numberOf);
  const medianPaths = paths.flatMap((path) => amountFields.map((field) => `${path}.${field}`));
  return [
    {
      rule: 'price-in-chf',
      paths,
      limit: 'currency CHF',
      action: 'clear-field',
      reason: 'the API serves prices in francs; another currency would be shown as francs',
      holds: (value) => amounts(value).length === 0 || (value as { currency?: unknown }).currency === 'CHF',
      medianPaths: [],
    },
    {
      rule: 'price-above-zero',
      paths,
      limit: '> CHF 0',
      action: 'clear-field',
      reason: 'nothing is sold for nothing: a price of 0 is a missing price sent as a number',
      holds: (value) => amounts(value).every((amount) => amount > 0),
      medianPaths: [],
    },
    {
      rule: 'price-below-ceiling',
      paths,
      limit: `≤ CHF ${ceiling.toLocaleString('en')}`,
      action: 'clear-field',
      reason: 'a price above the ceiling is in cents or another unit, not a real price',
      holds: (value) => amounts(value).every((amount) => amount <= ceiling),
      medianPaths,
    },
  ];
}

/** Days after the sync day a report's time may still lie: clocks and time zones of an upstream that is a little ahead. */
export const FUTURE_MARGIN_DAYS = 2;

/** The calendar day `days` after `day` (`YYYY-MM-DD`). */
function addDays(day: string, days: number): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/**
 * Times that report what happened (an update, a snowfall) lie before the sync, give or take a
 * margin; like a past bookable date, a time well after it is a broken clock or a wrong year.
 */
function notInFuture(paths: readonly string[]): PlausibilityRule {
  return {
    rule: 'not-in-future',
    paths,
    limit: `at most ${FUTURE_MARGIN_DAYS} days after the sync day (Europe/Zurich)`,
    action: 'clear-field',
    reason: 'these times report what already happened; one days ahead of the sync is a broken clock or a wrong year, and would make stale data look fresh',
    holds: (value, context) => {
      const day = typeof value === 'string' ? /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0] : undefined;
      return day === undefined || day <= addDays(context.syncDay, FUTURE_MARGIN_DAYS);
    },
    medianPaths: [],
  };
}

const LIFT_TICKETS = ['prices.dayTicket', 'prices.halfDayTicket', 'prices.weekTicket', 'prices.seasonTicket'];

/** The plausibility rules of every area, in the order they are applied. */
export const PLAUSIBILITY_RULES: Readonly<Record<AreaName, readonly PlausibilityRule[]>> = {
  activities: [
    coordinates('lat', 'lng'),
    ...prices(['summary.startingPrice'], ['amount'], ACTIVITY_PRICE_CEILING_CHF),
    {
      rule: 'next-date-ahead',
      paths: ['nextAvailableDate'],
      limit: 'not before the sync day (Europe/Zurich)',
      action: 'clear-field',
      reason: 'the next bookable date lies ahead by definition; a past day would be offered for booking',
      holds: (value, context) => typeof value === 'string' && value.slice(0, 10) >= context.syncDay,
      medianPaths: [],
    },
  ],
  locations: [],
  types: [],
  stations: [
    coordinates('latitude', 'longitude'),
    range('altitude', ['info.altitude'], ALTITUDE_M.min, ALTITUDE_M.max, 'm', 'no resort lies below the lowest or above the highest point of Switzerland'),
    range('snow-depth', ['snow.depthResort', 'snow.depthPiste'], 0, 1_000, 'cm', 'no Swiss station has measured more than a few metres of snow on the ground'),
    range('fresh-snow', ['snow.freshSnow', 'snow.freshSnowPisteTop'], 0, 300, 'cm', 'fresh snow is what fell in the last days; three metres is beyond any recorded snowfall'),
    range('slope-length', ['ski.slopesLength', 'ski.slopesOpenLength'], 0, 700_000, 'm', 'the largest ski areas reaching into Switzerland have some hundreds of kilometres of slopes'),
    range(
      'crosscountry-length',
      ['crosscountry.classicLength', 'crosscountry.classicPrepared', 'crosscountry.skatingLength', 'crosscountry.skatingPrepared'],
      0,
      300_000,
      'm',
      'the largest Swiss cross-country networks have a few hundred kilometres of trails',
    ),
    range('trail-length', ['hiking.walkingTrailLength', 'hiking.snowshoeTrailsLength'], 0, 500_000, 'm', 'winter walking and snowshoe trails of one station add up to tens of kilometres, not thousands'),
    range('sledge-length', ['tobogganing.tracksLength', 'tobogganing.tracksOpenLength'], 0, 100_000, 'm', 'the longest sledge runs are about fifteen kilometres; a station has a handful'),
    range('temperature', ['weather.temperatureResort', 'weather.temperaturePiste'], -50, 45, '°C', 'Swiss records lie between about −42 °C and 42 °C'),
    ...prices(LIFT_TICKETS, ['adult', 'child', 'teenager', 'senior'], TICKET_PRICE_CEILING_CHF),
    notInFuture(['lastUpdate', 'snow.lastSnowfall']),
  ],
  routes: [],
  tours: [
    coordinates('latitude', 'longitude'),
    range('tour-distance', ['distance'], 0.1, 1_500, 'km', 'the longest Swiss routes cross the country in some hundreds of kilometres; more is metres read as kilometres', 'reject-record'),
    range('tour-duration', ['duration'], 1, 43_200, 'min', 'a multi-stage route takes weeks at most; more is seconds read as minutes', 'reject-record'),
    range('tour-climb', ['ascent', 'descent'], 0, 50_000, 'm', 'the climb of even a multi-stage route stays within tens of kilometres'),
    range('tour-altitude', ['minAltitude', 'maxAltitude'], ALTITUDE_M.min, ALTITUDE_M.max, 'm', 'no route runs below the lowest or above the highest point of Switzerland'),
    notInFuture(['lastUpdated']),
  ],
  attractions: [coordinates('latitude', 'longitude'), notInFuture(['lastUpdated'])],
};
