import { GraphQLError } from 'graphql';

/** The message a client sees instead of an internal error. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/**
 * Tells whether a GraphQL error hides an unexpected failure: while resolving a field (the error
 * has a `path`), something other than a `GraphQLError` was thrown (graphql-js wraps it, keeping
 * it as `originalError`). Such an error is a bug, not a message meant for the client. Errors
 * without a path come from parsing, validation or variable coercion: they are about the request.
 */
export function isInternalError(error: Readonly<GraphQLError | Error>): error is GraphQLError {
  const { originalError, path } = error as Partial<GraphQLError>;
  return isGraphQLError(error) && path !== undefined && originalError instanceof Error && !isGraphQLError(originalError);
}

/**
 * Checks the tag rather than `instanceof`: graphql 16 ships a CJS and an ESM build, and an error
 * made by the other one (graphql-http and @graphql-tools load the CJS build through Node, a
 * bundler or Vite may pick the ESM one for our code) fails `instanceof` yet is a GraphQLError.
 */
function isGraphQLError(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object GraphQLError]';
}

/**
 * graphql-http's `formatError`: passes `GraphQLError`s through unchanged (with their
 * `extensions.code`, e.g. BAD_USER_INPUT) and replaces internal errors by "Internal server error"
 * with `extensions.code = "INTERNAL_SERVER_ERROR"`, keeping only `locations` and `path`. Plain
 * `Error`s reaching it are graphql-http's own request errors ("Missing query") and pass through.
 * Stacks never reach the client either way: graphql-http serializes messages only.
 *
 * It does not log: the caller logs internal errors where it knows the request.
 *
 * @returns the error to serialize for the client
 */
export function formatError(error: Readonly<GraphQLError | Error>): GraphQLError | Error {
  if (!isInternalError(error)) return error as GraphQLError | Error;
  return new GraphQLError(INTERNAL_ERROR_MESSAGE, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}
