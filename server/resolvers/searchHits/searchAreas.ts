/**
 * The areas `search` reads, each seen the same way: its records, its text index, and per record
 * (by position) its title, its text fields, its point and its own signal, and its geo index.
 * Made once per store and locale, on the first search there: the winter routes need a text index
 * of their own, since the area's index holds their numbers only (a route has no name, see
 * routeTitles.ts); their points are the store's (server/snapshot/store.ts PlacedRoute).
 */

import { createTextIndex, queryWords, type GeoIndex, type TextIndex } from '../../search/indexes.ts';
import type { Locale } from '../../snapshot/locales.ts';
import type { LocaleStore, Store } from '../../snapshot/store.ts';
import { nameRoute } from './routeTitles.ts';

/** The areas `search` covers, named as their list queries (and `search(areas:)`) name them, in the order ties are listed. */
export const SEARCH_AREAS = ['activities', 'snowdataStations', 'snowdataRoutes', 'tours', 'attractions'] as const;
export type SearchAreaName = (typeof SEARCH_AREAS)[number];

/** A point in degrees, in lng, lat order. */
export interface Point {
  lng: number;
  lat: number;
}

/** One area as `search` reads it; positions index its records and its text index alike. */
export interface SearchArea {
  readonly name: SearchAreaName;
  readonly records: readonly object[];
  readonly text: TextIndex;
  /** The area's geo index, by the same positions: a map view's box is found there. */
  readonly geo: GeoIndex;
  /** The record's name as a hit shows it; never empty for a record the text index can find. */
  title(position: number): string;
  /** The record's text fields in the order of its text index's fields (the title first). */
  fields(position: number): readonly (string | null)[];
  point(position: number): Point | null;
  /** Per position, the area's own signal for the record, 0 (weakest) to 1; see docs/api.md (Search across areas). */
  readonly signals: Float64Array;
  /** The title's words folded as a query's are, then by {@link looseSpelling}; kept once asked. */
  titleWords(position: number): readonly string[];
}

const made = new WeakMap<LocaleStore, readonly SearchArea[]>();

/** The areas of `store` in `locale`, in {@link SEARCH_AREAS} order; made on first use. */
export function searchAreasOf(store: Store, locale: Locale): readonly SearchArea[] {
  const localeStore = store.locales[locale];
  let areas = made.get(localeStore);
  if (areas === undefined) {
    areas = makeAreas(localeStore, locale, seasonsAt(new Date(store.snapshot.manifest.createdAt)));
    made.set(localeStore, areas);
  }
  return areas;
}

/** The seasons a snapshot's day falls in: the tours' two (winter: November to April) and the attractions' four (meteorological). */
interface Seasons {
  tour: 'summer' | 'winter';
  attraction: 'spring' | 'summer' | 'autumn' | 'winter';
}

function seasonsAt(day: Date): Seasons {
  const month = day.getUTCMonth() + 1;
  const attraction = month <= 2 || month === 12 ? 'winter' : month <= 5 ? 'spring' : month <= 8 ? 'summer' : 'autumn';
  return { tour: month >= 5 && month <= 10 ? 'summer' : 'winter', attraction };
}

function makeAreas(store: LocaleStore, locale: Locale, seasons: Seasons): SearchArea[] {
  const { activities, stations, routes, tours, attractions } = store;
  const activityCount = Math.max(1, activities.records.length);
  const routeNames = routes.records.map((route) => nameRoute(route, store, locale));
  return [
    area('activities', activities.records, activities.text, activities.geo, {
      title: (r) => r.title ?? r.info?.title ?? '',
      fields: (r) => [r.title ?? r.info?.title ?? null],
      point: (r) => pointOf(numberOf(r.lng), numberOf(r.lat)),
      // The area's default order is by ranking score, then popularity: a position is its rank.
      signal: (_, position) => 1 - position / activityCount,
    }),
    area('snowdataStations', stations.records, stations.text, stations.geo, {
      title: (r) => r.name,
      fields: (r) => [r.name],
      point: (r) => pointOf(r.longitude, r.latitude),
      signal: (r) => share(r.ski?.openFacilities, r.info?.totalFacilities),
    }),
    area('snowdataRoutes', routes.records, createTextIndex(routeNames.map((naming) => [naming.title, naming.typeWords])), routes.geo, {
      title: (_, position) => routeNames[position]!.title,
      fields: (_, position) => [routeNames[position]!.title, routeNames[position]!.typeWords],
      point: (r) => pointOf(r.longitude, r.latitude),
      signal: (r) => (r.status === 'OPEN' ? 1 : r.status === 'CLOSED' ? 0 : r.isStationActive ? 0.5 : 0.25),
    }),
    area('tours', tours.records, tours.text, tours.geo, {
      title: (r) => r.name,
      fields: (r) => [r.name, r.abstract],
      point: (r) => pointOf(r.longitude, r.latitude),
      signal: (r) => (r.season === null ? 0.5 : r.season === seasons.tour ? 1 : 0),
    }),
    area('attractions', attractions.records, attractions.text, attractions.geo, {
      title: (r) => r.name,
      fields: (r) => [r.name, r.abstract],
      point: (r) => pointOf(r.longitude, r.latitude),
      signal: (r) => (r.seasons.length === 0 ? 0.5 : r.seasons.includes(seasons.attraction) ? 1 : 0),
    }),
  ];
}

/** How an area's records read, each function given the record and its position. */
interface Reading<R> {
  title(record: R, position: number): string;
  fields(record: R, position: number): (string | null)[];
  point(record: R, position: number): Point | null;
  signal(record: R, position: number): number;
}

function area<R extends object>(name: SearchAreaName, records: readonly R[], text: TextIndex, geo: GeoIndex, reading: Reading<R>): SearchArea {
  const words: (readonly string[] | undefined)[] = new Array(records.length);
  return {
    name,
    records,
    text,
    geo,
    title: (position) => reading.title(records[position]!, position),
    fields: (position) => reading.fields(records[position]!, position),
    point: (position) => reading.point(records[position]!, position),
    // Read for every candidate of every search: worked out once.
    signals: Float64Array.from(records, (record, position) => reading.signal(record, position)),
    titleWords: (position) => (words[position] ??= queryWords(reading.title(records[position]!, position)).map(looseSpelling)),
  };
}

const UMLAUT_SPELLING = /([aou])e/g;

/**
 * A folded word (search/text/words.ts) with ae, oe and ue as a, o and u: the text index finds
 * "Zürich" by "zuerich" as well as "zurich", so a title is compared with a query in this spelling.
 */
export function looseSpelling(word: string): string {
  return word.replace(UMLAUT_SPELLING, '$1');
}

/** open / total, 0 when either is unknown or total is 0. */
function share(open: number | null | undefined, total: number | null | undefined): number {
  return open == null || !total ? 0 : Math.min(1, Math.max(0, open / total));
}

/** A point of two coordinates in degrees, or null when either is unknown. */
function pointOf(lng: number | null, lat: number | null): Point | null {
  return lng === null || lat === null ? null : { lng, lat };
}

function numberOf(text: string | null): number | null {
  if (text === null) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
