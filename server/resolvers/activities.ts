/** Query fields over the activities source: activities, activity, locations, types. */

import { checkLimit, checkLocale, checkNearMe, checkOffset, checkQuery } from './args.ts';
import type { Context } from './context.ts';
import { pageOf } from './envelope.ts';
import { selectRecords } from './select.ts';

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
  limit?: number | null;
  offset?: number | null;
}

/** Maximum of `locations(limit)`: our choice, stated in the README (Choices the API makes). */
export const LOCATIONS_MAX_LIMIT = 1000;

export const activityResolvers = {
  Query: {
    activities(_: unknown, args: ActivitiesArgs, { store }: Context) {
      const locale = checkLocale(args.locale);
      const limit = checkLimit(args.limit, 20, 100);
      const offset = checkOffset(args.offset);
      const near = checkNearMe(args);
      const q = checkQuery(args.q);
      const { typeId, locationId, supplierId, attributeValue } = args;
      const area = store.locales[locale].activities;
      const filter = area.filters.match({ typeId, locationId, supplierId, attributeValue });
      const selection = selectRecords(area, { q, near, filter, end: offset + limit });
      return pageOf(selection, limit, offset);
    },

    activity(_: unknown, args: { id: string; locale?: string | null }, { store }: Context) {
      return store.locales[checkLocale(args.locale)].activities.byId.get(args.id) ?? null;
    },

    locations(_: unknown, args: { locale?: string | null; limit?: number | null }, { store }: Context) {
      const locale = checkLocale(args.locale);
      const limit = checkLimit(args.limit, 200, LOCATIONS_MAX_LIMIT);
      return store.locales[locale].locations.records.slice(0, limit);
    },

    types(_: unknown, args: { locale?: string | null }, { store }: Context) {
      return store.locales[checkLocale(args.locale)].types.records;
    },
  },
};
