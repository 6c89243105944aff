/** Query fields over the snowdata source: snowdataStations, snowdataStation, snowdataRoutes. */

import { type ArgumentReader, checkLimit, checkLocale, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { selectRecords } from './select.ts';
import { checkUpdatedSince, withUpdatedSince } from './updatedSince.ts';

export const WINTER_ROUTE_TYPES = ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'] as const;
export const ROUTE_STATUSES = ['OPEN', 'CLOSED', 'NOINFO'] as const;
/** Maximum of `snowdataRoutes(limit)`: our choice, stated in the README (Choices the API makes). */
export const ROUTES_MAX_LIMIT = 500;

interface StationsArgs {
  locale?: string | null;
  q?: string | null;
  bbox?: readonly number[] | null;
  limit?: number | null;
  offset?: number | null;
  updatedSince?: string | null;
}

/** The arguments of `snowdataStations`, checked (see ArgumentReader). */
function readStationsArgs(args: StationsArgs) {
  return {
    locale: checkLocale(args.locale),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    box: checkBbox(args.bbox),
    q: checkQuery(args.q),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

interface RoutesArgs {
  type?: string | null;
  status?: string | null;
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
    snowdataStations(_: unknown, args: StationsArgs, { store }: Context) {
      const startedAt = performance.now();
      const { locale, limit, offset, box, q, updatedSince } = readStationsArgs(args);
      const area = store.locales[locale].stations;
      const selection = selectRecords(area, { q, near: null, filter: withUpdatedSince(null, area, 'lastUpdate', updatedSince), box, end: offset + limit });
      return envelope(store, 'snowdata', locale, startedAt, selection, limit, offset);
    },

    snowdataStation(_: unknown, args: { id: number; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].stations.byId.get(args.id) ?? null;
    },

    snowdataRoutes(_: unknown, args: RoutesArgs, { store }: Context) {
      const startedAt = performance.now();
      const { locale, type, status, limit, offset, box, updatedSince } = readRoutesArgs(args);
      const area = store.locales[locale].routes;
      const filter = withUpdatedSince(area.filters.match({ type, status }), area, 'lastUpdated', updatedSince);
      const selection = selectRecords(area, { q: null, near: null, filter, box, end: offset + limit });
      return envelope(store, 'snowdata', locale, startedAt, selection, limit, offset);
    },
  },
};
