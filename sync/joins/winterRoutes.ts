/**
 * The join of the winter routes (snowdata `routes`) with the MySwitzerland winter tours
 * (`tours`): a station's track, trail or run that a tour of the same kind and name starts near
 * takes the tour's id, SwitzerlandMobility number and portal link (and keeps its `stationId`,
 * which its number no longer tells once it is the tour's), and snowshoe tours become
 * snowshoe routes of the station they start near. docs/snowdata-mapping.md, "The join with
 * MySwitzerland tours", says why the match is by name and distance and what stays unverified.
 *
 * A pure step: the CLI runs it after fetching (sync/joins/index.ts), with the tours fetched in
 * this run or those of the current snapshot. It does no I/O and changes none of its inputs.
 */

import { distance } from 'geokdbush';
import { LOCALES, type Locale, type RouteRecord, type StationRecord, type TourRecord } from '../format.ts';
import type { SourceData } from '../source.ts';
import { isStationActive, stationRouteItems } from '../sources/stnet/routes.ts';
import type { StnetStation } from '../sources/stnet/shapes.ts';

/** Farthest a tour may start from the station item it joins (or the station, for items without coordinates), in kilometres. */
export const JOIN_RADIUS_KM = 5;

/** The route type a tour of each MySwitzerland `routeType` joins; snowshoe tours become routes of their own. */
export const TOUR_ROUTE_TYPE: Readonly<Record<string, string>> = {
  crosscountryskiing: 'crosscountry',
  winterhiking: 'winterhiking',
  sledging: 'sledging',
  snowshoe: 'snowshoe',
};

/**
 * A name as compared by the join: accents, case and punctuation dropped, spaces collapsed
 * ("Schlittelweg Grüsch–Danusa" and "schlittelweg grusch danusa" compare equal).
 */
export function normalizeName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Joins the routes of `stations` with `tours`. Returns the routes of each locale: `routes`
 * with the joined ones changed (`id`, `number` where the tour has a SwitzerlandMobility number,
 * `link` in that locale), in the same order, then the snowshoe routes. Without tours the
 * routes come back as they are.
 *
 * Each tour joins at most one item and each item at most one tour: the closest pairs first,
 * ties broken by tour id then route id, so the result does not depend on input order.
 *
 * @param stations the station records of one locale (their `raw` is read)
 * @param routes the routes of each locale, as the snowdata source built them
 * @param tours the tours of each locale; the same tour may differ by locale in name and url
 */
export function joinWinterTours(
  stations: readonly StationRecord[],
  routes: Partial<Record<Locale, readonly RouteRecord[]>>,
  tours: Partial<Record<Locale, readonly TourRecord[]>>,
): Partial<Record<Locale, RouteRecord[]>> {
  const winter = winterTours(tours);
  const items = stations.flatMap((station) => {
    const stationPosition = lngLat(station);
    return stationRouteItems(station.raw as StnetStation).map((item) => ({ ...item, station, at: item.position ?? stationPosition }));
  });

  // Items by type and name, so each tour looks at only the items it could join.
  const byKey = new Map<string, typeof items>();
  for (const item of items) {
    const key = `${item.route.type}|${normalizeName(item.name)}`;
    const same = byKey.get(key);
    if (same) same.push(item);
    else byKey.set(key, [item]);
  }
  const pairs: { tour: WinterTour; routeId: string; km: number }[] = [];
  for (const tour of winter) {
    if (tour.type === 'snowshoe') continue;
    for (const name of tour.names) {
      for (const item of byKey.get(`${tour.type}|${name}`) ?? []) {
        if (item.at === null) continue;
        const km = distance(tour.start[0], tour.start[1], item.at[0], item.at[1]);
        if (km <= JOIN_RADIUS_KM) pairs.push({ tour, routeId: item.route.id, km });
      }
    }
  }
  pairs.sort((a, b) => a.km - b.km || compare(a.tour.id, b.tour.id) || compare(a.routeId, b.routeId));
  const joined = new Map<string, WinterTour>();
  const usedTours = new Set<string>();
  for (const { tour, routeId } of pairs) {
    if (joined.has(routeId) || usedTours.has(tour.id)) continue;
    joined.set(routeId, tour);
    usedTours.add(tour.id);
  }

  const snowshoe = snowshoeRoutes(stations, items, winter);
  const out: Partial<Record<Locale, RouteRecord[]>> = {};
  for (const locale of LOCALES) {
    const list = routes[locale];
    if (!list) continue;
    const changed = list.map((route) => {
      const tour = joined.get(route.id);
      return tour ? { ...route, id: tour.id, number: tour.number ?? route.number, link: tour.link(locale) } : route;
    });
    out[locale] = [...changed, ...snowshoe.map(({ route, tour }) => ({ ...route, link: tour.link(locale) }))];
  }
  return out;
}

/**
 * Each snowshoe tour that starts within {@link JOIN_RADIUS_KM} of a station becomes a route of
 * the nearest one (ties: the lower station id). The service cannot tell snowshoe trails from
 * winter hiking trails, so the status is that of the station's hiking trail of the same name
 * when it has one, and NOINFO otherwise.
 */
function snowshoeRoutes(
  stations: readonly StationRecord[],
  items: readonly { route: RouteRecord; name: string; station: StationRecord }[],
  winter: readonly WinterTour[],
): { route: RouteRecord; tour: WinterTour }[] {
  const located = stations.flatMap((station) => {
    const at = lngLat(station);
    return at ? [{ station, at }] : [];
  });
  const found: { tour: WinterTour; station: StationRecord }[] = [];
  for (const tour of winter) {
    if (tour.type !== 'snowshoe') continue;
    let best: { station: StationRecord; km: number } | null = null;
    for (const { station, at } of located) {
      const km = distance(tour.start[0], tour.start[1], at[0], at[1]);
      if (km <= JOIN_RADIUS_KM && (best === null || km < best.km || (km === best.km && station.id < best.station.id))) best = { station, km };
    }
    if (best) found.push({ tour, station: best.station });
  }
  found.sort((a, b) => a.station.id - b.station.id || compare(a.tour.id, b.tour.id));
  // A station's snowshoe routes without a SwitzerlandMobility number are numbered S1, S2… in that order.
  const unnumbered = new Map<number, number>();
  return found.map(({ tour, station }) => {
    let number = tour.number;
    if (number === null) {
      const n = (unnumbered.get(station.id) ?? 0) + 1;
      unnumbered.set(station.id, n);
      number = `${station.id}-S${n}`;
    }
    const trail = items.find((item) => item.station === station && item.route.type === 'winterhiking' && tour.names.includes(normalizeName(item.name)));
    const route: RouteRecord = {
      id: tour.id,
      type: 'snowshoe',
      number,
      status: trail?.route.status ?? 'NOINFO',
      lastUpdated: station.lastUpdate,
      link: null,
      isStationActive: isStationActive(station.raw as StnetStation),
      stationId: station.id,
    };
    return { route, tour };
  });
}

interface WinterTour {
  id: string;
  /** The route type it joins. */
  type: string;
  /** Its names in every locale, normalised. */
  names: string[];
  start: [number, number];
  /** The SwitzerlandMobility route number, as text. */
  number: string | null;
  /** The portal URL in a locale, else in the first locale that has one. */
  link(locale: Locale): string | null;
}

/** The winter tours with a start point, each once with its names and links of every locale, by id. */
function winterTours(tours: Partial<Record<Locale, readonly TourRecord[]>>): WinterTour[] {
  const byId = new Map<string, { first: TourRecord; names: Set<string>; urls: Partial<Record<Locale, string>> }>();
  for (const locale of LOCALES) {
    for (const tour of tours[locale] ?? []) {
      if (tour.routeType === null || !Object.hasOwn(TOUR_ROUTE_TYPE, tour.routeType)) continue;
      const entry = byId.get(tour.id) ?? { first: tour, names: new Set<string>(), urls: {} };
      byId.set(tour.id, entry);
      entry.names.add(normalizeName(tour.name));
      if (tour.url) entry.urls[locale] = tour.url;
    }
  }
  const out: WinterTour[] = [];
  for (const [id, { first, names, urls }] of byId) {
    const start = lngLat(first);
    if (start === null) continue;
    const fallback = LOCALES.map((l) => urls[l]).find((url) => url !== undefined) ?? null;
    out.push({
      id,
      type: TOUR_ROUTE_TYPE[first.routeType!]!,
      names: [...names],
      start,
      number: first.switzerlandMobilityRoute === null ? null : String(first.switzerlandMobilityRoute),
      link: (locale) => urls[locale] ?? fallback,
    });
  }
  return out;
}

function lngLat(record: { latitude: number | null; longitude: number | null }): [number, number] | null {
  return record.latitude === null || record.longitude === null ? null : [record.longitude, record.latitude];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The join as a step of the sync: a copy of the snowdata source's data whose routes, in each
 * locale, are joined with the tours. Neither input is changed. Without stations or routes the
 * data comes back as it is; without tours the routes are unchanged.
 *
 * @param tours the tours of each locale: fetched in this run, or those of the current snapshot
 */
export function joinWinterRoutes(snowdata: SourceData, tours: Partial<Record<Locale, readonly TourRecord[]>>): SourceData {
  const routes: Partial<Record<Locale, RouteRecord[]>> = {};
  let stations: StationRecord[] | null = null;
  for (const locale of LOCALES) {
    const areas = snowdata.locales[locale];
    if (areas?.routes) routes[locale] = areas.routes.records;
    if (stations === null && areas?.stations) stations = areas.stations.records;
  }
  if (stations === null || Object.keys(routes).length === 0) return snowdata;
  const joined = joinWinterTours(stations, routes, tours);
  const locales: SourceData['locales'] = { ...snowdata.locales };
  for (const [locale, list] of Object.entries(joined) as [Locale, RouteRecord[]][]) {
    const areas = snowdata.locales[locale]!;
    locales[locale] = { ...areas, routes: { ...areas.routes!, records: list } };
  }
  return { ...snowdata, locales };
}
