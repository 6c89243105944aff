/** Query fields over the tours source: tours, tour. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { selectRecords } from './select.ts';
import { checkUpdatedSince, withUpdatedSince } from './updatedSince.ts';

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
  bbox?: readonly number[] | null;
  limit?: number | null;
  offset?: number | null;
  locale?: string | null;
  updatedSince?: string | null;
}

/** The arguments of `tours`, checked (see ArgumentReader). */
function readToursArgs(args: ToursArgs) {
  return {
    locale: checkLocale(args.locale),
    routeType: checkOneOf('routeType', args.routeType, ROUTE_TYPES),
    season: checkOneOf('season', args.season, TOUR_SEASONS),
    difficulty: checkOneOf('difficulty', args.difficulty, DIFFICULTIES),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    near: checkNearMe(args),
    box: checkBbox(args.bbox),
    q: checkQuery(args.q),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

/** The argument readers of the Query fields of this file. */
export const tourArgumentReaders: Record<string, ArgumentReader> = { tours: readToursArgs, tour: readLookupArgs };

export const tourResolvers = {
  Query: {
    tours(_: unknown, args: ToursArgs, { store }: Context) {
      const startedAt = performance.now();
      const { locale, routeType, season, difficulty, limit, offset, near, box, q, updatedSince } = readToursArgs(args);
      const area = store.locales[locale].tours;
      const filter = withUpdatedSince(area.filters.match({ routeType, season, difficulty }), area, 'lastUpdated', updatedSince);
      const selection = selectRecords(area, { q, near, filter, box, end: offset + limit });
      return envelope(store, 'tours', locale, startedAt, selection, limit, offset);
    },

    tour(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].tours.byId.get(args.id) ?? null;
    },
  },
};
