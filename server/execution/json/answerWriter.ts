/**
 * Writes the JSON bytes of a successful answer straight from what the Query fields' resolvers
 * return, copying each record's part from the record bytes cache once it was written. Where it
 * sits in a request: docs/architecture.md.
 *
 * A record's part cannot change: the operations it writes select no field below Query with a
 * resolver of its own (a list's `facets`, the records' `license` and `attribution`, a tour's line
 * fields are executed instead), so it is the record's properties as the selection picks them, and
 * records are frozen once read (server/snapshot/load.ts). A near-me item (server/snapshot/withDistance.ts) is written
 * from what was kept of its record, with its own distance written in.
 *
 * The bytes are those graphql-js's result gives with JSON.stringify: its field order (aliases,
 * fragments and repeated fields merged as it merges them), leaves through their serialize,
 * `__typename` as the type's name. {@link compileAnswerWriter} takes no operation with a directive
 * (@skip and @include depend on the variables), a meta-field other than `__typename`, a field below
 * Query with a resolver of its own or a type with isTypeOf; {@link AnswerWriter.write} gives up on
 * any resolver error, promise, null in a non-null field, value a leaf's serialize refuses, or value
 * JsonWriter would leave to JSON.stringify. The operation is then executed, so its answer, errors
 * included, is exactly the executor's.
 */

import {
  defaultFieldResolver,
  getArgumentValues,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { countNodes } from '../astWalk.ts';
import { isPromise } from '../../util/isPromise.ts';
import type { JsonWriter } from './jsonWriter.ts';
import type { PartWithHoles, RecordBytesCache } from './recordBytesCache.ts';
import { nearItemRecord, nearItemReplaces } from '../../snapshot/withDistance.ts';

/** An operation compiled for {@link compileAnswerWriter}. */
export interface AnswerWriter {
  /**
   * The bytes of `{"data":{…}}` as executing the operation would give them, or null when the
   * operation must be executed instead (see the module comment); null costs what ran of the
   * resolvers, which the execution runs again.
   *
   * @param rootValue the execution's root value (server/execution/deadline.ts), which the resolvers get
   * @param variables the request's variables, coerced (graphql-js getVariableValues)
   * @param cache where records' bytes are copied from and kept; null writes each record field by
   *   field and keeps nothing (the same bytes)
   * @param maxBytes the largest answer allowed, in bytes
   * @throws AnswerTooLargeError (server/execution/json/jsonWriter.ts) once the answer grows past `maxBytes`
   */
  write(
    rootValue: unknown,
    context: unknown,
    variables: Readonly<Record<string, unknown>>,
    cache: RecordBytesCache | null,
    maxBytes: number,
  ): Buffer | null;
}

/** The fields one selection set writes on one object type; its identity keys the record bytes cache. */
interface Selection {
  readonly fields: readonly FieldPlan[];
  /** The key in the record bytes cache of what is kept for copies of records (see {@link writeCopy}). */
  readonly copies: object;
}

/** One field of a selection: what it reads and how its value is written; or a `__typename`. */
type FieldPlan = ValuePlan | TypenamePlan;

interface ValuePlan {
  /** `"key":`, led by a comma for every field but the first. */
  readonly head: Uint8Array;
  readonly typename: null;
  /** The property of the object read (the field's name). */
  readonly name: string;
  readonly shape: Shape;
}

interface TypenamePlan {
  readonly head: Uint8Array;
  /** The type's name as a JSON string. */
  readonly typename: Uint8Array;
}

/** A Query field: its resolver, with what it is called with. */
interface RootPlan extends ValuePlan {
  readonly field: GraphQLField<unknown, unknown>;
  readonly resolve: GraphQLFieldResolver<unknown, unknown>;
  readonly fieldNodes: readonly FieldNode[];
  /** Its arguments when no variable is among them, else null (taken per request, see {@link argumentsOf}). */
  readonly args: Readonly<Record<string, unknown>> | null;
  /**
   * The arguments taken last, with the variables they were taken from: the operation cache
   * hands the same coerced variables to the requests that send the same ones.
   */
  last: { readonly variables: Readonly<Record<string, unknown>>; readonly args: Readonly<Record<string, unknown>> } | null;
}

/** How a value of one output type is written, decided once per field rather than per value. */
type Shape = LeafShape | ListShape | ObjectShape;

interface LeafShape {
  readonly kind: typeof LEAF;
  readonly nonNull: boolean;
  /** Writes a value as its type serializes it; false when graphql-js would refuse it. */
  readonly write: (out: JsonWriter, value: unknown) => boolean;
}

interface ListShape {
  readonly kind: typeof LIST;
  readonly nonNull: boolean;
  readonly item: Shape;
}

interface ObjectShape {
  readonly kind: typeof OBJECT;
  readonly nonNull: boolean;
  readonly selection: Selection;
}

const LEAF = 0;
const LIST = 1;
const OBJECT = 2;

/** The range of GraphQL's Int (its serialize refuses the rest). */
const MIN_INT = -2147483648;
const MAX_INT = 2147483647;

const DATA_OPEN = Buffer.from('{"data":{');
const DATA_CLOSE = Buffer.from('}}');

/** An operation the writer does not take (see the module comment). */
class Unsupported extends Error {}

/**
 * Compiles an operation that passed validation, or returns null for one the writer does not take.
 * @param out the writer its answers are written with (one answer at a time)
 */
export function compileAnswerWriter(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, out: JsonWriter): AnswerWriter | null {
  const queryType = schema.getQueryType();
  if (operation.operation !== 'query' || !queryType || countNodes(document, Kind.DIRECTIVE, 1) > 0) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  let roots: (RootPlan | TypenamePlan)[];
  try {
    roots = planRoots(queryType, operation, fragments);
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
  const plan: OperationPlan = { schema, queryType, operation, fragments, roots };
  return {
    write(rootValue, context, variables, cache, maxBytes) {
      const values = resolveRoots(plan, rootValue, context, variables);
      if (values === null) return null;
      out.begin(maxBytes);
      out.bytes(DATA_OPEN);
      for (let i = 0; i < roots.length; i++) {
        const root = roots[i]!;
        out.bytes(root.head);
        if (root.typename) out.bytes(root.typename);
        else if (!writeValue(out, root.shape, values[i], cache)) return out.end(false);
      }
      out.bytes(DATA_CLOSE);
      return out.end();
    },
  };
}

/** What writing an operation's answer reads of it. */
interface OperationPlan {
  readonly schema: GraphQLSchema;
  readonly queryType: GraphQLObjectType;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly roots: readonly (RootPlan | TypenamePlan)[];
}

/**
 * Plans the Query fields of an operation, and below them the fields of each selection.
 * @throws Unsupported for an operation the writer does not take
 */
function planRoots(queryType: GraphQLObjectType, operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): (RootPlan | TypenamePlan)[] {
  /**
   * Plans the fields selected on `type` under `parents`, in graphql-js's order: `__typename` as
   * the type's name, every other field by `plan`.
   */
  function plansOf<P extends ValuePlan>(
    type: GraphQLObjectType,
    parents: readonly { readonly selectionSet?: SelectionSetNode | undefined }[],
    plan: (field: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[], head: Uint8Array) => P,
  ): (P | TypenamePlan)[] {
    const plans: (P | TypenamePlan)[] = [];
    for (const [key, nodes] of collectFields(type, parents, fragments)) {
      const name = nodes[0]!.name.value;
      const head = headOf(key, plans.length === 0);
      if (name === '__typename') {
        plans.push(typenameOf(type, head));
        continue;
      }
      const field = type.getFields()[name];
      if (!field) throw new Unsupported();
      plans.push(plan(field, nodes, head));
    }
    return plans;
  }

  /** The selection of `fieldNodes` (merged) on `type`. */
  function selectionOf(type: GraphQLObjectType, fieldNodes: readonly FieldNode[]): Selection {
    if (type.isTypeOf) throw new Unsupported();
    const fields = plansOf(type, fieldNodes, (field, nodes, head) => {
      if (field.resolve) throw new Unsupported();
      return { head, typename: null, name: field.name, shape: shapeOf(field.type, nodes) };
    });
    return { fields, copies: {} };
  }

  function shapeOf(type: GraphQLOutputType, nodes: readonly FieldNode[]): Shape {
    const nonNull = isNonNullType(type);
    const nullable = nonNull ? type.ofType : type;
    if (isListType(nullable)) return { kind: LIST, nonNull, item: shapeOf(nullable.ofType, nodes) };
    if (isLeafType(nullable)) return { kind: LEAF, nonNull, write: leafWriterOf(nullable) };
    if (isObjectType(nullable)) return { kind: OBJECT, nonNull, selection: selectionOf(nullable, nodes) };
    throw new Unsupported();
  }

  return plansOf(queryType, [{ selectionSet: operation.selectionSet }], (field, nodes, head) => ({
    head,
    typename: null,
    name: field.name,
    shape: shapeOf(field.type, nodes),
    field,
    resolve: field.resolve ?? defaultFieldResolver,
    fieldNodes: nodes,
    args: argumentsUseVariables(nodes[0]!) ? null : staticArguments(field, nodes[0]!),
    last: null,
  }));
}

/**
 * The values of the Query fields, by their resolvers, in the order of `plan.roots` (undefined for
 * a `__typename`); null when one throws or returns a promise (the execution answers instead).
 */
function resolveRoots(plan: OperationPlan, rootValue: unknown, context: unknown, variables: Readonly<Record<string, unknown>>): unknown[] | null {
  const { schema, queryType, operation, fragments } = plan;
  const values: unknown[] = [];
  for (const root of plan.roots) {
    if (root.typename) {
      values.push(undefined);
      continue;
    }
    const info: GraphQLResolveInfo = {
      fieldName: root.name,
      fieldNodes: root.fieldNodes,
      returnType: root.field.type,
      parentType: queryType,
      path: { prev: undefined, key: responseKeyOf(root.fieldNodes[0]!), typename: queryType.name },
      schema,
      fragments,
      rootValue,
      operation,
      variableValues: variables,
    };
    let value: unknown;
    try {
      const args = root.args ?? argumentsOf(root, variables);
      value = root.resolve(rootValue, args, context, info);
    } catch {
      return null;
    }
    if (isPromise(value)) {
      // Settled by the execution that answers instead; this one is dropped unobserved.
      value.then(undefined, () => {});
      return null;
    }
    values.push(value);
  }
  return values;
}

/** The arguments of a Query field that reads variables; graphql-js's error when they do not coerce. */
function argumentsOf(root: RootPlan, variables: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (root.last?.variables === variables) return root.last.args;
  const args = Object.freeze(getArgumentValues(root.field, root.fieldNodes[0]!, variables));
  root.last = { variables, args };
  return args;
}

/**
 * Writes a field's value as graphql-js completes it; false, having written part of it, when it
 * would be an error or is not written here.
 * @param cache where a frozen object here is looked up and kept; null inside one whose bytes are
 *   being kept, which holds this one's, and when nothing is kept
 */
function writeValue(out: JsonWriter, shape: Shape, value: unknown, cache: RecordBytesCache | null): boolean {
  if (value == null) {
    if (shape.nonNull) return false;
    return out.json(null);
  }
  // graphql-js answers an Error a resolver returned as that error.
  if (value instanceof Error) return false;
  if (shape.kind === LEAF) return shape.write(out, value);
  if (shape.kind === LIST) {
    if (!Array.isArray(value)) return false;
    out.openList();
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.comma();
      if (!writeValue(out, shape.item, value[i], cache)) return false;
    }
    out.closeList();
    return true;
  }
  if (typeof value !== 'object') return false;
  const { selection } = shape;
  if (cache !== null) {
    // Only a frozen object's bytes are kept, and frozen it stays: bytes found need no check of
    // it (Object.isFrozen reads every field).
    const known = cache.get(selection, value) as Uint8Array | undefined;
    if (known !== undefined) {
      out.bytes(known);
      return true;
    }
    const record = nearItemRecord(value);
    if (record !== undefined) return writeCopy(out, selection, value, record, nearItemReplaces(value), cache);
    if (Object.isFrozen(value)) {
      const start = out.written();
      if (!writeFields(out, selection, value, null)) return false;
      cache.set(selection, value, out.since(start));
      return true;
    }
  }
  return writeFields(out, selection, value, cache);
}

/**
 * Writes a near-me item made for this request (server/snapshot/withDistance.ts), which reads as its
 * record but for one field it replaces (the distance): the first item of a frozen record under a
 * selection is written field by field, and what it shares with the record kept around holes for
 * the replaced field; later items are written from that, with their own values in the holes. An
 * item of a record not frozen is written as any object.
 */
function writeCopy(out: JsonWriter, selection: Selection, copy: object, record: object, replaced: string, cache: RecordBytesCache): boolean {
  const { fields } = selection;
  const source = copy as Record<string, unknown>;
  const known = cache.get(selection.copies, record) as PartWithHoles | undefined;
  if (known !== undefined && known.replaced === replaced) {
    const { segments } = known;
    out.bytes(segments[0]!);
    if (segments.length === 1) return true;
    const value = source[replaced];
    if (typeof value === 'function') return false;
    let segment = 1;
    for (const field of fields) {
      if (field.typename || field.name !== replaced) continue;
      if (!writeValue(out, field.shape, value, null)) return false;
      out.bytes(segments[segment++]!);
    }
    return true;
  }
  // As in writeValue: only a frozen record's bytes are kept.
  if (!Object.isFrozen(record)) return writeFields(out, selection, copy, cache);

  const segments: Uint8Array[] = [];
  let segmentStart = out.written();
  out.openObject();
  for (const field of fields) {
    out.bytes(field.head);
    if (field.typename) {
      out.bytes(field.typename);
      continue;
    }
    const value = source[field.name];
    const hole = field.name === replaced;
    if (hole) segments.push(out.since(segmentStart));
    if (typeof value === 'function' || !writeValue(out, field.shape, value, null)) return false;
    if (hole) segmentStart = out.written();
  }
  out.closeObject();
  segments.push(out.since(segmentStart));
  cache.set(selection.copies, record, { replaced, segments });
  return true;
}

function writeFields(out: JsonWriter, selection: Selection, source: object, cache: RecordBytesCache | null): boolean {
  out.openObject();
  for (const field of selection.fields) {
    out.bytes(field.head);
    if (field.typename) {
      out.bytes(field.typename);
      continue;
    }
    // graphql-js's default resolver reads the property, and calls it when it is a function.
    const value = (source as Record<string, unknown>)[field.name];
    if (typeof value === 'function' || !writeValue(out, field.shape, value, cache)) return false;
  }
  out.closeObject();
  return true;
}

/**
 * The writer of a leaf type's values. Those of the built-in scalars that are already of the kind
 * the scalar serializes to are written as they are: graphql-js's serialize returns them unchanged.
 * Anything else goes through serialize, as graphql-js does.
 */
function leafWriterOf(type: GraphQLLeafType): (out: JsonWriter, value: unknown) => boolean {
  const asIs = SERIALIZED_AS_IS.get(type);
  return (out, value) => {
    if (asIs?.(value)) return out.json(value);
    let result: unknown;
    try {
      result = type.serialize(value);
    } catch {
      return false;
    }
    // graphql-js refuses a serialized null or undefined.
    return result != null && out.json(result);
  };
}

/** Per built-in scalar, whether a value is one its serialize returns unchanged. */
const SERIALIZED_AS_IS = new Map<GraphQLLeafType, (value: unknown) => boolean>([
  [GraphQLString, (value) => typeof value === 'string'],
  [GraphQLInt, (value) => typeof value === 'number' && Number.isInteger(value) && value >= MIN_INT && value <= MAX_INT],
  [GraphQLFloat, (value) => typeof value === 'number' && Number.isFinite(value)],
  [GraphQLBoolean, (value) => typeof value === 'boolean'],
]);

/**
 * The fields of selection sets on an object type, by response key in graphql-js's order
 * (its collectFields, internal to graphql-js): a field's first occurrence places its key; inline
 * fragments without a type condition or on this type, and fragment spreads on it (each fragment
 * once), add their fields in place. The schema has no interfaces or unions, so a type condition
 * matches by name.
 */
function collectFields(
  type: GraphQLObjectType,
  parents: readonly { readonly selectionSet?: SelectionSetNode | undefined }[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = responseKeyOf(selection);
        const nodes = fields.get(key);
        if (nodes) nodes.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!selection.typeCondition || selection.typeCondition.name.value === type.name) collect(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments[name];
        if (visited.has(name) || !fragment) continue;
        visited.add(name);
        if (fragment.typeCondition.name.value === type.name) collect(fragment.selectionSet);
      }
    }
  };
  for (const parent of parents) if (parent.selectionSet) collect(parent.selectionSet);
  return fields;
}

function responseKeyOf(node: FieldNode): string {
  return node.alias?.value ?? node.name.value;
}

/** Whether a field's own arguments read a variable (those of the fields below it do not matter here). */
function argumentsUseVariables(node: FieldNode): boolean {
  return (node.arguments ?? []).some((argument) => countNodes(argument.value, Kind.VARIABLE, 1) > 0);
}

/** A validated field's literal arguments, with defaults; Unsupported when graphql-js refuses them (the execution words it). */
function staticArguments(field: GraphQLField<unknown, unknown>, node: FieldNode): Readonly<Record<string, unknown>> {
  try {
    return Object.freeze(getArgumentValues(field, node, {}));
  } catch {
    throw new Unsupported();
  }
}

function typenameOf(type: GraphQLObjectType, head: Uint8Array): TypenamePlan {
  return { head, typename: Buffer.from(JSON.stringify(type.name)) };
}

/** The bytes of `"key":`, after a comma unless first. */
function headOf(key: string, first: boolean): Uint8Array {
  return Buffer.from(`${first ? '' : ','}${JSON.stringify(key)}:`);
}

