/**
 * What a winter route is called: a route record has a type and a number but no name
 * (schema.graphql SnowdataRoute), so it is named after the MySwitzerland tour it was joined with
 * (same id), else after its type and its station (`stationId`), else after its type and number.
 * The store serves each route with this name (`SnowdataRoute.name`), and `search` finds it by it.
 */

import type { RouteRecord } from '../../sync/format.ts';
import type { Locale } from './locales.ts';

/** Per locale and route type: the kind of way as a route name starts, then the words a searcher types for the activity. */
const ROUTE_WORDS: Readonly<Record<Locale, Readonly<Record<string, readonly [string, string]>>>> = {
  'de-CH': {
    snowshoe: ['Schneeschuhtrail', 'Schneeschuhwandern Schneeschuh'],
    crosscountry: ['Langlaufloipe', 'Langlauf Loipe'],
    winterhiking: ['Winterwanderweg', 'Winterwandern Winterwanderung'],
    sledging: ['Schlittelweg', 'Schlitteln Schlitten Rodeln'],
  },
  'en-CH': {
    snowshoe: ['Snowshoe trail', 'snowshoeing'],
    crosscountry: ['Cross-country trail', 'cross-country skiing'],
    winterhiking: ['Winter hiking trail', 'winter hike'],
    sledging: ['Sledging run', 'sledging sledge toboggan'],
  },
  'fr-CH': {
    snowshoe: ['Sentier raquettes', 'raquettes à neige'],
    crosscountry: ['Piste de ski de fond', 'ski de fond'],
    winterhiking: ['Chemin de randonnée hivernale', 'randonnée hivernale'],
    sledging: ['Piste de luge', 'luge'],
  },
  'it-CH': {
    snowshoe: ['Percorso con racchette', 'racchette da neve ciaspole'],
    crosscountry: ['Pista di sci di fondo', 'sci di fondo'],
    winterhiking: ['Sentiero invernale', 'escursione invernale'],
    sledging: ['Pista da slittino', 'slittino slitta'],
  },
};

/** A route's name and the words of its type, as the search indexes them. */
export interface RouteNaming {
  title: string;
  /** The type's name and the words a searcher types for it ("Schlittelweg Schlitteln Schlitten"). */
  typeWords: string;
}

/**
 * Names a route of one locale: the joined tour's name, else the type's name and the station's
 * name, else the type's name and the route's number.
 * @param tours the tours of the locale, by id
 * @param stations the stations of the locale, by id
 */
export function nameRoute(
  route: RouteRecord,
  locale: Locale,
  tours: ReadonlyMap<string | number, { readonly name: string }>,
  stations: ReadonlyMap<string | number, { readonly name: string }>,
): RouteNaming {
  const [kind, words] = ROUTE_WORDS[locale][route.type] ?? [route.type, route.type];
  const typeWords = `${kind} ${words}`;
  const tour = tours.get(route.id);
  if (tour) return { title: tour.name, typeWords };
  const station = stations.get(route.stationId);
  if (station) return { title: `${kind} ${station.name}`, typeWords };
  return { title: `${kind} ${route.number}`, typeWords };
}
