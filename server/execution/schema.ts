/**
 * The executable schema: schema.graphql (SDL-first) wired to the resolvers. Refuses to build
 * when the two disagree, so a renamed field cannot silently answer null in production.
 */

import { existsSync, readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';

/**
 * schema.graphql: beside the server bundle (`npm run build` copies it into dist/), else from the
 * repository root.
 */
export function readSdl(file = sdlFile()): string {
  return readFileSync(file, 'utf8');
}

function sdlFile(): URL {
  const bundled = new URL('schema.graphql', import.meta.url);
  return existsSync(bundled) ? bundled : new URL('../../schema.graphql', import.meta.url);
}

type Resolvers = NonNullable<Parameters<typeof makeExecutableSchema>[0]['resolvers']> & { Query: Record<string, unknown> };

/**
 * @throws when a resolver names a type or field the SDL lacks, or a Query field has no resolver.
 */
export function createSchema(sdl: string, resolvers: Resolvers): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: sdl,
    resolvers,
    // 'error': a resolver for a field that the SDL does not define stops the start.
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  const queryFields = Object.keys(schema.getQueryType()?.getFields() ?? {});
  const missing = queryFields.filter((field) => typeof resolvers.Query[field] !== 'function');
  if (missing.length > 0) throw new Error(`schema.graphql defines Query fields without a resolver: ${missing.join(', ')}`);
  return schema;
}
