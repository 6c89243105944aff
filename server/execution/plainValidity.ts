/**
 * Proves a plain document valid in one walk, and counts its shape, so that the checker
 * (server/execution/limits.ts) need not run graphql-js's `validate` nor graphql-armor's rules on
 * it. `validate` runs its 27 rules on every document not seen before, with type information kept
 * for every node, which costs many times the parse; yet the documents most clients send are
 * plain: one query, fields and arguments, no fragments and no directives. For those, every rule
 * reduces to a few checks made while walking the fields, and armor's counts to two numbers.
 *
 * The proof is one-sided: a shape means `validate` would report nothing, null only that this
 * walk cannot tell (the document is not plain, or it breaks a rule), and the checker then runs
 * the rules, which word the errors. Anything this walk does not know how to check (fragments,
 * directives, list or input-object values, introspection, a nullable variable where a non-null
 * value is needed, a field repeated under one response name) makes it answer null.
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

/**
 * The shape of a plain document, as graphql-armor's rules count it (server/execution/shapeLimits.ts):
 * with no fragment and no directive, its depth is the nesting of its fields and its aliases those
 * of its fields, and it has no directive.
 */
export interface PlainShape {
  /** Levels of fields, root fields at 1. */
  readonly depth: number;
  /** Fields with an alias. */
  readonly aliases: number;
}

/** The variables of the operation being walked (their types, and those used), and the aliases met. */
interface Walk {
  readonly types: Map<string, GraphQLInputType>;
  readonly used: Set<string>;
  aliases: number;
}

/** A selection set the walk cannot prove valid. */
const UNPROVEN = -1;

/**
 * The shape of `document` when it is plain (see the module comment) and valid against `schema`,
 * which graphql-js `validate` with the checker's rules reports no error for; else null.
 */
export function plainShape(schema: GraphQLSchema, document: DocumentNode): PlainShape | null {
  if (document.definitions.length !== 1) return null;
  const operation = document.definitions[0]!;
  if (operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== 'query' || operation.directives?.length) return null;
  const root = schema.getQueryType();
  if (!root) return null;
  const walk = walkOf(schema, operation);
  if (!walk) return null;
  const depth = selectionDepth(schema, operation.selectionSet, root, walk);
  if (depth === UNPROVEN || walk.used.size !== walk.types.size) return null;
  return { depth, aliases: walk.aliases };
}

/** A walk of the operation with its variables, or null when one is repeated, not of a known input type, has a default or a directive. */
function walkOf(schema: GraphQLSchema, operation: OperationDefinitionNode): Walk | null {
  const types = new Map<string, GraphQLInputType>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    // A default value would need ValuesOfCorrectType's walk, and loosens VariablesInAllowedPosition.
    if (types.has(name) || definition.defaultValue || definition.directives?.length) return null;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) return null;
    types.set(name, type);
  }
  return { types, used: new Set(), aliases: 0 };
}

/**
 * The levels of fields in a selection set (1 for leaves alone) when every field exists on
 * `parent` and its arguments and selection are valid; else {@link UNPROVEN}.
 */
function selectionDepth(schema: GraphQLSchema, selectionSet: SelectionSetNode, parent: GraphQLCompositeType, walk: Walk): number {
  const responseNames = new Set<string>();
  let depth = 1;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return UNPROVEN;
    const responseName = (selection.alias ?? selection.name).value;
    // Two fields under one name would have to be compared (OverlappingFieldsCanBeMerged).
    if (responseNames.has(responseName)) return UNPROVEN;
    responseNames.add(responseName);
    if (selection.alias) walk.aliases++;
    const name = selection.name.value;
    if (name === '__typename') {
      if (selection.arguments?.length || selection.selectionSet) return UNPROVEN;
      continue;
    }
    // Introspection (`__schema`, `__type`) has rules of its own; a union has no fields but `__typename`.
    if (name.startsWith('__') || !(isObjectType(parent) || isInterfaceType(parent))) return UNPROVEN;
    const field = parent.getFields()[name];
    if (!field || !argumentsValid(schema, selection.arguments ?? [], field.args, walk)) return UNPROVEN;
    const type = getNamedType(field.type);
    if (isCompositeType(type) !== Boolean(selection.selectionSet)) return UNPROVEN;
    if (selection.selectionSet) {
      const below = selectionDepth(schema, selection.selectionSet, type as GraphQLCompositeType, walk);
      if (below === UNPROVEN) return UNPROVEN;
      depth = Math.max(depth, 1 + below);
    }
  }
  return depth;
}

/** Whether the arguments given are known, unique, of the right values, and include every required one. */
function argumentsValid(schema: GraphQLSchema, given: readonly ArgumentNode[], definitions: readonly GraphQLArgument[], walk: Walk): boolean {
  for (let i = 0; i < given.length; i++) {
    const name = given[i]!.name.value;
    for (let j = 0; j < i; j++) if (given[j]!.name.value === name) return false;
    const definition = definitions.find((candidate) => candidate.name === name);
    if (!definition || !valueValid(schema, given[i]!.value, definition.type, walk)) return false;
  }
  return definitions.every((definition) => !isRequired(definition) || given.some((argument) => argument.name.value === definition.name));
}

/**
 * graphql-js's isRequiredArgument, the default tested first: most arguments have one or are
 * nullable, and asking graphql-js whether a type is non-null costs more than reading a property.
 */
function isRequired(definition: GraphQLArgument): boolean {
  return definition.defaultValue === undefined && isNonNullType(definition.type);
}

/** Whether a value given to an argument of `type` is a variable allowed there or a literal of the type. */
function valueValid(schema: GraphQLSchema, value: ValueNode, type: GraphQLInputType, walk: Walk): boolean {
  switch (value.kind) {
    case Kind.VARIABLE: {
      const variableType = walk.types.get(value.name.value);
      // A nullable variable where a non-null value is needed may be allowed by a default value:
      // VariablesInAllowedPosition decides.
      if (!variableType || (isNonNullType(type) && !isNonNullType(variableType)) || !isTypeSubTypeOf(schema, variableType, type)) return false;
      walk.used.add(value.name.value);
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
