/** Query fields over the activities source: activities, activity, locations, types. */

import { activityIndexOf } from '../snapshot/activityIndex.ts';
import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkQuery, readLookupArgs } from './args.ts';
import { type ActivitiesSort, activityFilterSets, activityRangeSets, checkActivityFilters, checkActivitiesSort, sortedActivities } from './activityFilters.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { meta, pageOf } from './envelope.ts';
import { facetsOf, resolveFacets, withFacets, type FacetDefinition } from './listQuery.ts';
import { selectRecords } from './select.ts';
import { checkUpdatedSince, updatedSinceSet } from './updatedSince.ts';

interface ActivitiesArgs {
  q?: string | null;
  locale?: string | null;
  typeId?: string | null;
  locationId?: string | null;
  supplierId?: string | null;
  attributeValue?: string | null;
  nearLat?: number | null;
  nearLng?: number | null;
  radiusKm?: number | null;
  bbox?: readonly number[] | null;
  limit?: number | null;
  offset?: number | null;
  minPrice?: number | null;
  maxPrice?: number | null;
  availableFrom?: string | null;
  availableTo?: string | null;
  sort?: ActivitiesSort | null;
  updatedSince?: string | null;
}

/**
 * The values of `ActivitiesFacetField` (schema.graphql): each counts a filter of the area's filter
 * index, over the list's other arguments (facetsOf takes them as the list query's conditions).
 */
export const ACTIVITIES_FACETS: Readonly<Record<string, FacetDefinition>> = {
  TYPE_ID: { filter: 'typeId', values: null },
  LOCATION_ID: { filter: 'locationId', values: null },
  SUPPLIER_ID: { filter: 'supplierId', values: null },
  ATTRIBUTE_VALUE: { filter: 'attributeValue', values: null },
};

/** Maximum of `locations(limit)`: our choice, stated in the README (Choices the API makes). */
export const LOCATIONS_MAX_LIMIT = 1000;

/** The arguments of `activities`, checked (see ArgumentReader). */
function readActivitiesArgs(args: ActivitiesArgs) {
  const near = checkNearMe(args);
  return {
    locale: checkLocale(args.locale),
    limit: checkLimit(args.limit, 20, 100),
    offset: checkOffset(args.offset),
    near,
    box: checkBbox(args.bbox),
    q: checkQuery(args.q),
    ranges: checkActivityFilters(args),
    sort: checkActivitiesSort(args.sort, near),
    updatedSince: checkUpdatedSince(args.updatedSince),
  };
}

/** The arguments of `locations`, checked (see ArgumentReader). */
function readLocationsArgs(args: { locale?: string | null; limit?: number | null }) {
  return { locale: checkLocale(args.locale), limit: checkLimit(args.limit, 200, LOCATIONS_MAX_LIMIT) };
}

/** The argument readers of the Query fields of this file. */
export const activityArgumentReaders: Record<string, ArgumentReader> = {
  activities: readActivitiesArgs,
  activity: readLookupArgs,
  locations: readLocationsArgs,
  types: readLookupArgs,
};

export const activityResolvers = {
  Query: {
    activities(_: unknown, args: ActivitiesArgs, context: Context) {
      const { store, today } = context;
      const startedAt = performance.now();
      const { locale, limit, offset, near, box, q, ranges, sort, updatedSince } = readActivitiesArgs(args);
      const area = store.locales[locale].activities;
      const index = activityIndexOf(area.records);
      const served = index.on(today);
      const { typeId, locationId, supplierId, attributeValue } = args;
      const conditions = { typeId, locationId, supplierId, attributeValue };
      const rangeSets = activityRangeSets(index, ranges, today);
      if (updatedSince !== null) rangeSets.push(updatedSinceSet(area, 'updatedAt', updatedSince));
      const filter = activityFilterSets(area, conditions, rangeSets);
      const end = offset + limit;
      const selection = sort === null ? selectRecords(area, { q, near, filter, box, end, records: served.records }) : sortedActivities(area, index, served, { q, near, filter, box, end, sort });
      const query = { q, near, box, conditions, sets: rangeSets, sort: null, locale };
      const page = pageOf(selection, limit, offset);
      return withFacets({ data: page.data, total: page.total, hasMore: page.hasMore, meta: meta(context, 'activities', locale, startedAt) }, (fields, maxValues) => facetsOf(area, query, ACTIVITIES_FACETS, fields, maxValues));
    },

    activity(_: unknown, args: { id: string; locale?: string | null }, { store, today }: Context) {
      const area = store.locales[readLookupArgs(args)].activities;
      return activityIndexOf(area.records).on(today).byId.get(args.id) ?? null;
    },

    locations(_: unknown, args: { locale?: string | null; limit?: number | null }, { store }: Context) {
      const { locale, limit } = readLocationsArgs(args);
      return store.locales[locale].locations.records.slice(0, limit);
    },

    types(_: unknown, args: { locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].types.records;
    },
  },
  ActivitiesResult: { facets: resolveFacets },
};
