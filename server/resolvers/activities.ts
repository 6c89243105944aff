/** Query fields over the activities source: activities, activity, locations, types. */

import { type ArgumentReader, checkLimit, checkLocale, checkNearMe, checkOffset, checkQuery, readLookupArgs } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { meta, pageOf } from './envelope.ts';
import { selectRecords } from './select.ts';
import { checkUpdatedSince, withUpdatedSince } from './updatedSince.ts';

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
  updatedSince?: string | null;
}

/** Maximum of `locations(limit)`: our choice, stated in the README (Choices the API makes). */
export const LOCATIONS_MAX_LIMIT = 1000;

/** The arguments of `activities`, checked (see ArgumentReader). */
function readActivitiesArgs(args: ActivitiesArgs) {
  return { locale: checkLocale(args.locale), limit: checkLimit(args.limit, 20, 100), offset: checkOffset(args.offset), near: checkNearMe(args), box: checkBbox(args.bbox), q: checkQuery(args.q), updatedSince: checkUpdatedSince(args.updatedSince) };
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
    activities(_: unknown, args: ActivitiesArgs, { store }: Context) {
      const startedAt = performance.now();
      const { locale, limit, offset, near, box, q, updatedSince } = readActivitiesArgs(args);
      const { typeId, locationId, supplierId, attributeValue } = args;
      const area = store.locales[locale].activities;
      const filter = withUpdatedSince(area.filters.match({ typeId, locationId, supplierId, attributeValue }), area, 'updatedAt', updatedSince);
      const selection = selectRecords(area, { q, near, filter, box, end: offset + limit });
      const page = pageOf(selection, limit, offset);
      return { data: page.data, total: page.total, hasMore: page.hasMore, meta: meta(store, 'activities', locale, startedAt) };
    },

    activity(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].activities.byId.get(args.id) ?? null;
    },

    locations(_: unknown, args: { locale?: string | null; limit?: number | null }, { store }: Context) {
      const { locale, limit } = readLocationsArgs(args);
      return store.locales[locale].locations.records.slice(0, limit);
    },

    types(_: unknown, args: { locale?: string | null }, { store }: Context) {
      return store.locales[readLookupArgs(args)].types.records;
    },
  },
};
