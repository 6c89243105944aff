/**
 * Limits on a GraphQL document, checked before anything is executed, so that a hostile query
 * is refused in about the time it takes to parse it:
 *
 * 1. tokens: `parse(…, { maxLexicalTokens })` stops reading a document at the limit;
 * 2. shape: directives, depth and aliases, per operation with fragments expanded, by
 *    graphql-armor's rules (server/execution/shapeLimits.ts), before the (costlier) rules of the
 *    spec, so that a refusal is the one error answered;
 * 3. the rules of the spec (graphql-js `specifiedRules`, which include MaxIntrospectionDepthRule),
 *    plus: no aliases inside introspection, and no introspection at all when it is turned off,
 *    handed to `validate` as one rule (server/execution/combineValidationRules.ts);
 *    a plain document proven valid, and within the shape limits, by one walk of its fields
 *    (server/execution/plainValidity.ts) is spared both 2 and 3;
 * 4. the arguments of the root fields, with the variables known, by the resolvers' own readers
 *    (server/execution/argumentChecks.ts), so that no field runs for a request that one bad
 *    argument refuses;
 * 5. cost: every field resolved counts 1, and a list counts its
 *    selection once per item it can return (`limit` for the paginated lists);
 * 6. the size of the answer, estimated with the sizes of the snapshot (server/snapshot/answerSizes.ts), so
 *    that a few fields of large values (a station's `raw` JSON) cannot ask for megabytes at a
 *    cost of one each. The estimate depends on the snapshot: a checked operation is checked
 *    again against the sizes of each new snapshot (server/execution/engine.ts).
 *
 * Introspection (`__schema`, `__type`) is bounded separately rather than costed: it may not use
 * aliases, so repeated selections merge and its answer can never exceed the schema's own size,
 * and MaxIntrospectionDepthRule stops `fields { type { fields … } }` recursion at three levels.
 * Its subtree counts cost 1 and `__schema`'s no depth, so GraphiQL's introspection query (depth
 * 13) passes.
 */

import {
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isIntrospectionType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  valueFromAST,
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { AnswerSizes } from '../snapshot/answerSizes.ts';
import type { QueryLimits } from '../config/config.ts';
import { forEachNode } from './astWalk.ts';
import { combineValidationRules } from './combineValidationRules.ts';
import { plainShape } from './plainValidity.ts';
import { createShapeCheck } from './shapeLimits.ts';
import { LOCATIONS_MAX_LIMIT } from '../resolvers/activities.ts';
import { SEARCH_AREAS } from '../resolvers/searchHits/searchAreas.ts';
import { argumentReaders } from '../resolvers/index.ts';
import { checkArguments } from './argumentChecks.ts';

/**
 * Size assumed for a list field without a `limit` argument: the lists inside records (a
 * station's images, webcams, forecasts, routes) hold a handful of items.
 */
export const DEFAULT_LIST_SIZE = 10;

/** Root lists without a `limit` argument, with the size assumed for them (fixtures: 25 types). */
const ROOT_LIST_SIZES: Readonly<Record<string, number>> = { types: 100 };

/**
 * The largest `limit` any list accepts (`locations`). A larger limit is refused by its resolver
 * before it produces anything, so cost never needs to count more items than this.
 */
const LARGEST_LIMIT = LOCATIONS_MAX_LIMIT;

/** Refused when a cost grows past this anyway, so that the arithmetic stays exact. */
const COST_CEILING = 1e12;

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/**
 * The arguments {@link measureCost} reads: `limit`, `samples` (the points of a tour's elevation
 * profile, a list's items as `limit` gives them), and a list result's `facets(fields,
 * maxValues)`; {@link costVariables} names the variables given to them, by which the operation
 * cache remembers costs, so the two must read the same.
 */
const LIMIT_ARGUMENTS = ['limit', 'samples'];
const FACET_FIELDS_ARGUMENT = 'fields';
const FACET_VALUES_ARGUMENT = 'maxValues';
const COST_ARGUMENTS = new Set([...LIMIT_ARGUMENTS, FACET_FIELDS_ARGUMENT, FACET_VALUES_ARGUMENT]);

/**
 * The text search (`search`) costs besides its fields this much per character of `q` and per
 * area searched: each word of `q` is looked up, with its prefixes and typos, in each area's
 * index, so that many long searches in one request are refused before they hold the event loop.
 */
export const SEARCH_COST_PER_CHARACTER_AND_AREA = 5;
const SEARCH_FIELD = 'search';
/** The arguments of `search` its cost reads besides `limit`; {@link costVariables} names their variables too. */
const SEARCH_COST_ARGUMENTS = ['q', 'areas'];

/** An operation that passed every check of {@link QueryChecker}, ready to execute. */
export interface CheckedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** Cost as counted by {@link measureCost}. */
  readonly cost: number;
  /** The answer's bytes as estimated by {@link estimateAnswerBytes}. */
  readonly bytes: number;
  /** The variables sent, coerced (graphql-js getVariableValues), which the cost was counted with. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly errors?: undefined;
}

/** The outcome of {@link QueryChecker}: an operation ready to execute, or the errors to answer with. */
export type CheckedQuery = CheckedOperation | { readonly errors: readonly GraphQLError[] };

/**
 * Checks one request's query against every limit, the size of its answer estimated with the
 * sizes of the snapshot it is answered from; see the module comment for the order.
 */
export type QueryChecker = (
  request: {
    query: string;
    operationName?: string | null | undefined;
    variables?: Readonly<Record<string, unknown>> | null | undefined;
    /** `query` already parsed within the token limit, so that it is not parsed again. */
    document?: DocumentNode | undefined;
    /** `document` passed the checks of a {@link DocumentChecker} already: they are not run again. */
    valid?: boolean | undefined;
  },
  sizes: AnswerSizes,
) => CheckedQuery;

/** The outcome of {@link DocumentChecker}: the document parsed and valid, or the errors to answer with. */
export type CheckedDocument = { readonly document: DocumentNode; readonly errors?: undefined } | { readonly errors: readonly GraphQLError[] };

/**
 * Checks a document's text by the limits that depend on the document alone (1 to 3 of the module
 * comment: tokens, shape, the rules of the spec), whatever the operation and the variables.
 */
export type DocumentChecker = (query: string, parsed?: DocumentNode) => CheckedDocument;

type Limits = Pick<QueryLimits, 'maxTokens' | 'maxDepth' | 'maxAliases' | 'maxDirectives' | 'maxCost' | 'maxResponseBytes'>;

/**
 * Creates the checker of a document alone (see {@link DocumentChecker}), with the codes of
 * {@link createQueryChecker}: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, QUERY_TOO_COMPLEX.
 */
export function createDocumentChecker(schema: GraphQLSchema, limits: Omit<Limits, 'maxCost' | 'maxResponseBytes'>, options: { introspection: boolean }): DocumentChecker {
  const ruleList: ValidationRule[] = [...specifiedRules, NoIntrospectionAliasesRule];
  if (!options.introspection) ruleList.push(NoSchemaIntrospectionCustomRule);
  const rules = [combineValidationRules(ruleList)];
  const checkShape = createShapeCheck(schema, limits);

  /** The refusal of armor's rules (a shape limit), else of the validation rules, else undefined. */
  const checkedRules = (document: DocumentNode): CheckedDocument | undefined => {
    const shapeRefusal = checkShape(document);
    if (shapeRefusal) return { errors: [shapeRefusal] };
    const validationErrors = validate(schema, document, rules, { maxErrors: 20 });
    if (validationErrors.length === 0) return undefined;
    return {
      errors: validationErrors.map((error) => {
        if (error.message === VALIDATION_ABORTED) return complexityError(VALIDATION_ABORTED_MESSAGE);
        return withCode(namingAllowedValues(schema, error), COMPLEXITY_MESSAGES.has(error.message) ? 'QUERY_TOO_COMPLEX' : 'GRAPHQL_VALIDATION_FAILED');
      }),
    };
  };

  return (query, parsed) => {
    let document: DocumentNode;
    try {
      document = parsed ?? parse(query, { maxLexicalTokens: limits.maxTokens });
    } catch (error) {
      const syntaxError = error as GraphQLError;
      // graphql-js words it "Document contains more that N tokens. Parsing aborted."
      if (syntaxError.message.endsWith('tokens. Parsing aborted.')) {
        return tooComplex(`Query has more than ${limits.maxTokens} tokens, the limit`, syntaxError);
      }
      return { errors: [withCode(syntaxError, 'GRAPHQL_PARSE_FAILED')] };
    }

    // A plain document proven valid within the shape limits is spared armor's rules and
    // `validate`, which would find nothing; any other is checked by them, which word the refusal.
    const plain = plainShape(schema, document);
    if (!plain || plain.depth > limits.maxDepth || plain.aliases > limits.maxAliases) {
      const refusal = checkedRules(document);
      if (refusal) return refusal;
    }
    return { document };
  };
}

/**
 * Creates the checker of the limits for a schema. Every error carries `extensions.code`:
 * GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, QUERY_TOO_COMPLEX (a limit; the message names
 * it and the measured value), RESPONSE_TOO_LARGE (the estimated answer), BAD_USER_INPUT (variables) or OPERATION_RESOLUTION_FAILURE
 * (no operation of that name).
 */
export function createQueryChecker(schema: GraphQLSchema, limits: Limits, options: { introspection: boolean }): QueryChecker {
  const checkDocument = createDocumentChecker(schema, limits, options);

  return ({ query, operationName, variables, document: parsed, valid }, sizes) => {
    let document: DocumentNode;
    if (valid && parsed) {
      document = parsed;
    } else {
      const checked = checkDocument(query, parsed);
      if (checked.errors) return checked;
      document = checked.document;
    }

    const operation = getOperationAST(document, operationName);
    if (!operation) {
      const message = operationName
        ? `Unknown operation named "${operationName}"`
        : 'The document holds several operations; choose one with operationName';
      return { errors: [new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })] };
    }
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 20 });
    if (coerced.errors) return { errors: coerced.errors.map((error) => withCode(namingAllowedValues(schema, error), 'BAD_USER_INPUT')) };
    const root = schema.getRootType(operation.operation);
    const argumentErrors = root ? checkArguments(root, document, operation, coerced.coerced, argumentReaders) : [];
    if (argumentErrors.length > 0) return { errors: argumentErrors };

    const cost = measureCost(schema, document, operation, coerced.coerced);
    if (cost > limits.maxCost) {
      const shown = cost >= COST_CEILING ? `more than ${format(COST_CEILING)}` : format(cost);
      return tooComplex(`Query cost is ${shown}; the limit is ${format(limits.maxCost)} (each field counts 1, once per list item)`, operation);
    }
    const bytes = estimateAnswerBytes(schema, document, operation, coerced.coerced, sizes);
    if (bytes > limits.maxResponseBytes) return { errors: [responseTooLarge(bytes, limits.maxResponseBytes, operation)] };
    return { document, operation, cost, bytes, variables: coerced.coerced };
  };
}

/**
 * The cost of executing an operation of a valid document: each field resolved counts 1, and a
 * field returning objects adds the cost of its selection, times the number of items for a list.
 * That number is the `limit` (or `samples`) argument (its default when absent, at most the largest limit any
 * list accepts) for a list with one; for a list inside an object returned by a field with a
 * `limit` (`tours(limit: 500) { data { … } }`), that limit; otherwise {@link DEFAULT_LIST_SIZE}
 * (`types`: 100). A list result's `facets(fields, maxValues)` counts each distinct field once, and
 * its values `maxValues` times. Lists of scalars count 1. Fragments count as their definitions, whatever their
 * names, and `@skip`/`@include` are ignored (an upper bound). `__typename` counts 1, and so does
 * an introspection field, which is bounded by validation instead. `search` adds
 * {@link SEARCH_COST_PER_CHARACTER_AND_AREA} per character of its `q` and area it searches.
 *
 * @param variables coerced variable values (graphql-js `getVariableValues`)
 * @returns the cost, at most 1e12
 */
export function measureCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  /** The context of a selection: the `limit` of the field that returned its type, for the lists inside it. */
  const walk = sumSelections<number | undefined>(schema, document, fieldCost, (pageSize) => `${pageSize ?? ''}`);

  function fieldCost(node: FieldNode, parent: GraphQLCompositeType, pageSize: number | undefined): number {
    const name = node.name.value;
    const field: GraphQLField<unknown, unknown> | undefined =
      isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!field || !node.selectionSet || (parent === root && INTROSPECTION_FIELDS.has(name))) return 1;
    const type = getNamedType(field.type);
    if (!isCompositeType(type)) return 1;

    const facets = facetSizes(field, node, variables);
    if (facets) return 1 + facets.fields * walk(node.selectionSet, type, facets.values);
    const limit = limitOf(field, node, variables);
    const isList = isListType(getNullableType(field.type));
    const items = isList ? (limit ?? pageSize ?? (parent === root ? ROOT_LIST_SIZES[name] : undefined) ?? DEFAULT_LIST_SIZE) : 1;
    const search = parent === root && name === SEARCH_FIELD ? searchCost(field, node, variables) : 0;
    return 1 + search + items * walk(node.selectionSet, type, isList ? undefined : limit);
  }

  return Math.min(walk(operation.selectionSet, root, undefined), COST_CEILING);
}

/**
 * Bytes counted for a leaf whose size the snapshot does not tell (paging figures, distances, a
 * field of an area with no records): a number or a short string.
 */
const LEAF_BYTES = 8;

/**
 * An estimate of the JSON bytes of an operation's answer, `{"data":…}` with the sizes of the
 * snapshot it is answered from (server/snapshot/answerSizes.ts): each field counts its key, and a leaf of a
 * record the average bytes of its values there (a station's `raw`: its measured JSON); a list of
 * records counts its `limit` (as {@link measureCost} does) but no more than the records there are,
 * and a list inside a record its average items. Fragments, `@skip`/`@include` and introspection
 * are counted as {@link measureCost} counts them (an introspection field as its key alone).
 *
 * @param variables coerced variable values (graphql-js `getVariableValues`)
 * @returns the estimate in whole bytes, at most 1e12
 */
export function estimateAnswerBytes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  sizes: AnswerSizes,
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  /**
   * The context of a selection: `pageSize` as in measureCost, and `path`, where the object lies
   * in a record (`Activity.info`), or undefined outside records.
   */
  const walk = sumSelections<ByteContext>(schema, document, fieldBytes, ({ pageSize, path }) => `${pageSize ?? ''}\0${path ?? ''}`);

  function fieldBytes(node: FieldNode, parent: GraphQLCompositeType, { pageSize, path }: ByteContext): number {
    const name = node.name.value;
    // `"key":` and the comma before the next field.
    const key = (node.alias ?? node.name).value.length + 4;
    if (name === '__typename') return key + parent.name.length + 2;
    const field: GraphQLField<unknown, unknown> | undefined =
      isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!field || (parent === root && INTROSPECTION_FIELDS.has(name))) return key;
    const type = getNamedType(field.type);
    const fieldPath = path === undefined ? undefined : path === RECORD_ROOT ? `${parent.name}.${name}` : `${path}.${name}`;
    const isList = isListType(getNullableType(field.type));
    if (!isCompositeType(type) || !node.selectionSet) {
      const value = (fieldPath === undefined ? undefined : sizes.bytes.get(fieldPath)) ?? LEAF_BYTES;
      if (!isList) return key + value;
      return key + 2 + (fieldPath === undefined ? DEFAULT_LIST_SIZE : (sizes.items.get(fieldPath) ?? 0)) * (value + 1);
    }

    const facets = facetSizes(field, node, variables);
    if (facets) return key + 2 + facets.fields * (3 + walk(node.selectionSet, type, { pageSize: facets.values, path: undefined }));
    const limit = limitOf(field, node, variables);
    // Entering records from outside them: the items are records of this type, at most as many as there are.
    const records = path === undefined ? sizes.records.get(type.name) : undefined;
    // A union of record types (`SearchHit.item`): each fragment's fields count as its type's.
    const childPath = fieldPath ?? (records !== undefined ? type.name : isAbstractType(type) ? RECORD_ROOT : undefined);
    let items = 1;
    if (isList) {
      // A list inside a record given its length (`elevationProfile(samples:)`) holds that many items, not the average measured.
      items =
        fieldPath !== undefined && limit === undefined
          ? (sizes.items.get(fieldPath) ?? 0)
          : (limit ?? pageSize ?? (parent === root ? ROOT_LIST_SIZES[name] : undefined) ?? DEFAULT_LIST_SIZE);
      if (records !== undefined) items = Math.min(items, records);
    }
    const object = 2 + walk(node.selectionSet, type, { pageSize: isList ? undefined : limit, path: childPath });
    return key + (isList ? 2 + items * (object + 1) : object);
  }

  // `{"data":` and `}`.
  return Math.ceil(Math.min(10 + walk(operation.selectionSet, root, { pageSize: undefined, path: undefined }), COST_CEILING));
}

/**
 * The variables {@link measureCost} reads: those given as a `limit` or `samples` argument anywhere in the
 * document, the one argument it reads (an Int, so a variable there is the whole value). Two sets
 * of coerced variables that agree on these give an operation of the document the same cost.
 */
export function costVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  forEachNode(document, Kind.ARGUMENT, (argument) => {
    if (!COST_ARGUMENTS.has(argument.name.value) && !SEARCH_COST_ARGUMENTS.includes(argument.name.value)) return;
    // `fields: [$a, $b]` and `areas: [$a]` hold their variables inside a list.
    forEachNode(argument.value, Kind.VARIABLE, (variable) => {
      names.add(variable.name.value);
    });
  });
  return [...names];
}

/** What `search` costs besides its fields: {@link SEARCH_COST_PER_CHARACTER_AND_AREA} per character of `q` and area searched. */
function searchCost(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): number {
  const [q, areas] = SEARCH_COST_ARGUMENTS.map((name) => {
    const definition = field.args.find((arg) => arg.name === name);
    return definition === undefined ? undefined : argumentValue(definition, node, variables);
  });
  const characters = typeof q === 'string' ? q.length : 0;
  const areaCount = Array.isArray(areas) ? areas.length : SEARCH_AREAS.length;
  return SEARCH_COST_PER_CHARACTER_AND_AREA * characters * areaCount;
}

/**
 * Refuses an alias on an introspection field or inside its subtree. Without aliases, selections
 * of the same field merge, so an introspection answer is bounded by the size of the schema.
 */
export function NoIntrospectionAliasesRule(context: ValidationContext) {
  return {
    Field(node: FieldNode) {
      if (!node.alias) return;
      const parent = context.getParentType();
      if (INTROSPECTION_FIELDS.has(node.name.value) || (parent && isIntrospectionType(parent))) {
        context.reportError(new GraphQLError(INTROSPECTION_ALIAS_MESSAGE, { nodes: [node] }));
      }
    },
  };
}

const INTROSPECTION_ALIAS_MESSAGE = 'Aliases are not allowed in introspection (__schema, __type)';

/**
 * graphql-js (16.14+) stops OverlappingFieldsCanBeMergedRule past a work budget, for fields
 * repeated or overlapping so often that comparing them would take seconds.
 */
const VALIDATION_ABORTED = 'Validation aborted.';
const VALIDATION_ABORTED_MESSAGE = 'Query repeats or overlaps fields too often to be validated; validation aborted';

/** Messages of validation rules that guard complexity rather than correctness. */
const COMPLEXITY_MESSAGES = new Set(['Maximum introspection depth exceeded', INTROSPECTION_ALIAS_MESSAGE]);

/**
 * The sizes of a list result's `facets(fields, maxValues)`: one facet per distinct field asked,
 * each of at most `maxValues` values (a closed vocabulary has fewer, an open one is cut there);
 * undefined for any other field.
 */
function facetSizes(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): { fields: number; values: number } | undefined {
  const fieldsDefinition = field.args.find((arg) => arg.name === FACET_FIELDS_ARGUMENT);
  const valuesDefinition = field.args.find((arg) => arg.name === FACET_VALUES_ARGUMENT);
  if (!fieldsDefinition || !valuesDefinition) return undefined;
  const fields = argumentValue(fieldsDefinition, node, variables);
  const values = argumentValue(valuesDefinition, node, variables);
  return {
    fields: Array.isArray(fields) ? new Set(fields).size : 0,
    values: typeof values === 'number' ? Math.min(Math.max(values, 0), LARGEST_LIMIT) : DEFAULT_LIST_SIZE,
  };
}

/** The `limit` (or `samples`) a field is given, within what any list accepts; undefined for a field without one. */
function limitOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): number | undefined {
  const definition = field.args.find((arg) => LIMIT_ARGUMENTS.includes(arg.name));
  if (!definition) return undefined;
  const limit = argumentValue(definition, node, variables);
  return typeof limit === 'number' ? Math.min(Math.max(limit, 0), LARGEST_LIMIT) : undefined;
}

/**
 * The value of one argument of a field of a valid document, as graphql-js's getArgumentValues
 * gives it (the literal, the variable's coerced value, or the default), without coercing the
 * field's other arguments, which the walks of every field would pay for and never read.
 * @param variables coerced variable values (graphql-js `getVariableValues`)
 */
function argumentValue(definition: GraphQLArgument, node: FieldNode, variables: Record<string, unknown>): unknown {
  const given = node.arguments?.find((argument) => argument.name.value === definition.name);
  if (!given) return definition.defaultValue;
  if (given.value.kind !== Kind.VARIABLE) return valueFromAST(given.value, definition.type, variables);
  const name = given.value.name.value;
  return Object.hasOwn(variables, name) ? variables[name] : definition.defaultValue;
}

/** The path of a selection on a record of an abstract type: its fields' paths start with the type they are selected on. */
const RECORD_ROOT = '';

/** Where a selection of {@link estimateAnswerBytes} lies: see its walk. */
interface ByteContext {
  pageSize: number | undefined;
  path: string | undefined;
}

/**
 * The walk {@link measureCost} and {@link estimateAnswerBytes} share: sums what `field` gives each
 * field of a selection set, an inline fragment as its selections on its type condition, and a
 * spread as its definition's selections, memoised per fragment and context (`contextKey`), a
 * fragment within itself counting 0; stops at {@link COST_CEILING}. `field` recurses through the
 * returned walk.
 */
function sumSelections<C>(
  schema: GraphQLSchema,
  document: DocumentNode,
  field: (node: FieldNode, parent: GraphQLCompositeType, context: C) => number,
  contextKey: (context: C) => string,
): (selectionSet: SelectionSetNode, type: GraphQLCompositeType, context: C) => number {
  const fragments = fragmentsOf(document);
  const memo = new Map<string, number>();
  const visiting = new Set<string>();

  function walk(selectionSet: SelectionSetNode, type: GraphQLCompositeType, context: C): number {
    let sum = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        sum += field(selection, type, context);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        sum += walk(selection.selectionSet, conditionType(schema, selection.typeCondition?.name.value) ?? type, context);
      } else {
        sum += spread(selection.name.value, context);
      }
      if (sum >= COST_CEILING) return COST_CEILING;
    }
    return sum;
  }

  function spread(name: string, context: C): number {
    const key = `${name}\0${contextKey(context)}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    const type = fragment && conditionType(schema, fragment.typeCondition.name.value);
    if (!fragment || !type || visiting.has(key)) return 0;
    visiting.add(key);
    const sum = walk(fragment.selectionSet, type, context);
    visiting.delete(key);
    memo.set(key, sum);
    return sum;
  }

  return walk;
}

/** The composite type a fragment's condition names, or undefined. */
function conditionType(schema: GraphQLSchema, name: string | undefined): GraphQLCompositeType | undefined {
  const type = name === undefined ? undefined : schema.getType(name);
  return type && isCompositeType(type) ? type : undefined;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

function tooComplex(message: string, at?: GraphQLError | ASTNode): CheckedQuery {
  return { errors: [complexityError(message, at)] };
}

function complexityError(message: string, at?: GraphQLError | ASTNode): GraphQLError {
  const located = at instanceof GraphQLError ? { source: at.source, positions: at.positions } : at ? { nodes: at } : {};
  return new GraphQLError(message, { ...located, extensions: { code: 'QUERY_TOO_COMPLEX' } });
}

/**
 * The refusal of an answer larger than MAX_RESPONSE_BYTES: estimated so before it was built, or
 * grown so while it was written.
 * @param bytes the estimate, or undefined for an answer that grew past the limit
 */
export function responseTooLarge(bytes: number | undefined, maxBytes: number, at?: ASTNode): GraphQLError {
  const size = bytes === undefined ? 'is larger than' : `would be about ${format(bytes)} bytes, more than`;
  return new GraphQLError(`The answer ${size} the limit of ${format(maxBytes)} bytes (MAX_RESPONSE_BYTES); ask for fewer items or fields`, {
    ...(at ? { nodes: at } : {}),
    extensions: { code: 'RESPONSE_TOO_LARGE' },
  });
}

/** graphql-js's wording of a value outside an enum, in validation and in variable coercion. */
const UNKNOWN_ENUM_VALUE = /Value "[^"]*" does not exist in "(\w+)" enum\./;

/**
 * The error with the allowed values named, when it refuses a value outside an enum: graphql-js
 * suggests only values spelt alike, and a client choosing a `sort` needs them all.
 */
function namingAllowedValues(schema: GraphQLSchema, error: GraphQLError): GraphQLError {
  const match = UNKNOWN_ENUM_VALUE.exec(error.message);
  const type = match ? schema.getType(match[1]!) : undefined;
  if (!type || !isEnumType(type)) return error;
  const allowed = type.getValues().map((value) => value.name).join(', ');
  return new GraphQLError(`${error.message} Allowed: ${allowed}.`, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

function format(value: number): string {
  return value.toLocaleString('en-US');
}
