/** Query fields over the tours source: tours, tour. */

import { checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery } from './args.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { selectRecords } from './select.ts';

export const ROUTE_TYPES = ['hike', 'mountainbike', 'bicycle', 'snowshoe', 'winterhiking', 'crosscountryskiing', 'sledging', 'skating', 'canoe'] as const;
export const TOUR_SEASONS = ['summer', 'winter'] as const;
export const DIFFICULTIES = ['easy', 'medium', 'difficult'] as const;

interface ToursArgs {
  q?: string | null;
  routeType?: string | null;
  season?: string | null;
  difficulty?: string | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  limit?: number | null;
  offset?: number | null;
  locale?: string | null;
}

export const tourResolvers = {
  Query: {
    tours(_: unknown, args: ToursArgs, { store }: Context) {
      const startedAt = performance.now();
      const locale = checkLocale(args.locale);
      const routeType = checkOneOf('routeType', args.routeType, ROUTE_TYPES);
      const season = checkOneOf('season', args.season, TOUR_SEASONS);
      const difficulty = checkOneOf('difficulty', args.difficulty, DIFFICULTIES);
      const limit = checkLimit(args.limit, 50, 500);
      const offset = checkOffset(args.offset);
      const near = checkNearMe(args);
      const q = checkQuery(args.q);
      const area = store.locales[locale].tours;
      const filter = area.filters.match({ routeType, season, difficulty });
      const selection = selectRecords(area, { q, near, filter, end: offset + limit });
      return envelope(store, 'tours', locale, startedAt, selection, limit, offset);
    },

    tour(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[checkLocale(args.locale)].tours.byId.get(args.id) ?? null;
    },
  },
};
