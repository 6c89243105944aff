/** Query fields over the snowdata source: snowdataStations, snowdataStation, snowdataRoutes. */

import { checkLimit, checkLocale, checkOffset, checkOneOf, checkQuery } from './args.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { selectRecords } from './select.ts';

export const WINTER_ROUTE_TYPES = ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'] as const;
export const ROUTE_STATUSES = ['OPEN', 'CLOSED', 'NOINFO'] as const;
/** Maximum of `snowdataRoutes(limit)`: our choice, stated in the README (Choices the API makes). */
export const ROUTES_MAX_LIMIT = 500;

export const snowdataResolvers = {
  Query: {
    snowdataStations(_: unknown, args: { locale?: string | null; q?: string | null; limit?: number | null; offset?: number | null }, { store }: Context) {
      const startedAt = performance.now();
      const locale = checkLocale(args.locale);
      const limit = checkLimit(args.limit, 50, 500);
      const offset = checkOffset(args.offset);
      const selection = selectRecords(store.locales[locale].stations, { q: checkQuery(args.q), near: null, filter: null, end: offset + limit });
      return envelope(store, 'snowdata', locale, startedAt, selection, limit, offset);
    },

    snowdataStation(_: unknown, args: { id: number; locale?: string | null }, { store }: Context) {
      return store.locales[checkLocale(args.locale)].stations.byId.get(args.id) ?? null;
    },

    snowdataRoutes(
      _: unknown,
      args: { type?: string | null; status?: string | null; locale?: string | null; limit?: number | null; offset?: number | null },
      { store }: Context,
    ) {
      const startedAt = performance.now();
      const locale = checkLocale(args.locale);
      const type = checkOneOf('type', args.type, WINTER_ROUTE_TYPES);
      const status = checkOneOf('status', args.status, ROUTE_STATUSES);
      const limit = checkLimit(args.limit, 50, ROUTES_MAX_LIMIT);
      const offset = checkOffset(args.offset);
      const area = store.locales[locale].routes;
      const selection = selectRecords(area, { q: null, near: null, filter: area.filters.match({ type, status }), end: offset + limit });
      return envelope(store, 'snowdata', locale, startedAt, selection, limit, offset);
    },
  },
};
