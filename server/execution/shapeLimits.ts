/**
 * The limits on an operation's shape, as graphql-armor's validation rules
 * (https://escape.tech/graphql-armor/docs/category/plugins): directives, depth and aliases, each
 * counted per operation with fragment spreads expanded into their definitions (memoized per
 * fragment, so a fragment spread a thousand times is counted once and the count is linear in the
 * document). Each refusal is QUERY_TOO_COMPLEX, worded with the limit and the value found.
 *
 * Configured against armor's defaults where ours differ:
 * - depth: `flattenFragments`, so a spread or an inline fragment is no level of its own (root
 *   fields at depth 1); `__schema` counts nothing, its recursion being bounded by
 *   MaxIntrospectionDepthRule and its size by the ban on aliases in introspection;
 * - aliases: an empty `allowList`, so `t0: __typename … t99: __typename` counts too;
 * - every rule: its rejection reported to the context as our error (`propagateOnRejection:
 *   false`) rather than thrown.
 */

import { GraphQLError, Kind, TypeInfo, ValidationContext, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { QueryLimits } from '../config/config.ts';

/**
 * Checks a document's operations against the limits on directives, depth and aliases, in that
 * order.
 * @returns the first refusal, QUERY_TOO_COMPLEX located at its operation, or undefined
 */
export type ShapeCheck = (document: DocumentNode) => GraphQLError | undefined;

/** Creates the {@link ShapeCheck} of `limits` for documents of `schema`. */
export function createShapeCheck(schema: GraphQLSchema, limits: Pick<QueryLimits, 'maxDepth' | 'maxAliases' | 'maxDirectives'>): ShapeCheck {
  const { maxDirectives, maxDepth, maxAliases } = limits;
  const checks = [
    refusing(maxDirectivesRule, { n: maxDirectives }, (found) => `Query has ${found} directives; the limit is ${maxDirectives}`),
    refusing(maxDepthRule, { n: maxDepth, flattenFragments: true, ignoreIntrospection: true }, (found) => `Query is ${found} levels deep; the limit is ${maxDepth}`),
    refusing(maxAliasesRule, { n: maxAliases, allowList: [] }, (found) => `Query has ${found} aliases (fragments expanded); the limit is ${maxAliases}`),
  ];
  return (document) => {
    let refusal: GraphQLError | undefined;
    // Armor's rules count an operation's whole tree on entering it, reading fragments from the
    // context, so they are handed each operation rather than run by `validate`, whose walk of
    // the document (with type information, for rules that need it) they would not use.
    const context = new ValidationContext(schema, document, new TypeInfo(schema), (error) => {
      refusal ??= error;
    });
    const operationChecks = checks.map((check) => check(context));
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      for (const check of operationChecks) {
        check(definition);
        if (refusal) return refusal;
      }
    }
    return undefined;
  };
}

/** The options every armor rule takes, of those used here. */
interface ArmorOptions {
  n: number;
  exposeLimits?: boolean;
  propagateOnRejection?: boolean;
  onReject?: ((context: ValidationContext | null, error: GraphQLError) => void)[];
}

/** An armor rule: its visitor counts on entering each operation and calls `onReject` past `n`. */
type ArmorRule<O> = (options: O & ArmorOptions) => (context: ValidationContext) => { readonly OperationDefinition: Record<string, any> };

/**
 * An armor rule as a check of one operation at a time, whose rejection is reported to the
 * context as our error.
 * Armor's own message reads `… limit of N exceeded, found M.` (`exposeLimits`); M is taken from
 * it, and a count too large to be written in digits reads "more than N".
 */
function refusing<O>(
  rule: ArmorRule<O>,
  options: O & { n: number },
  message: (found: string) => string,
): (context: ValidationContext) => (operation: OperationDefinitionNode) => void {
  return (context) => {
    // Armor's rejection names no node: the operation being counted is kept for the location.
    let operation: OperationDefinitionNode | undefined;
    const visitor = rule({
      ...options,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [
        (_context, rejection) => {
          const found = /found (\d+)\.$/.exec(rejection.message)?.[1] ?? `more than ${options.n}`;
          context.reportError(new GraphQLError(message(found), { nodes: operation, extensions: { code: 'QUERY_TOO_COMPLEX' } }));
        },
      ],
    })(context);
    const enter = visitor.OperationDefinition.enter as (this: unknown, node: OperationDefinitionNode) => void;
    return (node) => {
      operation = node;
      enter.call(visitor, node);
    };
  };
}
