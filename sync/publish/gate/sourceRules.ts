/**
 * The rules that refuse a whole source, with their thresholds and reasons, and the fill-rate
 * floors a first sync is held to. A refused source keeps its last good data, marked stale.
 */

import type { AreaName } from '../../format.ts';

/** Smallest share of the upstream's declared total that must arrive. */
export const MIN_RECEIVED_SHARE = 0.9;
/** Largest rise, against the version served now, of the share of received records in which one field path could not be read. */
export const MAX_UNREADABLE_SHARE = 0.1;
/** A field filled in at least this share of the previous version's records… */
export const DRIFT_FILLED_BEFORE = 0.6;
/** …and in at most this share now has drifted. */
export const DRIFT_FILLED_NOW = 0.4;
/** Smallest share of the largest locale's records every locale of an area must have. */
export const MIN_LOCALE_SHARE = 0.5;
/** A numeric median that moves by more than this factor, either way, is a unit change. */
export const MAX_MEDIAN_FACTOR = 10;

/**
 * Fields that follow the weather rather than a unit: fresh snow goes from a few centimetres to a
 * metre overnight, so its median may move past any factor. Their range rule (0 to 300 cm) still
 * catches another unit.
 */
export const WEATHER_FIELDS: ReadonlySet<string> = new Set(['snow.freshSnow', 'snow.freshSnowPisteTop']);
/** Largest share of received records that may be rejected. */
export const MAX_REJECTED_SHARE = 0.02;
/** Largest share of kept records in which one clear-field rule may clear a field. */
export const MAX_CLEARED_SHARE = 0.05;
/** Largest share of kept records that may hold a text whose double encoding could not be repaired. */
export const MAX_DAMAGED_TEXT_SHARE = 0.02;
/** Smallest share of the previous version's records an area must keep. */
export const MIN_KEPT_SHARE = 0.5;

/** One refusal rule, as docs/sync.md lists it. */
export interface SourceRule {
  rule: string;
  checks: string;
  threshold: string;
  reason: string;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** Every rule that refuses a source, in the order they are checked. */
export const SOURCE_RULES: readonly SourceRule[] = [
  {
    rule: 'completeness',
    checks: 'rows received (a record sent twice counts twice, as the upstream counts it) against the total the upstream declares, first sync included',
    threshold: `at least ${percent(MIN_RECEIVED_SHARE)} of the declared total`,
    reason: 'an upstream that caps or repeats pages sends a fraction of its data with a success status',
  },
  {
    rule: 'unreadable-field',
    checks: 'per upstream field path, the share of received records where the field reader could not read it (absent, or not in the shape it knows), against the version served now',
    threshold: `rises by at most ${percent(MAX_UNREADABLE_SHARE)} of received records`,
    reason: 'a renamed or reshaped field reads as null in every record; publishing that loses the field silently',
  },
  {
    rule: 'field-drift',
    checks: 'per field path, the share of records in which it is filled, against the version served now',
    threshold: `filled in ≥ ${percent(DRIFT_FILLED_BEFORE)} before and ≤ ${percent(DRIFT_FILLED_NOW)} now`,
    reason: 'a field that empties in most records at once is an upstream change, not news',
  },
  {
    rule: 'fill-floor',
    checks: 'on a first sync (nothing to compare with), the fill rate of each area’s key fields',
    threshold: 'each key field at least at its floor',
    reason: 'a first sync has no previous version, so the fields every record should have are held to a stated minimum',
  },
  {
    rule: 'locale-missing',
    checks: 'per area, the records of each locale against the locale with the most',
    threshold: `at least ${percent(MIN_LOCALE_SHARE)} of the largest locale`,
    reason: 'the upstreams translate every record; a locale missing from most records is a broken translation feed',
  },
  {
    rule: 'unit-change',
    checks: 'per numeric field of the plausibility table but fresh snow (which follows the weather), its median against the version served now',
    threshold: `moves less than ${MAX_MEDIAN_FACTOR}× either way`,
    reason: 'prices in cents, distances in metres: a unit change moves every value by a power of ten',
  },
  {
    rule: 'too-many-rejected',
    checks: 'records rejected (normalising, text caps, plausibility) against records received',
    threshold: `at most ${percent(MAX_REJECTED_SHARE)}`,
    reason: 'a few bad records are the upstream’s; many are a change on its side that would silently drop data',
  },
  {
    rule: 'too-many-cleared',
    checks: 'per clear-field plausibility rule, records whose field it cleared against records kept',
    threshold: `at most ${percent(MAX_CLEARED_SHARE)}`,
    reason: 'a few implausible values are typos; many are a unit or format change that clearing would hide',
  },
  {
    rule: 'damaged-text',
    checks: 'records kept with a text that shows the marks of UTF-8 read as Latin-1 after repair (a repair is made only where it is unambiguous), against records kept',
    threshold: `at most ${percent(MAX_DAMAGED_TEXT_SHARE)}`,
    reason: 'an upstream that reads its own UTF-8 as Latin-1 sends “VierwaldstÃ¤ttersee”; where that cannot be undone, publishing it shows garbled names as fresh',
  },
  {
    rule: 'shrink',
    checks: 'records kept against the version served now',
    threshold: `at least ${percent(MIN_KEPT_SHARE)}`,
    reason: 'content does not halve overnight; a halved area is a failed or partial fetch',
  },
];

/**
 * Per area, the key fields a first sync must fill in at least this share of records. They are
 * fields every record of a healthy upstream has, so a floor well below 1 leaves room for the
 * odd incomplete record without letting a field that reads as null everywhere through.
 */
export const FILL_FLOORS: Readonly<Record<AreaName, Readonly<Record<string, number>>>> = {
  activities: { title: 0.9, location: 0.5, 'summary.startingPrice': 0.5, lat: 0.5 },
  locations: { title: 0.9 },
  types: { title: 0.9 },
  stations: { name: 0.9, snow: 0.5, 'info.altitude': 0.5, latitude: 0.5 },
  routes: { status: 0.5 },
  tours: { name: 0.9, distance: 0.5, latitude: 0.5 },
  attractions: { name: 0.9, description: 0.5, latitude: 0.5 },
};
