/**
 * Literal templates: documents that differ only in the scalar literals of their field arguments
 * (`tours(nearLat: 46.68, nearLng: 7.86)`, then `tours(nearLat: 46.69, nearLng: 7.84)`, as a map
 * client that writes its values into the query sends them) share one template, the document with
 * each such literal replaced by a variable (`tours(nearLat: $_0, nearLng: $_1)`). The operation
 * cache (server/execution/engine.ts) checks and compiles the template once and answers each
 * document as the template with the literals' values as variables, so a new document of a known
 * template costs a parse rather than a validation, which costs many times a parse.
 *
 * Only a literal whose value means the same as a variable can become one: an Int, Float, String
 * or Boolean literal given directly to a field argument whose type is one of those scalars or ID
 * (possibly non-null). Their literal parsing (`parseLiteral`) and their variable coercion
 * (`parseValue`) give the same value, and an argument given a variable takes its coerced value
 * as it is (graphql-js `getArgumentValues`). Arguments of directives, lists, input objects,
 * enums and null stay in the template's text, so documents that differ in them have different
 * templates.
 */

import {
  Kind,
  TypeInfo,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  getNullableType,
  isScalarType,
  type ConstValueNode,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/** Stands for a literal in a template's key: no valid document holds it (GraphQL source excludes U+0000). */
const HOLE = '\u0000';

/** Scalars whose literal and variable forms give the same value (graphql-js's specified scalars). */
const SAME_AS_VARIABLE = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

/** Literal kinds that may become a variable. */
const HOLE_KINDS: ReadonlySet<string> = new Set([Kind.INT, Kind.FLOAT, Kind.STRING, Kind.BOOLEAN]);

/** The literals of a document that its template replaces by variables. */
export interface Holes {
  /** The document's text with each literal replaced by {@link HOLE}: equal for documents of one template. */
  readonly key: string;
  /** The literals, in the order of the text. */
  readonly literals: readonly ConstValueNode[];
}

/** A template: its text, and the type of the variable each literal becomes. */
export interface Template {
  /** The template's document text, with `$_0`, `$_1`… defined on its operation. */
  readonly query: string;
  /** The variables' types, by literal. */
  readonly types: readonly GraphQLInputType[];
}

/**
 * Finds the literals a template would replace. Only a document with exactly one operation, a
 * query, has a template: the variables are defined on it, and it uses every fragment.
 * @param query the document's text, which `document` was parsed from (with locations)
 * @returns null when the document has no such literal or no template
 */
export function findHoles(document: DocumentNode, query: string): Holes | null {
  let operations = 0;
  const literals: ConstValueNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      if (definition.operation !== 'query' || ++operations > 1) return null;
      collect(definition.selectionSet, literals);
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      collect(definition.selectionSet, literals);
    } else {
      return null;
    }
  }
  if (literals.length === 0 || operations === 0) return null;
  // Definitions come in the order of the text, and so do the literals collected from each.
  literals.sort((a, b) => a.loc!.start - b.loc!.start);
  return { key: splice(query, literals.map((literal) => ({ start: literal.loc!.start, end: literal.loc!.end, text: HOLE }))), literals };
}

/** `text` with each span replaced by its own text; the spans in order, none overlapping. */
function splice(text: string, edits: readonly { start: number; end: number; text: string }[]): string {
  let spliced = '';
  let from = 0;
  for (const edit of edits) {
    spliced += text.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  return spliced + text.slice(from);
}

function collect(selectionSet: SelectionSetNode, literals: ConstValueNode[]): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) continue;
    if (selection.kind === Kind.FIELD) {
      for (const argument of selection.arguments ?? []) {
        if (HOLE_KINDS.has(argument.value.kind)) literals.push(argument.value as ConstValueNode);
      }
    }
    if (selection.selectionSet) collect(selection.selectionSet, literals);
  }
}

/**
 * Writes the template of a document whose literals are `holes`: each literal becomes `$_<i>` of
 * its argument's type, defined on the operation.
 * @param document a valid document (the checker passed it), parsed from `query`
 * @returns null when an argument's type is not one whose literal means the same as a variable,
 *   or the document already names a variable `_<digits>`
 */
export function writeTemplate(schema: GraphQLSchema, document: DocumentNode, query: string, holes: Holes): Template | null {
  const index = new Map<ValueNode, number>(holes.literals.map((literal, i) => [literal, i]));
  const types: (GraphQLInputType | undefined)[] = new Array(holes.literals.length);
  const typeInfo = new TypeInfo(schema);
  let clash = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Variable(node) {
        if (/^_\d+$/.test(node.name.value)) clash = true;
      },
      Argument(node) {
        const i = index.get(node.value);
        if (i !== undefined) types[i] = typeInfo.getArgument()?.type;
      },
    }),
  );
  if (clash) return null;
  for (const type of types) {
    const scalar = type && getNullableType(type);
    if (!scalar || !isScalarType(scalar) || !SAME_AS_VARIABLE.has(scalar.name)) return null;
  }

  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const definitions = types.map((type, i) => `$_${i}: ${String(type)}`).join(', ');
  // Where the definitions go: after the last variable definition, after the name, or before the
  // selection set of `query {…}` and of the shorthand `{…}` (which needs the keyword added).
  const existing = operation.variableDefinitions ?? [];
  let at: number;
  let insert: string;
  if (existing.length > 0) {
    at = existing[existing.length - 1]!.loc!.end;
    insert = `, ${definitions}`;
  } else if (operation.name) {
    at = operation.name.loc!.end;
    insert = `(${definitions})`;
  } else {
    at = operation.loc!.start;
    const shorthand = query.charCodeAt(at) === 123; /* { */
    if (!shorthand) at += 'query'.length;
    insert = shorthand ? `query (${definitions}) ` : ` (${definitions})`;
  }

  const edits = [{ start: at, end: at, text: insert }, ...holes.literals.map((literal, i) => ({ start: literal.loc!.start, end: literal.loc!.end, text: `$_${i}` }))];
  edits.sort((a, b) => a.start - b.start);
  return { query: splice(query, edits), types: types as GraphQLInputType[] };
}

/**
 * The values of a document's literals as the variables of its template, merged with the
 * variables it was sent with.
 * @returns null when a literal is not a value of its type (the document is invalid: the checker
 *   words why)
 */
export function templateVariables(
  template: Template,
  holes: Holes,
  sent: Readonly<Record<string, unknown>> | null | undefined,
): Record<string, unknown> | null {
  const variables: Record<string, unknown> = { ...sent };
  for (let i = 0; i < holes.literals.length; i++) {
    const value = valueFromAST(holes.literals[i]!, template.types[i]!);
    if (value === undefined) return null;
    variables[`_${i}`] = value;
  }
  return variables;
}
