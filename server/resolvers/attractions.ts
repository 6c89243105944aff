/** Query fields over the attractions source: attractions, attraction. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { selectRecords } from './select.ts';

// The closed filter values are those the real MySwitzerland facets hold (seasons, neededtime,
// childrenage); a filter must accept every value a record can carry, or that record is unreachable.
export const ATTRACTION_SEASONS = ['summer', 'winter', 'spring', 'autumn'] as const;
export const NEEDED_TIMES = ['lessthan1hour', 'between12hours', '2to4hourshalfday', '4to8hoursfullday', 'severaldays', '2days', '3days', '4days', '7days'] as const;
export const CHILDREN_AGES = ['0to5years', '6to9years', '10to13years', '14plus'] as const;

interface AttractionsArgs {
  q?: string | null;
  season?: string | null;
  sportType?: string | null;
  experienceType?: string | null;
  neededTime?: string | null;
  childrenAge?: string | null;
  isOutdoor?: boolean | null;
  isIndoor?: boolean | null;
  isWheelchairAccessible?: boolean | null;
  isAccessibleForFree?: boolean | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  bbox?: readonly number[] | null;
  limit?: number | null;
  offset?: number | null;
  locale?: string | null;
}

/** The arguments of `attractions` that are checked (see ArgumentReader). */
function readAttractionsArgs(args: AttractionsArgs) {
  return {
    locale: checkLocale(args.locale),
    season: checkOneOf('season', args.season, ATTRACTION_SEASONS),
    neededTime: checkOneOf('neededTime', args.neededTime, NEEDED_TIMES),
    childrenAge: checkOneOf('childrenAge', args.childrenAge, CHILDREN_AGES),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    near: checkNearMe(args),
    box: checkBbox(args.bbox),
    q: checkQuery(args.q),
  };
}

/** The argument readers of the Query fields of this file. */
export const attractionArgumentReaders: Record<string, ArgumentReader> = { attractions: readAttractionsArgs, attraction: readLookupArgs };

export const attractionResolvers = {
  Query: {
    attractions(_: unknown, args: AttractionsArgs, { store }: Context) {
      const startedAt = performance.now();
      const { locale, season, neededTime, childrenAge, limit, offset, near, box, q } = readAttractionsArgs(args);
      // sportType and experienceType are open vocabularies upstream: an unknown value simply matches nothing.
      const { sportType, experienceType, isOutdoor, isIndoor, isWheelchairAccessible, isAccessibleForFree } = args;

      const area = store.locales[locale].attractions;
      const filter = area.filters.match({
        season,
        sportType,
        experienceType,
        neededTime,
        childrenAge,
        isOutdoor,
        isIndoor,
        isWheelchairAccessible,
        isAccessibleForFree,
      });
      const selection = selectRecords(area, { q, near, filter, box, end: offset + limit });
      return envelope(store, 'attractions', locale, startedAt, selection, limit, offset);
    },

    attraction(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].attractions.byId.get(args.id) ?? null;
    },
  },
};
