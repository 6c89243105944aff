/**
 * Proves a plain document valid in one walk, so that the checker (server/execution/limits.ts)
 * need not run graphql-js's `validate` on it. `validate` runs its 27 rules on every document not
 * seen before, with type information kept for every node, which costs many times the parse; yet
 * the documents most clients send are plain: one query, fields and arguments, no fragments and
 * no directives. For those, every rule reduces to a few checks made while walking the fields.
 *
 * The proof is one-sided: `true` means `validate` would report nothing, `false` only that this
 * walk cannot tell (the document is not plain, or it breaks a rule), and the checker then runs
 * `validate`, which words the errors. Anything this walk does not know how to check (fragments,
 * directives, list or input-object values, introspection, a nullable variable where a non-null
 * value is needed, a field repeated under one response name) makes it answer `false`.
 *
 * What each rule reduces to on a plain document (one query; no fragment, directive, list or
 * object value; no `__schema`/`__type`): the fields exist on their parent (object or interface;
 * only `__typename` on a union) and have a selection exactly when their type is composite
 * (ScalarLeafs, FieldsOnCorrectType); each response name is used once per selection set, so no
 * two fields can conflict (OverlappingFieldsCanBeMerged); arguments are known, unique and the
 * required ones given (KnownArgumentNames, UniqueArgumentNames, ProvidedRequiredArguments); a
 * literal is one its leaf type's `parseLiteral` takes, as ValuesOfCorrectType asks; variables are
 * unique, of known input types, each used and each used one defined, where its type is a
 * subtype of the argument's (UniqueVariableNames, KnownTypeNames, VariablesAreInputTypes,
 * NoUnusedVariables, NoUndefinedVariables, VariablesInAllowedPosition). The rules about
 * fragments, directives, subscriptions, several operations and introspection (ours included:
 * no aliases in introspection, none at all when it is off) have nothing to look at.
 */

import {
  getNamedType,
  isCompositeType,
  isInputType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isTypeSubTypeOf,
  Kind,
  typeFromAST,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/** The variables of the operation being walked: their types, and whether each was used. */
interface Variables {
  readonly types: Map<string, GraphQLInputType>;
  readonly used: Set<string>;
}

/**
 * Whether `document` is plain (see the module comment) and valid against `schema`: when true,
 * graphql-js `validate` with the checker's rules reports no error for it.
 */
export function isPlainlyValid(schema: GraphQLSchema, document: DocumentNode): boolean {
  if (document.definitions.length !== 1) return false;
  const operation = document.definitions[0]!;
  if (operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== 'query' || operation.directives?.length) return false;
  const root = schema.getQueryType();
  if (!root) return false;
  const variables = variablesOf(schema, operation);
  if (!variables || !selectionValid(schema, operation.selectionSet, root, variables)) return false;
  return variables.used.size === variables.types.size;
}

/** The operation's variables, or null when one is repeated, not of a known input type, has a default or a directive. */
function variablesOf(schema: GraphQLSchema, operation: OperationDefinitionNode): Variables | null {
  const types = new Map<string, GraphQLInputType>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    // A default value would need ValuesOfCorrectType's walk, and loosens VariablesInAllowedPosition.
    if (types.has(name) || definition.defaultValue || definition.directives?.length) return null;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) return null;
    types.set(name, type);
  }
  return { types, used: new Set() };
}

/** Whether every field of a selection set exists on `parent`, and its arguments and selection are valid. */
function selectionValid(schema: GraphQLSchema, selectionSet: SelectionSetNode, parent: GraphQLCompositeType, variables: Variables): boolean {
  const responseNames = new Set<string>();
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return false;
    const responseName = (selection.alias ?? selection.name).value;
    // Two fields under one name would have to be compared (OverlappingFieldsCanBeMerged).
    if (responseNames.has(responseName)) return false;
    responseNames.add(responseName);
    const name = selection.name.value;
    if (name === '__typename') {
      if (selection.arguments?.length || selection.selectionSet) return false;
      continue;
    }
    // Introspection (`__schema`, `__type`) has rules of its own; a union has no fields but `__typename`.
    if (name.startsWith('__') || !(isObjectType(parent) || isInterfaceType(parent))) return false;
    const field = parent.getFields()[name];
    if (!field || !argumentsValid(schema, selection.arguments ?? [], field.args, variables)) return false;
    const type = getNamedType(field.type);
    if (isCompositeType(type)) {
      if (!selection.selectionSet || !selectionValid(schema, selection.selectionSet, type, variables)) return false;
    } else if (selection.selectionSet) {
      return false;
    }
  }
  return true;
}

/** Whether the arguments given are known, unique, of the right values, and include every required one. */
function argumentsValid(schema: GraphQLSchema, given: readonly ArgumentNode[], definitions: readonly GraphQLArgument[], variables: Variables): boolean {
  for (let i = 0; i < given.length; i++) {
    const name = given[i]!.name.value;
    for (let j = 0; j < i; j++) if (given[j]!.name.value === name) return false;
    const definition = definitions.find((candidate) => candidate.name === name);
    if (!definition || !valueValid(schema, given[i]!.value, definition.type, variables)) return false;
  }
  return definitions.every((definition) => !isRequiredArgument(definition) || given.some((argument) => argument.name.value === definition.name));
}

/** Whether a value given to an argument of `type` is a variable allowed there or a literal of the type. */
function valueValid(schema: GraphQLSchema, value: ValueNode, type: GraphQLInputType, variables: Variables): boolean {
  switch (value.kind) {
    case Kind.VARIABLE: {
      const variableType = variables.types.get(value.name.value);
      // A nullable variable where a non-null value is needed may be allowed by a default value:
      // VariablesInAllowedPosition decides.
      if (!variableType || (isNonNullType(type) && !isNonNullType(variableType)) || !isTypeSubTypeOf(schema, variableType, type)) return false;
      variables.used.add(value.name.value);
      return true;
    }
    case Kind.NULL:
      return !isNonNullType(type);
    case Kind.INT:
    case Kind.FLOAT:
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return leafLiteralValid(value, type);
    default:
      return false;
  }
}

/** Whether a scalar or enum literal is one the argument's leaf type takes, as ValuesOfCorrectType asks it. */
function leafLiteralValid(value: ValueNode, type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  if (!isLeafType(named)) return false;
  try {
    return named.parseLiteral(value, undefined) !== undefined;
  } catch {
    return false;
  }
}
