/** Query fields over the attractions source: attractions, attraction. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { facetsOf, resolveFacets, selectList, withFacets, type FacetDefinition, type ListQuery } from './listQuery.ts';
import { checkSort } from './sortArgument.ts';
import { DISTANCE, type SortDefinition } from './sorted.ts';
import type { StoreRecords } from '../snapshot/store.ts';

type Attraction = StoreRecords['attractions'];

// The closed filter values are those the real MySwitzerland facets hold (seasons, neededtime,
// childrenage); a filter must accept every value a record can carry, or that record is unreachable.
export const ATTRACTION_SEASONS = ['summer', 'winter', 'spring', 'autumn'] as const;
export const NEEDED_TIMES = ['lessthan1hour', 'between12hours', '2to4hourshalfday', '4to8hoursfullday', 'severaldays', '2days', '3days', '4days', '7days'] as const;
export const CHILDREN_AGES = ['0to5years', '6to9years', '10to13years', '14plus'] as const;

/** The values of `AttractionsSort` (schema.graphql). */
export const ATTRACTIONS_SORTS: Readonly<Record<string, SortDefinition<Attraction>>> = {
  NAME_ASC: { key: (r) => r.name, descending: false },
  NAME_DESC: { key: (r) => r.name, descending: true },
  DISTANCE_KM_ASC: DISTANCE,
};

const BOOLEANS = [true, false] as const;

/** The values of `AttractionsFacetField` (schema.graphql). */
export const ATTRACTIONS_FACETS: Readonly<Record<string, FacetDefinition>> = {
  SEASON: { filter: 'season', values: ATTRACTION_SEASONS },
  NEEDED_TIME: { filter: 'neededTime', values: NEEDED_TIMES },
  CHILDREN_AGE: { filter: 'childrenAge', values: CHILDREN_AGES },
  SPORT_TYPE: { filter: 'sportType', values: null },
  EXPERIENCE_TYPE: { filter: 'experienceType', values: null },
  SUITABLE_FOR: { filter: 'suitableFor', values: null },
  LOCALITY: { filter: 'locality', values: null },
  NATURE_TYPE: { filter: 'natureType', values: null },
  TOURIST_TYPE: { filter: 'touristType', values: null },
  IS_OUTDOOR: { filter: 'isOutdoor', values: BOOLEANS },
  IS_INDOOR: { filter: 'isIndoor', values: BOOLEANS },
  IS_WHEELCHAIR_ACCESSIBLE: { filter: 'isWheelchairAccessible', values: BOOLEANS },
  IS_ACCESSIBLE_FOR_FREE: { filter: 'isAccessibleForFree', values: BOOLEANS },
};

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
  suitableFor?: string | null;
  locality?: string | null;
  natureType?: string | null;
  touristType?: string | null;
  sort?: string | null;
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
  const near = checkNearMe(args);
  return {
    locale: checkLocale(args.locale),
    season: checkOneOf('season', args.season, ATTRACTION_SEASONS),
    neededTime: checkOneOf('neededTime', args.neededTime, NEEDED_TIMES),
    childrenAge: checkOneOf('childrenAge', args.childrenAge, CHILDREN_AGES),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    near,
    sort: checkSort(args.sort, ATTRACTIONS_SORTS, near),
    box: checkBbox(args.bbox),
    q: checkQuery(args.q),
  };
}

/** The argument readers of the Query fields of this file. */
export const attractionArgumentReaders: Record<string, ArgumentReader> = { attractions: readAttractionsArgs, attraction: readLookupArgs };

export const attractionResolvers = {
  Query: {
    attractions(_: unknown, args: AttractionsArgs, context: Context) {
      const { store } = context;
      const startedAt = performance.now();
      const { locale, season, neededTime, childrenAge, limit, offset, near, sort, box, q } = readAttractionsArgs(args);
      // sportType, experienceType, suitableFor, locality, natureType and touristType are open
      // vocabularies upstream: an unknown value simply matches nothing.
      const { sportType, experienceType, isOutdoor, isIndoor, isWheelchairAccessible, isAccessibleForFree, suitableFor, locality, natureType, touristType } = args;

      const area = store.locales[locale].attractions;
      const conditions = {
        season,
        sportType,
        experienceType,
        neededTime,
        childrenAge,
        isOutdoor,
        isIndoor,
        isWheelchairAccessible,
        isAccessibleForFree,
        suitableFor,
        locality,
        natureType,
        touristType,
      };
      const query: ListQuery<Attraction> = { q, near, box, conditions, sets: [], sort, locale };
      const selection = selectList(area, query, offset + limit);
      const answer = envelope(context, 'attractions', locale, startedAt, selection, limit, offset);
      return withFacets(answer, (fields, maxValues) => facetsOf(area, query, ATTRACTIONS_FACETS, fields, maxValues));
    },

    attraction(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].attractions.byId.get(args.id) ?? null;
    },
  },
  AttractionsResult: { facets: resolveFacets },
};
