/**
 * The counters of GraphQL requests by operation name and outcome, and of the error codes sent:
 * `graphql_requests_total{operation,outcome}` and `graphql_errors_total{code}`.
 *
 * A client picks its operation names, so they become label values only within a bound: the
 * names of trusted documents, then the first {@link MAX_OPERATION_NAMES} names of operations that
 * passed the checks; every other name is `other`, and an operation without one `anonymous`. A
 * refused request never adds a name: a client cannot fill the set with names it makes up.
 * A request bumps one number; the counters read the tallies at each scrape.
 */

import { Counter, type Registry } from 'prom-client';
import { ERROR_CODES, type ErrorCode } from '../http/formatError.ts';
import type { GraphqlOutcome } from '../http/httpOptions.ts';

/** Most operation names that become label values besides those of trusted documents (per process: per worker in a cluster). */
export const MAX_OPERATION_NAMES = 100;

/** Whether an operation name is that of a trusted document: it is always a label value of its own. */
export type IsTrustedOperation = (name: string) => boolean;

/** Outcomes that tell an operation passed the checks, so that its name may become a label value. */
const PASSED: ReadonlySet<GraphqlOutcome> = new Set(['ok', 'cache_hit', 'error']);

type OutcomeCounts = Record<GraphqlOutcome, number>;

/** What a request updates. */
export interface GraphqlCounters {
  observe(operationName: string | undefined, outcome: GraphqlOutcome, codes: readonly string[] | undefined): void;
}

/**
 * Registers the two counters.
 * @param isTrusted names of trusted documents (read per request, so a reloaded allow-list applies at once); default none
 */
export function registerGraphqlCounters(registry: Registry, isTrusted: IsTrustedOperation = () => false): GraphqlCounters {
  const byOperation = new Map<string, OutcomeCounts>();
  const byCode = new Map<string, number>();
  // Names admitted as label values, trusted ones aside.
  const admitted = new Set<string>();

  function labelOf(name: string | undefined, outcome: GraphqlOutcome): string {
    if (name === undefined) return 'anonymous';
    if (admitted.has(name) || isTrusted(name)) return name;
    if (PASSED.has(outcome) && admitted.size < MAX_OPERATION_NAMES) {
      admitted.add(name);
      return name;
    }
    return 'other';
  }

  new Counter({
    name: 'graphql_requests_total',
    help: `GraphQL requests by operation name (trusted documents', then the first ${MAX_OPERATION_NAMES} seen; the rest "other", none "anonymous") and outcome (ok, cache_hit, error, refused, aborted).`,
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
    collect() {
      // Reset and count in one synchronous step, so two scrapes at once each count once.
      this.reset();
      for (const [operation, counts] of byOperation) {
        for (const [outcome, value] of Object.entries(counts)) if (value > 0) this.inc({ operation, outcome }, value);
      }
    },
  });
  new Counter({
    name: 'graphql_errors_total',
    help: 'GraphQL answers that carried an error code (once per code per answer); codes outside the service\'s own are "OTHER".',
    labelNames: ['code'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [code, value] of byCode) this.inc({ code }, value);
    },
  });

  return {
    observe(operationName, outcome, codes) {
      const label = labelOf(operationName, outcome);
      let counts = byOperation.get(label);
      if (counts === undefined) byOperation.set(label, (counts = { ok: 0, cache_hit: 0, error: 0, refused: 0, aborted: 0 }));
      counts[outcome]++;
      if (codes === undefined) return;
      for (const code of codes) {
        const known = Object.hasOwn(ERROR_CODES, code) ? (code as ErrorCode) : 'OTHER';
        byCode.set(known, (byCode.get(known) ?? 0) + 1);
      }
    },
  };
}
