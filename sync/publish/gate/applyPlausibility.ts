/** Applying an area's plausibility rules to its records. */

import type { AreaName } from '../../format.ts';
import { valueAt, withCleared } from './fieldPaths.ts';
import { PLAUSIBILITY_RULES, type PlausibilityRule, type RuleContext } from './plausibilityRules.ts';
import type { RecordRejection } from './types.ts';

/** Records after the rules, with what the rules did. */
export interface PlausibilityResult<R> {
  /** Kept records: the same objects when no rule cleared anything, cleaned copies otherwise. */
  records: R[];
  /** Records left out, each with the first reject-record rule it failed. */
  rejected: RecordRejection[];
  /** Per clear-field rule, how many kept records it cleared a field in. */
  cleared: Record<string, number>;
}

/**
 * Applies the area's rules of {@link PLAUSIBILITY_RULES}. Never mutates its input.
 * A record failing a reject-record rule is left out and counted under that rule only.
 */
export function applyPlausibility<R extends object>(
  area: AreaName,
  records: readonly R[],
  context: RuleContext,
): PlausibilityResult<R> {
  const rules = PLAUSIBILITY_RULES[area];
  const kept: R[] = [];
  const rejected: RecordRejection[] = [];
  const cleared: Record<string, number> = {};
  for (const record of records) {
    const failedReject = rules.find((rule) => rule.action === 'reject-record' && failingPaths(rule, record, context).length > 0);
    if (failedReject) {
      rejected.push({ id: idOf(record), rule: failedReject.rule });
      continue;
    }
    let copy = record;
    for (const rule of rules) {
      if (rule.action !== 'clear-field') continue;
      const failing = failingPaths(rule, copy, context);
      if (failing.length === 0) continue;
      copy = withCleared(copy, rule.clears ?? failing);
      cleared[rule.rule] = (cleared[rule.rule] ?? 0) + 1;
    }
    kept.push(copy);
  }
  return { records: kept, rejected, cleared };
}

function failingPaths(rule: PlausibilityRule, record: object, context: RuleContext): string[] {
  return rule.paths.filter((path) => {
    const value = valueAt(record, path);
    return value !== null && value !== undefined && !rule.holds(value, context, path);
  });
}

function idOf(record: object): string | null {
  const id = (record as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
