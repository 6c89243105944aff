/** Query fields over the attractions source: attractions, attraction. */

import { checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery } from './args.ts';
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
  limit?: number | null;
  offset?: number | null;
  locale?: string | null;
}

export const attractionResolvers = {
  Query: {
    attractions(_: unknown, args: AttractionsArgs, { store }: Context) {
      const startedAt = performance.now();
      const locale = checkLocale(args.locale);
      const season = checkOneOf('season', args.season, ATTRACTION_SEASONS);
      const neededTime = checkOneOf('neededTime', args.neededTime, NEEDED_TIMES);
      const childrenAge = checkOneOf('childrenAge', args.childrenAge, CHILDREN_AGES);
      const limit = checkLimit(args.limit, 50, 500);
      const offset = checkOffset(args.offset);
      const near = checkNearMe(args);
      const q = checkQuery(args.q);
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
      const selection = selectRecords(area, { q, near, filter, end: offset + limit });
      return envelope(store, 'attractions', locale, startedAt, selection, limit, offset);
    },

    attraction(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[checkLocale(args.locale)].attractions.byId.get(args.id) ?? null;
    },
  },
};
