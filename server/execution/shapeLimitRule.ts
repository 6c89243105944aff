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
 * - every rule: its rejection reported as one validation error (`propagateOnRejection: false`)
 *   rather than thrown out of `validate`.
 */

import { GraphQLError, type ASTVisitor, type OperationDefinitionNode, type ValidationContext, type ValidationRule } from 'graphql';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { QueryLimits } from '../config/config.ts';
import { combineValidationRules } from './combineValidationRules.ts';

/**
 * One rule refusing an operation with more directives, depth or aliases than `limits` allow, in
 * that order, as QUERY_TOO_COMPLEX located at the operation.
 */
export function shapeLimitRule(limits: Pick<QueryLimits, 'maxDepth' | 'maxAliases' | 'maxDirectives'>): ValidationRule {
  const { maxDirectives, maxDepth, maxAliases } = limits;
  return combineValidationRules([
    refusing(maxDirectivesRule, { n: maxDirectives }, (found) => `Query has ${found} directives; the limit is ${maxDirectives}`),
    refusing(maxDepthRule, { n: maxDepth, flattenFragments: true, ignoreIntrospection: true }, (found) => `Query is ${found} levels deep; the limit is ${maxDepth}`),
    refusing(maxAliasesRule, { n: maxAliases, allowList: [] }, (found) => `Query has ${found} aliases (fragments expanded); the limit is ${maxAliases}`),
  ]);
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
 * An armor rule whose rejection is reported as our error. Armor's own message reads
 * `… limit of N exceeded, found M.` (`exposeLimits`); M is taken from it, and a count too large
 * to be written in digits reads "more than N".
 */
function refusing<O>(rule: ArmorRule<O>, options: O & { n: number }, message: (found: string) => string): ValidationRule {
  return (context): ASTVisitor => {
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
    return {
      OperationDefinition(node) {
        operation = node;
        enter.call(visitor, node);
      },
    };
  };
}
