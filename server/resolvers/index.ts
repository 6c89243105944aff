/** All resolvers, merged. Every Query field of schema.graphql must have one (see server/schema.ts). */

import { GraphQLScalarType } from 'graphql';
import { activityResolvers } from './activities.ts';
import { attractionResolvers } from './attractions.ts';
import { snowdataResolvers } from './snowdata.ts';
import { tourResolvers } from './tours.ts';

/** Upstream data passed through as is (a station's `raw`); output only, never an argument. */
const JSON = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
});

export const resolvers = {
  JSON,
  Query: {
    ...activityResolvers.Query,
    ...snowdataResolvers.Query,
    ...tourResolvers.Query,
    ...attractionResolvers.Query,
  },
};
