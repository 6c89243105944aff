/** All resolvers, merged. Every Query field of schema.graphql must have one (see server/execution/schema.ts). */

import { activityResolvers } from './activities.ts';
import { attractionResolvers } from './attractions.ts';
import { snowdataResolvers } from './snowdata.ts';
import { tourResolvers } from './tours.ts';

// The JSON scalar (a station's `raw`) has no entry here: graphql-js serialises a scalar without
// one as is, which is what JSON promises, and an entry would replace the SDL's definition of the
// type, description included.
export const resolvers = {
  Query: {
    ...activityResolvers.Query,
    ...snowdataResolvers.Query,
    ...tourResolvers.Query,
    ...attractionResolvers.Query,
  },
};
