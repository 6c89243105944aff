/**
 * Finds and counts the nodes of one kind in a GraphQL syntax tree, for the checks that only need
 * to know how many there are (directives against their limit), whether there is one, or what
 * those nodes hold (the variables given as a `limit`).
 *
 * graphql-js's `visit` would do, but it sets up a handler for each of the 49 kinds of node and
 * keeps a path and the ancestors of every node, for the edits and the visitors that need them,
 * which these checks of every unseen document do not. This walks the same children, those
 * graphql-js names in `QueryDocumentKeys`, with a stack.
 */

import type { ASTNode, Kind } from 'graphql';
import { QueryDocumentKeys } from 'graphql/language/ast.js';

/**
 * Calls `found` with each node of `kind` in the tree under `root` (itself included), in no
 * particular order, until it returns true.
 */
export function forEachNode<K extends Kind>(root: ASTNode, kind: K, found: (node: Extract<ASTNode, { readonly kind: K }>) => boolean | void): void {
  const pending: ASTNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === kind && found(node as Extract<ASTNode, { readonly kind: K }>) === true) return;
    for (const key of QueryDocumentKeys[node.kind]) {
      const child = (node as unknown as Record<string, ASTNode | readonly ASTNode[] | undefined>)[key];
      if (child === undefined || child === null) continue;
      if (Array.isArray(child)) for (const element of child) pending.push(element);
      else pending.push(child as ASTNode);
    }
  }
}

/**
 * The number of nodes of `kind` in the tree under `root` (itself included), counted up to `atMost`.
 * @param atMost stop once this many are found (1: is there one?)
 */
export function countNodes(root: ASTNode, kind: Kind, atMost = Infinity): number {
  let count = 0;
  forEachNode(root, kind, () => ++count >= atMost);
  return count;
}
