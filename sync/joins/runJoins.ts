/**
 * Runs every join of {@link JOINS} on a run's fetched sources, between fetching and publishing.
 * The joins themselves are pure; this step reads what they need of the sources this run did not
 * fetch from the current snapshot.
 */

import type { SourceName } from '../format.ts';
import { readCurrentRecords } from '../publish/currentRecords.ts';
import type { SourceOutcome } from '../publish/report.ts';
import { type JoinInput, JOINS } from './index.ts';

/**
 * Replaces the fetched data of each join's target in `outcomes` with the join's result (the
 * outcome objects are replaced, never changed). A source this run fetched is read from its
 * outcome; any other from the snapshot in `dataDir`.
 *
 * @throws Error when a file of the current snapshot cannot be read or fails its sha256
 */
export async function runJoins(dataDir: string, outcomes: Partial<Record<SourceName, SourceOutcome>>): Promise<void> {
  for (const join of JOINS) {
    const target = outcomes[join.target];
    if (!target?.ok) continue;
    const inputs: Partial<Record<SourceName, JoinInput>> = {};
    for (const name of join.reads) {
      const outcome = outcomes[name];
      if (outcome?.ok) {
        const input: Record<string, Record<string, unknown[]>> = {};
        for (const [locale, areas] of Object.entries(outcome.fetched.locales)) {
          input[locale] = Object.fromEntries(Object.entries(areas ?? {}).map(([area, batch]) => [area, batch.records]));
        }
        inputs[name] = input as JoinInput;
      } else {
        const current = await readCurrentRecords(dataDir, name);
        if (current) inputs[name] = current as JoinInput;
      }
    }
    const data = join.run(target.fetched, inputs);
    outcomes[join.target] = { ok: true, fetched: { ...data, fetchedAt: target.fetched.fetchedAt } };
  }
}
