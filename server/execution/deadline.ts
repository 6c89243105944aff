/**
 * The execution time limit. graphql-js runs synchronous resolvers without yielding, so no timer
 * can interrupt an execution; what can be done is to refuse to start more work once the budget
 * is spent. Each root field is where the real work happens here (text search, near-me, sorting),
 * so the check runs before each one: a query of 30 aliased searches stops at the first alias past
 * the deadline. The fields inside a result only read records in memory and are bounded by the
 * cost limit (server/execution/limits.ts), which is what keeps any single root field fast.
 */

import { defaultFieldResolver, GraphQLError, GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig } from 'graphql';

/** The root value of an execution: when its time is up. */
export interface Deadline {
  /** `performance.now()` time after which no root field starts, in ms. */
  readonly atMs: number;
  /** The budget it was given, in ms, for the error message. */
  readonly budgetMs: number;
}

/**
 * Starts the clock of one execution; pass the result as its `rootValue`.
 * @param spentMs what of the budget a request running several executions has used already, in ms
 */
export function startDeadline(budgetMs: number, spentMs = 0): Deadline {
  return { atMs: performance.now() + budgetMs - spentMs, budgetMs };
}

/**
 * Returns a copy of `schema` whose Query fields first check the {@link Deadline} given as the
 * operation's root value. A field reached past it fails with `extensions.code` EXECUTION_TIMEOUT
 * (and, being nullable or not, nulls what graphql-js nulls for any field error); the fields that
 * ran keep their data. Without a Deadline root value nothing is checked. Other types are shared
 * with `schema`, unchanged.
 */
export function withDeadline(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  const query = config.query;
  if (!query) return schema;
  const queryConfig = query.toConfig();
  const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
  for (const [name, field] of Object.entries(queryConfig.fields)) {
    const resolve = field.resolve ?? defaultFieldResolver;
    fields[name] = {
      ...field,
      resolve: (source, args, context, info) => {
        const deadline = info.rootValue as Deadline | undefined;
        if (deadline && performance.now() > deadline.atMs) {
          throw new GraphQLError(`Execution time limit of ${deadline.budgetMs} ms reached before this field started`, {
            extensions: { code: 'EXECUTION_TIMEOUT' },
          });
        }
        return resolve(source, args, context, info);
      },
    };
  }
  const wrapped = new GraphQLObjectType({ ...queryConfig, fields });
  return new GraphQLSchema({ ...config, query: wrapped, types: config.types.map((type) => (type === query ? wrapped : type)) });
}
