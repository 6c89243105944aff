/**
 * Validation rules run as one: graphql-js's `visitInParallel`, but looking up a rule's handlers
 * for a kind of node only when the rule names that kind and the document has a node of it.
 *
 * `validate` merges the visitors of its rules with `visitInParallel`, which asks every rule for
 * its handlers of every kind of node there is before it looks at the document, each question a
 * property read (usually missing) on a visitor of another shape: costly for every document not
 * seen before. Yet a rule's visitor names the few kinds it handles (`Field: …`) and may have
 * `enter` and `leave` for every kind; so each visitor's property names are read once, and a
 * kind's handlers are its generic ones unless the visitor names the kind. Handed the one rule made here, `validate` asks one
 * visitor, whose `enter` and `leave` serve every kind.
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
export function combineValidationRules(rules: readonly ValidationRule[]): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const visitors = rules.map((rule) => rule(context));
    // Per rule: null while it runs, the node whose subtree it skips, or BREAK once it stopped.
    const skipping: unknown[] = visitors.map(() => null);
    // A visitor's handlers of the kinds it does not name (getEnterLeaveForKind's last case).
    const anyEnter: (ASTVisitFn<ASTNode> | undefined)[] = [];
    const anyLeave: (ASTVisitFn<ASTNode> | undefined)[] = [];
    // The rules (by index, in order) whose visitor has a property of each name.
    const naming = new Map<string, number[]>();
    for (let i = 0; i < visitors.length; i++) {
      const visitor = visitors[i] as { enter?: ASTVisitFn<ASTNode>; leave?: ASTVisitFn<ASTNode> };
      anyEnter.push(visitor.enter);
      anyLeave.push(visitor.leave);
      for (const name of propertyNames(visitor)) {
        const named = naming.get(name);
        if (named === undefined) naming.set(name, [i]);
        else if (named.at(-1) !== i) named.push(i);
      }
    }
    const byKind = new Map<string, KindHandlers>();

    const handlersOf = (kind: ASTNode['kind']): KindHandlers => {
      let handlers = byKind.get(kind);
      if (handlers === undefined) {
        const enter = anyEnter.slice();
        const leave = anyLeave.slice();
        for (const i of naming.get(kind) ?? []) {
          const own = getEnterLeaveForKind(visitors[i]!, kind);
          enter[i] = own.enter;
          leave[i] = own.leave;
        }
        handlers = { enter, leave };
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

/**
 * Every name under which `visitor[kind]` can find something: the visitor's own properties
 * (enumerable or not) and those of its prototypes (a visitor may be a class's instance), up to
 * Object.prototype, which names no kind of node. A rule's visitor is an object literal, so this
 * is usually one call of Object.getOwnPropertyNames.
 */
function propertyNames(visitor: object): string[] {
  const names: string[] = [];
  for (let object: object | null = visitor; object !== null && object !== Object.prototype; object = Object.getPrototypeOf(object) as object | null) {
    names.push(...Object.getOwnPropertyNames(object));
  }
  return names;
}
