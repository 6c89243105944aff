import {
  BREAK,
  getIntrospectionQuery,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type ASTNode,
  type ValidationRule,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { resolvers } from '../../../server/resolvers/index.ts';
import { combineValidationRules } from '../../../server/execution/combineValidationRules.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';

const schema = createSchema(readSdl(), resolvers);
const rules = [...specifiedRules, NoSchemaIntrospectionCustomRule];

/** What a client sees of validation errors: message, locations and path, in order. */
function seen(source: string, ruleList: readonly ValidationRule[], maxErrors?: number) {
  return validate(schema, parse(source), ruleList, maxErrors === undefined ? undefined : { maxErrors }).map((error) => error.toJSON());
}

// Documents that break one or more rules each, and some that break none.
const DOCUMENTS = [
  '{ tours(limit: 2) { total data { id name distance_km } } }',
  'query Q($l: String) { activities(locale: $l) { data { id title } } stations { total } }',
  getIntrospectionQuery(),
  '{ tours { data { nope } } }',
  '{ tours(limit: "two") { total } }',
  'query Q($unused: Int) { tours { total } }',
  'query Q { tours(limit: $undefined) { total } }',
  '{ tours { data { id } } } { stations { total } }',
  'query A { tours { total } } query A { stations { total } }',
  'fragment F on Tour { id ...G } fragment G on Tour { ...F } { tours { data { ...F } } }',
  'fragment Unused on Tour { id } { tours { total } }',
  '{ tours { data { ...Missing } } }',
  '{ tours { data { id: name id } } }',
  '{ tours(limit: 1, limit: 2) { total } }',
  '{ tours @skip(if: true) @skip(if: false) { total } }',
  '{ tours @nope { total } }',
  '{ tours { data } }',
  'query Q($b: Boolean!) { tours { total @include(if: $b) data { id @skip(if: $b) } } }',
  'query Q($x: NoSuchType) { tours { total } }',
  '{ tours(nearLat: 1) { total } }',
  'subscription S { tours { total } }',
  'mutation M { tours { total } }',
];

describe('combineValidationRules', () => {
  it.each(DOCUMENTS)('gives the errors of the rules run by graphql-js, in the same order: %s', (source) => {
    expect(seen(source, [combineValidationRules(rules)])).toEqual(seen(source, rules));
  });

  it('finds errors in the documents above, so that the comparison compares something', () => {
    const failing = DOCUMENTS.filter((source) => seen(source, rules).length > 0);
    expect(failing.length).toBeGreaterThan(15);
  });

  it('stops at the same error when the errors reach maxErrors', () => {
    const source = `{ ${Array.from({ length: 8 }, (_, i) => `a${i}: nope${i}`).join(' ')} }`;
    const expected = seen(source, rules, 3);
    expect(expected.at(-1)?.message).toMatch(/Too many validation errors/);
    expect(seen(source, [combineValidationRules(rules)], 3)).toEqual(expected);
  });

  it('skips a subtree for the one rule that asked, and ends the walk of a rule that returned BREAK', () => {
    // Each rule records the fields it enters and leaves; the skipping rule skips `data`, the
    // breaking rule stops at `name`. Run once merged, once as graphql-js merges them.
    const walk = (ruleList: (log: string[]) => ValidationRule[]) => {
      const log: string[] = [];
      validate(schema, parse('{ tours { data { id name difficulty } total } stations { total } }'), ruleList(log));
      return log;
    };
    const recording = (log: string[]): ValidationRule[] => {
      const field = (who: string, onEnter: (node: ASTNode & { kind: Kind.FIELD }) => unknown) => () => ({
        Field: {
          enter(node: ASTNode & { kind: Kind.FIELD }) {
            log.push(`${who} enters ${node.name.value}`);
            return onEnter(node);
          },
          leave(node: ASTNode & { kind: Kind.FIELD }) {
            log.push(`${who} leaves ${node.name.value}`);
          },
        },
      });
      return [
        field('skipper', (node) => (node.name.value === 'data' ? false : undefined)),
        field('breaker', (node) => (node.name.value === 'name' ? BREAK : undefined)),
        field('watcher', () => undefined),
      ];
    };
    const merged = walk((log) => [combineValidationRules(recording(log))]);
    expect(merged).toEqual(walk(recording));
    expect(merged).not.toContain('skipper enters id');
    expect(merged).toContain('skipper enters stations');
    expect(merged).toContain('watcher enters id');
    expect(merged).not.toContain('breaker enters difficulty');
    expect(merged).toContain('watcher enters difficulty');
  });

  it('asks a visitor only for the kinds it names that the document has, and for its handlers of every kind', () => {
    const asked = new Set<string>();
    const rule: ValidationRule = () =>
      new Proxy(
        { Field() {}, FragmentDefinition() {} },
        {
          get(target, key, receiver) {
            if (typeof key === 'string') asked.add(key);
            return Reflect.get(target, key, receiver) as unknown;
          },
        },
      );
    validate(schema, parse('{ tours { total } }'), [combineValidationRules([rule])]);
    expect([...asked].sort()).toEqual([Kind.FIELD, 'enter', 'leave']);
  });

  it('finds handlers wherever graphql-js does: not enumerable, on a prototype, generic beside named', () => {
    const log: string[] = [];
    class Visitor {
      OperationDefinition(node: ASTNode & { kind: Kind.OPERATION_DEFINITION }) {
        log.push(`class enters ${node.operation}`);
      }
    }
    const hidden = Object.defineProperty({}, Kind.FIELD, {
      enumerable: false,
      value: (node: ASTNode & { kind: Kind.FIELD }) => void log.push(`hidden enters ${node.name.value}`),
    });
    const both = {
      enter: (node: ASTNode) => void log.push(`generic enters ${node.kind}`),
      Field: { leave: (node: ASTNode & { kind: Kind.FIELD }) => void log.push(`both leaves ${node.name.value}`) },
    };
    const ruleList: ValidationRule[] = [() => new Visitor(), () => hidden, () => both];
    const walk = (list: readonly ValidationRule[]) => {
      log.length = 0;
      validate(schema, parse('{ tours { total } }'), list);
      return [...log];
    };
    const expected = walk(ruleList);
    expect(expected).toEqual(expect.arrayContaining(['class enters query', 'hidden enters total', 'generic enters SelectionSet', 'both leaves tours']));
    expect(expected).not.toContain('generic enters Field');
    expect(walk([combineValidationRules(ruleList)])).toEqual(expected);
  });
});
