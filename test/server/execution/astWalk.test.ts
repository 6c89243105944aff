import { getIntrospectionQuery, Kind, parse, visit, type ASTNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { countNodes } from '../../../server/execution/astWalk.ts';

const DOCUMENTS = [
  getIntrospectionQuery(),
  'query Q($l: String = "de-CH", $n: Int) @a { tours(locale: $l, limit: $n) @b(if: true) { total data { id ...F @c } } }',
  'fragment F on Tour @d { name ... on Tour @e { difficulty startPoint { lat lng } } }',
  '{ a: tours(filter: { routeType: "hike", ids: ["x", $y] }) { total } b: stations { total } }',
  'mutation M($input: In!) { book(input: $input) @f { id } } subscription S { s }',
];

/** What graphql-js's visit finds of a kind under a node. */
function visited(root: ASTNode, kind: Kind): number {
  let count = 0;
  visit(root, {
    enter(node) {
      if (node.kind === kind) count++;
    },
  });
  return count;
}

describe('countNodes', () => {
  it.each(DOCUMENTS)('counts every kind as graphql-js visit finds it: %s', (source) => {
    const document = parse(source);
    const kinds = Object.values(Kind);
    expect(kinds.map((kind) => countNodes(document, kind))).toEqual(kinds.map((kind) => visited(document, kind)));
  });

  it('finds what the documents hold, so that the comparison compares something', () => {
    const all = parse(DOCUMENTS.join('\n'));
    expect(countNodes(all, Kind.DIRECTIVE)).toBe(6);
    expect(countNodes(all, Kind.VARIABLE)).toBe(7);
    expect(countNodes(all, Kind.OBJECT_FIELD)).toBe(2);
  });

  it('counts under a node other than the document, the node itself included', () => {
    const document = parse('{ tours(limit: 1) @skip(if: $s) { data { id @include(if: $i) } } stations { total } }');
    const tours = (document.definitions[0] as import('graphql').OperationDefinitionNode).selectionSet.selections[0]!;
    expect(countNodes(tours, Kind.VARIABLE)).toBe(2);
    expect(countNodes(tours, Kind.FIELD)).toBe(3);
  });

  it('stops at atMost', () => {
    const document = parse('{ a @x b @x c @x d @x }');
    expect(countNodes(document, Kind.DIRECTIVE, 1)).toBe(1);
    expect(countNodes(document, Kind.DIRECTIVE, 3)).toBe(3);
    expect(countNodes(document, Kind.DIRECTIVE, 10)).toBe(4);
  });
});
