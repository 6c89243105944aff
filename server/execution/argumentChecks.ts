/**
 * The arguments of an operation's root fields, checked by the resolvers' own readers
 * (server/resolvers/index.ts `argumentReaders`) before anything executes: one field's bad
 * argument refuses the whole request as soon as it is known, rather than after every other field
 * of it has run, and a refused request costs a check, never an execution.
 */

import {
  getArgumentValues,
  getDirectiveValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentSpreadNode,
  type GraphQLObjectType,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { ArgumentReader } from '../resolvers/index.ts';

/**
 * The refusals of the root fields' arguments, in document order; empty when every argument
 * passes. A field left out by `@skip` or `@include` is not checked, as it is not executed.
 *
 * @param variables coerced variable values (graphql-js `getVariableValues`)
 * @returns GraphQLErrors located at their field, with the reader's message and code (BAD_USER_INPUT)
 */
export function checkArguments(
  root: GraphQLObjectType,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  readers: Readonly<Record<string, ArgumentReader>>,
): GraphQLError[] {
  const errors: GraphQLError[] = [];
  const fields = root.getFields();
  const spread = new Set<string>();

  const included = (node: FieldNode | InlineFragmentNode | FragmentSpreadNode) =>
    getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;

  function walk(selectionSet: SelectionSetNode): void {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = document.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name);
        if (fragment?.kind !== Kind.FRAGMENT_DEFINITION || spread.has(name)) continue;
        spread.add(name);
        walk(fragment.selectionSet);
      } else {
        const reader = readers[selection.name.value];
        const field = fields[selection.name.value];
        if (reader === undefined || field === undefined) continue;
        try {
          reader(getArgumentValues(field, selection, variables));
        } catch (error) {
          if (!(error instanceof GraphQLError)) throw error;
          errors.push(new GraphQLError(error.message, { nodes: selection, extensions: error.extensions }));
        }
      }
    }
  }

  walk(operation.selectionSet);
  return errors;
}
