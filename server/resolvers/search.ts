/** The Query field across areas: search, and the type of its hits' `item`. */

import { queryWords } from '../search/indexes.ts';
import { activityIndexOf } from '../snapshot/activityIndex.ts';
import { type ArgumentReader, badInput, checkLimit, checkLocale, checkNearMe, checkOffset } from './args.ts';
import { checkBbox } from './bbox.ts';
import type { Context } from './context.ts';
import { rankHits, SEARCH_DEPTH } from './searchHits/rankHits.ts';
import { SEARCH_AREAS, searchAreasOf, type SearchAreaName } from './searchHits/searchAreas.ts';
import { snippetOf } from './searchHits/snippet.ts';

/** Maximum of `search(limit)`: our choice, stated in docs/api.md (Search across areas). */
export const SEARCH_MAX_LIMIT = 50;
/** Longest `q`, in characters, as for the lists' `q`. */
const MAX_QUERY_LENGTH = 200;

interface SearchArgs {
  q?: string | null;
  locale?: string | null;
  areas?: readonly string[] | null;
  limit?: number | null;
  offset?: number | null;
  nearLat?: number | null;
  nearLng?: number | null;
  bbox?: readonly number[] | null;
}

/** The arguments of `search`, checked (see ArgumentReader). */
function readSearchArgs(args: SearchArgs) {
  const limit = checkLimit(args.limit, 10, SEARCH_MAX_LIMIT);
  const offset = checkOffset(args.offset);
  if (offset + limit > SEARCH_DEPTH) throw badInput(`offset + limit: ${offset} + ${limit} reaches past hit ${SEARCH_DEPTH}; allowed: at most ${SEARCH_DEPTH}`);
  const near = checkNearMe({ nearLat: args.nearLat, nearLng: args.nearLng });
  return { q: checkSearchQuery(args.q), locale: checkLocale(args.locale), areas: checkAreas(args.areas), limit, offset, near, box: checkBbox(args.bbox) };
}

/** `q` of `search`: at least one word (letters or digits), at most MAX_QUERY_LENGTH characters. */
function checkSearchQuery(value: string | null | undefined): string {
  const q = (value ?? '').trim();
  if (q.length > MAX_QUERY_LENGTH) throw badInput(`q: ${q.length} characters is too long; allowed: at most ${MAX_QUERY_LENGTH}`);
  if (queryWords(q).length === 0) throw badInput('q: has no word to search for; allowed: text with at least one letter or digit');
  return q;
}

/** `areas` of `search`: null for every area, else a non-empty list of SEARCH_AREAS. */
function checkAreas(value: readonly string[] | null | undefined): ReadonlySet<SearchAreaName> | null {
  if (value === null || value === undefined) return null;
  if (value.length === 0) throw badInput(`areas: is empty; allowed: null for every area, or some of ${SEARCH_AREAS.join(', ')}`);
  for (const area of value) {
    if (!(SEARCH_AREAS as readonly string[]).includes(area)) throw badInput(`areas: "${area}" is not an area; allowed: ${SEARCH_AREAS.join(', ')}`);
  }
  return new Set(value as readonly SearchAreaName[]);
}

/** The argument readers of the Query fields of this file. */
export const searchArgumentReaders: Record<string, ArgumentReader> = { search: readSearchArgs };

/** A field only the records of each `item` type have (their formats: sync/format.ts). */
function itemTypeOf(record: Record<string, unknown>): string {
  if ('bookingId' in record) return 'Activity';
  if ('isStationActive' in record) return 'SnowdataRoute';
  if ('routeType' in record) return 'Tour';
  if ('seasons' in record) return 'Attraction';
  return 'SnowdataStation';
}

export const searchResolvers = {
  Query: {
    search(_: unknown, args: SearchArgs, { store, today }: Context) {
      const { q, locale, areas, limit, offset, near, box } = readSearchArgs(args);
      const all = searchAreasOf(store, locale);
      const { hits, total } = rankHits(areas === null ? all : all.filter((area) => areas.has(area.name)), q, near, box);
      const end = Math.min(offset + limit, hits.length);
      const words = [...new Set(queryWords(q))];
      const data = [];
      for (let i = offset; i < end; i++) {
        const { area, position, score } = hits[i]!;
        // An activity as served today: its next available date worked out for the day.
        const record = (area.name === 'activities' ? activityIndexOf(store.locales[locale].activities.records).on(today).records[position] : area.records[position]) as { id: string | number };
        const point = area.point(position);
        data.push({
          area: area.name,
          // Text: ID leaves are copied unserialized (server/execution/engine.ts), and a station's id is a number.
          id: String(record.id),
          title: area.title(position),
          score: Math.round(score * 1e4) / 1e4,
          snippet: snippetOf(area.fields(position), words),
          latitude: point?.lat ?? null,
          longitude: point?.lng ?? null,
          item: record,
        });
      }
      // Hits past SEARCH_DEPTH cannot be asked for, so they make no next page.
      return { data, total, hasMore: offset + data.length < Math.min(hits.length, SEARCH_DEPTH) };
    },
  },
  SearchItem: {
    __resolveType: itemTypeOf,
  },
};
