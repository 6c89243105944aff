/**
 * What a winter route is called in a search: its name as the store serves it
 * (server/snapshot/routeNames.ts), with the words of its type.
 */

import type { Locale } from '../../snapshot/locales.ts';
import { nameRoute as nameRouteOf, type RouteNaming } from '../../snapshot/routeNames.ts';
import type { LocaleStore } from '../../snapshot/store.ts';
import type { RouteRecord } from '../../../sync/format.ts';

export type { RouteNaming } from '../../snapshot/routeNames.ts';

/** Names a route of `store`'s locale (server/snapshot/routeNames.ts nameRoute). */
export function nameRoute(route: RouteRecord, store: LocaleStore, locale: Locale): RouteNaming {
  return nameRouteOf(route, locale, store.tours.byId, store.stations.byId);
}
