/** Query fields over the tours source: tours, tour. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkOneOf, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { envelope } from './envelope.ts';
import { checkRange, facetsOf, rangeSetOf, resolveFacets, selectList, withFacets, type FacetDefinition, type ListQuery } from './listQuery.ts';
import { checkSort } from './sortArgument.ts';
import { DISTANCE, type SortDefinition } from './sorted.ts';
import type { StoreRecords } from '../snapshot/store.ts';
import type { PositionSet } from '../search/positionSet.ts';

type Tour = StoreRecords['tours'];
import { checkUpdatedSince, updatedSinceSet } from './updatedSince.ts';
import { BBOX_MATCHES, lineMatchSet, tourLineResolvers } from './tourLines.ts';

export const ROUTE_TYPES = ['hike', 'mountainbike', 'bicycle', 'snowshoe', 'winterhiking', 'crosscountryskiing', 'sledging', 'skating', 'canoe'] as const;
export const TOUR_SEASONS = ['summer', 'winter'] as const;
export const DIFFICULTIES = ['easy', 'medium', 'difficult'] as const;

/** The values of `ToursSort` (schema.graphql). */
export const TOURS_SORTS: Readonly<Record<string, SortDefinition<Tour>>> = {
  NAME_ASC: { key: (r) => r.name, descending: false },
  NAME_DESC: { key: (r) => r.name, descending: true },
  DISTANCE_ASC: { key: (r) => r.distance, descending: false },
  DISTANCE_DESC: { key: (r) => r.distance, descending: true },
  DURATION_ASC: { key: (r) => r.duration, descending: false },
  DURATION_DESC: { key: (r) => r.duration, descending: true },
  ASCENT_ASC: { key: (r) => r.ascent, descending: false },
  ASCENT_DESC: { key: (r) => r.ascent, descending: true },
  DISTANCE_KM_ASC: DISTANCE,
};

/** The values of `ToursFacetField` (schema.graphql): the filter each counts. */
export const TOURS_FACETS: Readonly<Record<string, FacetDefinition>> = {
  ROUTE_TYPE: { filter: 'routeType', values: ROUTE_TYPES },
  SEASON: { filter: 'season', values: TOUR_SEASONS },
  DIFFICULTY: { filter: 'difficulty', values: DIFFICULTIES },
  IS_ROUNDTRIP: { filter: 'isRoundtrip', values: [true, false] },
  IS_BARRIER_FREE: { filter: 'isBarrierFree', values: [true, false] },
  LANDSCAPE: { filter: 'landscape', values: null },
};

interface ToursArgs {
  q?: string | null;
  routeType?: string | null;
  season?: string | null;
  difficulty?: string | null;
  isRoundtrip?: boolean | null;
  isBarrierFree?: boolean | null;
  landscape?: string | null;
  minDistance?: number | null;
  maxDistance?: number | null;
  minDuration?: number | null;
  maxDuration?: number | null;
  minAscent?: number | null;
  maxAscent?: number | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  bbox?: readonly number[] | null;
  bboxMatch?: string | null;
  sort?: string | null;
  limit?: number | null;
  offset?: number | null;
  locale?: string | null;
  updatedSince?: string | null;
}

/** The arguments of `tours`, checked (see ArgumentReader). */
function readToursArgs(args: ToursArgs) {
  const near = checkNearMe(args);
  return {
    locale: checkLocale(args.locale),
    routeType: checkOneOf('routeType', args.routeType, ROUTE_TYPES),
    season: checkOneOf('season', args.season, TOUR_SEASONS),
    difficulty: checkOneOf('difficulty', args.difficulty, DIFFICULTIES),
    distance: checkRange('minDistance', args.minDistance, 'maxDistance', args.maxDistance),
    duration: checkRange('minDuration', args.minDuration, 'maxDuration', args.maxDuration),
    ascent: checkRange('minAscent', args.minAscent, 'maxAscent', args.maxAscent),
    sort: checkSort(args.sort, TOURS_SORTS, near),
    limit: checkLimit(args.limit, 50, 500),
    offset: checkOffset(args.offset),
    near,
    box: checkBbox(args.bbox),
    bboxMatch: checkOneOf('bboxMatch', args.bboxMatch, BBOX_MATCHES) ?? 'START',
    q: checkQuery(args.q),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

/** The argument readers of the Query fields of this file. */
export const tourArgumentReaders: Record<string, ArgumentReader> = { tours: readToursArgs, tour: readLookupArgs };

export const tourResolvers = {
  Query: {
    tours(_: unknown, args: ToursArgs, context: Context) {
      const { store } = context;
      const startedAt = performance.now();
      const { locale, routeType, season, difficulty, distance, duration, ascent, sort, limit, offset, near, box: bbox, bboxMatch, q, updatedSince } = readToursArgs(args);
      const area = store.locales[locale].tours;
      const { isRoundtrip, isBarrierFree, landscape } = args;
      const sets: PositionSet[] = [];
      for (const set of [
        rangeSetOf(area.records, 'distance', (r) => r.distance, distance.min, distance.max),
        rangeSetOf(area.records, 'duration', (r) => r.duration, duration.min, duration.max),
        rangeSetOf(area.records, 'ascent', (r) => r.ascent, ascent.min, ascent.max),
        updatedSince === null ? null : updatedSinceSet(area, 'lastUpdated', updatedSince),
        // Matched by its line, a tour's start need not lie in the box: the box becomes a set of its own.
        bbox !== null && bboxMatch === 'LINE' ? lineMatchSet(area, store, bbox) : null,
      ]) {
        if (set !== null) sets.push(set);
      }
      const box = bboxMatch === 'LINE' ? null : bbox;
      const query: ListQuery<Tour> = { q, near, box, conditions: { routeType, season, difficulty, isRoundtrip, isBarrierFree, landscape }, sets, sort, locale };
      const selection = selectList(area, query, offset + limit);
      const answer = envelope(context, 'tours', locale, startedAt, selection, limit, offset);
      return withFacets(answer, (fields, maxValues) => facetsOf(area, query, TOURS_FACETS, fields, maxValues));
    },

    tour(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].tours.byId.get(args.id) ?? null;
    },
  },
  ToursResult: { facets: resolveFacets },
  Tour: tourLineResolvers,
};
