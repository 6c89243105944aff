/**
 * Validation rules run as one: graphql-js's `visitInParallel`, but looking up each rule's
 * handlers for a kind of node only when the document has a node of that kind.
 *
 * `validate` merges the visitors of its rules with `visitInParallel`, which asks every rule for
 * its handlers of every kind of node there is (45 kinds × 27 rules here) before it looks at the
 * document. Each question is a property read on a visitor of another shape, and the whole took
 * a sixth of the server's time answering documents it had not seen before (bench's
 * `unseen-documents`, `node --cpu-prof`: graphql-js's `getEnterLeaveForKind`), while a query
 * has a dozen kinds of node. Handed the one rule made here, `validate` asks one visitor, whose
 * `enter` and `leave` serve every kind.
 *
 * The rules see what they see under `visitInParallel`: their own visitor as `this`, the same
 * arguments, and the same skipping (a handler returning false skips that rule over the node's
 * subtree, BREAK ends the rule's walk), so the errors are the same, in the same order.
 */

import { BREAK, getEnterLeaveForKind, type ASTNode, type ASTVisitFn, type ASTVisitor, type ValidationContext, type ValidationRule } from 'graphql';

/** The handlers of the rules for one kind of node, by rule; undefined where a rule has none. */
interface KindHandlers {
  readonly enter: ReadonlyArray<ASTVisitFn<ASTNode> | undefined>;
  readonly leave: ReadonlyArray<ASTVisitFn<ASTNode> | undefined>;
}

/** Runs `rules` as one rule: see the module comment. */
export function rulesInParallel(rules: readonly ValidationRule[]): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const visitors = rules.map((rule) => rule(context));
    // Per rule: null while it runs, the node whose subtree it skips, or BREAK once it stopped.
    const skipping: unknown[] = visitors.map(() => null);
    const byKind = new Map<string, KindHandlers>();

    const handlersOf = (kind: string): KindHandlers => {
      let handlers = byKind.get(kind);
      if (handlers === undefined) {
        const found = visitors.map((visitor) => getEnterLeaveForKind(visitor, kind as ASTNode['kind']));
        handlers = { enter: found.map((f) => f.enter), leave: found.map((f) => f.leave) };
        byKind.set(kind, handlers);
      }
      return handlers;
    };

    return {
      enter(node, key, parent, path, ancestors) {
        const { enter } = handlersOf(node.kind);
        for (let i = 0; i < visitors.length; i++) {
          if (skipping[i] !== null) continue;
          const result = enter[i]?.call(visitors[i], node, key, parent, path, ancestors);
          if (result === undefined) continue;
          if (result === false) skipping[i] = node;
          else if (result === BREAK) skipping[i] = BREAK;
          else return result;
        }
        return undefined;
      },
      leave(node, key, parent, path, ancestors) {
        const { leave } = handlersOf(node.kind);
        for (let i = 0; i < visitors.length; i++) {
          if (skipping[i] === null) {
            const result = leave[i]?.call(visitors[i], node, key, parent, path, ancestors);
            if (result === undefined || result === false) continue;
            if (result === BREAK) skipping[i] = BREAK;
            else return result;
          } else if (skipping[i] === node) {
            skipping[i] = null;
          }
        }
        return undefined;
      },
    };
  };
}
