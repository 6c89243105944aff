/**
 * All resolvers, merged. Every Query field of schema.graphql must have one (see server/execution/schema.ts);
 * below Query only the list results' `facets`, which count from the list's arguments
 * (server/resolvers/listQuery.ts), and `Tour`'s line fields, read from the line the store keeps
 * apart from the records (server/resolvers/tourLines.ts).
 */

import { activityArgumentReaders, activityResolvers } from './activities.ts';
import type { ArgumentReader } from './args.ts';
import { attractionArgumentReaders, attractionResolvers } from './attractions.ts';
import { changesArgumentReaders, changesResolvers } from './changes.ts';
import { searchArgumentReaders, searchResolvers } from './search.ts';
import { snowdataArgumentReaders, snowdataResolvers } from './snowdata.ts';
import { termsResolvers } from './terms.ts';
import { tourArgumentReaders, tourResolvers } from './tours.ts';

export type { ArgumentReader } from './args.ts';

// The JSON scalar (a station's `raw`) has no entry here: graphql-js serialises a scalar without
// one as is, which is what JSON promises, and an entry would replace the SDL's definition of the
// type, description included.
export const resolvers = {
  Query: {
    ...activityResolvers.Query,
    ...snowdataResolvers.Query,
    ...tourResolvers.Query,
    ...attractionResolvers.Query,
    ...searchResolvers.Query,
    ...changesResolvers.Query,
  },
  SearchItem: searchResolvers.SearchItem,
  ActivitiesResult: activityResolvers.ActivitiesResult,
  SnowdataResult: snowdataResolvers.SnowdataResult,
  SnowdataRoutesResult: snowdataResolvers.SnowdataRoutesResult,
  ToursResult: tourResolvers.ToursResult,
  Tour: { ...tourResolvers.Tour, ...termsResolvers.Tour },
  AttractionsResult: attractionResolvers.AttractionsResult,
  Activity: termsResolvers.Activity,
  Attraction: termsResolvers.Attraction,
};

/**
 * The argument reader of each Query field, the one its resolver uses: the checker runs them
 * before anything executes (server/execution/limits.ts).
 */
export const argumentReaders: Readonly<Record<string, ArgumentReader>> = {
  ...activityArgumentReaders,
  ...snowdataArgumentReaders,
  ...tourArgumentReaders,
  ...attractionArgumentReaders,
  ...searchArgumentReaders,
  ...changesArgumentReaders,
};
