/** Query fields over the snowdata source: snowdataStations, snowdataStation, snowdataRoutes. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { facetsOf, resolveFacets, selectList, withFacets, type FacetDefinition, type ListQuery } from './listQuery.ts';
import { checkSort } from './sortArgument.ts';
import { DISTANCE, type SortDefinition } from './sorted.ts';
import { searchAreasOf } from './searchHits/searchAreas.ts';
import type { StoreRecords } from '../snapshot/store.ts';

type Station = StoreRecords['stations'];
type Route = StoreRecords['routes'];
import { checkUpdatedSince, updatedSinceSet } from './updatedSince.ts';

export const WINTER_ROUTE_TYPES = ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'] as const;
export const ROUTE_STATUSES = ['OPEN', 'CLOSED', 'NOINFO'] as const;
/** Maximum of `snowdataRoutes(limit)`: our choice, stated in the README (Choices the API makes). */
export const ROUTES_MAX_LIMIT = 500;

/** The share of a station's lifts that run; null when either count is unknown or it has no lifts. */
function liftsOpenShare(station: Station): number | null {
  const open = station.ski?.openFacilities;
  const total = station.info?.totalFacilities;
  return open === null || open === undefined || !total ? null : open / total;
}

/** The time of a station's last update, in ms; null when missing or unreadable. */
function lastUpdateMs(station: Station): number | null {
  if (station.lastUpdate === null) return null;
  const ms = Date.parse(station.lastUpdate);
  return Number.isNaN(ms) ? null : ms;
}

/** The values of `SnowdataStationsSort` (schema.graphql). */
export const STATIONS_SORTS: Readonly<Record<string, SortDefinition<Station>>> = {
  NAME_ASC: { key: (r) => r.name, descending: false },
  NAME_DESC: { key: (r) => r.name, descending: true },
  FRESH_SNOW_DESC: { key: (r) => r.snow?.freshSnow, descending: true },
  FRESH_SNOW_ASC: { key: (r) => r.snow?.freshSnow, descending: false },
  PISTE_DEPTH_DESC: { key: (r) => r.snow?.depthPiste, descending: true },
  PISTE_DEPTH_ASC: { key: (r) => r.snow?.depthPiste, descending: false },
  LIFTS_OPEN_SHARE_DESC: { key: liftsOpenShare, descending: true },
  LIFTS_OPEN_SHARE_ASC: { key: liftsOpenShare, descending: false },
  LAST_UPDATE_DESC: { key: lastUpdateMs, descending: true },
  LAST_UPDATE_ASC: { key: lastUpdateMs, descending: false },
  DISTANCE_KM_ASC: DISTANCE,
};

/** The values of `SnowdataStationsFacetField` (schema.graphql). */
export const STATIONS_FACETS: Readonly<Record<string, FacetDefinition>> = {
  IS_OPEN: { filter: 'isOpen', values: [true, false] },
};

/** The values of `SnowdataRoutesFacetField` (schema.graphql). */
export const ROUTES_FACETS: Readonly<Record<string, FacetDefinition>> = {
  TYPE: { filter: 'type', values: WINTER_ROUTE_TYPES },
  STATUS: { filter: 'status', values: ROUTE_STATUSES },
  STATION_ID: { filter: 'stationId', values: null },
};

interface StationsArgs {
  locale?: string | null;
  q?: string | null;
  bbox?: readonly number[] | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  isOpen?: boolean | null;
  sort?: string | null;
  limit?: number | null;
  offset?: number | null;
  updatedSince?: string | null;
}

/** The arguments of `snowdataStations`, checked (see ArgumentReader). */
function readStationsArgs(args: StationsArgs) {
  const near = checkNearMe(args);
  return {
    locale: checkLocale(args.locale),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    box: checkBbox(args.bbox),
    near,
    sort: checkSort(args.sort, STATIONS_SORTS, near),
    q: checkQuery(args.q),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

interface RoutesArgs {
  type?: string | null;
  status?: string | null;
  stationId?: number | null;
  q?: string | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  bbox?: readonly number[] | null;
  locale?: string | null;
  limit?: number | null;
  offset?: number | null;
  updatedSince?: string | null;
}

/** The arguments of `snowdataRoutes`, checked (see ArgumentReader). */
function readRoutesArgs(args: RoutesArgs) {
  return {
    locale: checkLocale(args.locale),
    type: checkOneOf('type', args.type, WINTER_ROUTE_TYPES),
    status: checkOneOf('status', args.status, ROUTE_STATUSES),
    limit: checkLimit(args.limit, 50, ROUTES_MAX_LIMIT),
    offset: checkOffset(args.offset),
    box: checkBbox(args.bbox),
    near: checkNearMe(args),
    q: checkQuery(args.q),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

/** The argument readers of the Query fields of this file. */
export const snowdataArgumentReaders: Record<string, ArgumentReader> = {
  snowdataStations: readStationsArgs,
  snowdataStation: readLookupArgs,
  snowdataRoutes: readRoutesArgs,
};

export const snowdataResolvers = {
  Query: {
    snowdataStations(_: unknown, args: StationsArgs, context: Context) {
      const { store } = context;
      const startedAt = performance.now();
      const { locale, limit, offset, box, near, sort, q, updatedSince } = readStationsArgs(args);
      const area = store.locales[locale].stations;
      const query: ListQuery<Station> = { q, near, box, conditions: { isOpen: args.isOpen }, sets: updatedSince === null ? [] : [updatedSinceSet(area, 'lastUpdate', updatedSince)], sort, locale };
      const selection = selectList(area, query, offset + limit);
      const answer = envelope(context, 'snowdata', locale, startedAt, selection, limit, offset);
      return withFacets(answer, (fields, maxValues) => facetsOf(area, query, STATIONS_FACETS, fields, maxValues));
    },

    snowdataStation(_: unknown, args: { id: number; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].stations.byId.get(args.id) ?? null;
    },

    snowdataRoutes(_: unknown, args: RoutesArgs, context: Context) {
      const { store } = context;
      const startedAt = performance.now();
      const { locale, type, status, limit, offset, box, near, q, updatedSince } = readRoutesArgs(args);
      const stored = store.locales[locale].routes;
      // The area's own text index holds the routes' numbers; `q` finds them by name as `search`
      // does, from the index search builds of their names (same positions, same records).
      const area = q === null ? stored : { ...stored, text: searchAreasOf(store, locale).find((a) => a.name === 'snowdataRoutes')!.text };
      const stationId = args.stationId === null || args.stationId === undefined ? null : String(args.stationId);
      const query: ListQuery<Route> = { q, near, box, conditions: { type, status, stationId }, sets: updatedSince === null ? [] : [updatedSinceSet(stored, 'lastUpdated', updatedSince)], sort: null, locale };
      const selection = selectList(area, query, offset + limit);
      const answer = envelope(context, 'snowdata', locale, startedAt, selection, limit, offset);
      return withFacets(answer, (fields, maxValues) => facetsOf(area, query, ROUTES_FACETS, fields, maxValues));
    },
  },
  SnowdataResult: { facets: resolveFacets },
  SnowdataRoutesResult: { facets: resolveFacets },
};
