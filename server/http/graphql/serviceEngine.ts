/**
 * The service's engine over its schema and limits, built the same way for every route that runs
 * GraphQL operations (the GraphQL route, the GeoJSON route), so that an operation is checked,
 * refused and answered alike whichever route runs it.
 */

import type { GraphQLSchema } from 'graphql';
import { createEngine, type Engine } from '../../execution/engine.ts';
import { createQueryChecker } from '../../execution/limits.ts';
import { formatError } from '../formatError.ts';
import type { HttpOptions } from '../httpOptions.ts';

/**
 * Creates an engine over `options.schema` with the service's limits, operation cache size and
 * graphql-jit setting; errors are worded by server/http/formatError.ts.
 * @param executableSchema the schema operations execute on (server/execution/deadline.ts withDeadline)
 */
export function createServiceEngine(options: Pick<HttpOptions, 'schema' | 'config'>, executableSchema: GraphQLSchema): Engine {
  const { config } = options;
  return createEngine({
    schema: options.schema,
    executableSchema,
    check: createQueryChecker(options.schema, config.limits, { introspection: config.introspection }),
    limits: config.limits,
    maxEntries: config.operationCacheSize,
    jit: config.jit,
    formatError,
  });
}
