/**
 * The publish gate's `record-limits` rule: a record past one of the limits every record of a
 * snapshot keeps within (RECORD_LIMITS in sync/format.ts, the server's load checks the same) is
 * left out, so that a version the sync publishes always loads. It runs before the text rules,
 * which then never meet a string longer than the server would read.
 */

import { recordLimitFault, type AreaName } from '../format.ts';
import type { AreaBatch, Rejection, SourceData } from '../source.ts';

/** The rule's name in rejections and the gate's report. */
export const RECORD_LIMITS_RULE = 'record-limits';

/** An area's records within the limits, and a rejection for each of the others. */
export function limitRecords<R>(records: readonly R[]): { records: R[]; rejected: Rejection[] } {
  const kept: R[] = [];
  const rejected: Rejection[] = [];
  for (const record of records) {
    const fault = recordLimitFault(record);
    if (fault === null) kept.push(record);
    else rejected.push({ id: idOf(record), reason: fault, rule: RECORD_LIMITS_RULE });
  }
  return { records: kept, rejected };
}

/**
 * A source's data with every batch's records past the limits left out; their rejections join
 * the batch's. The counts the upstream declared and sent stay as they were.
 */
export function limitRecordsData(data: SourceData): SourceData {
  const locales: Record<string, Record<string, AreaBatch<unknown>>> = {};
  for (const [locale, areas] of Object.entries(data.locales)) {
    const out: Record<string, AreaBatch<unknown>> = {};
    for (const [area, batch] of Object.entries(areas ?? {}) as [AreaName, AreaBatch<unknown>][]) {
      const { records, rejected } = limitRecords(batch.records);
      out[area] = rejected.length === 0 ? batch : { ...batch, records, rejected: [...batch.rejected, ...rejected] };
    }
    locales[locale] = out;
  }
  return { ...data, locales: locales as SourceData['locales'] };
}

function idOf(record: unknown): string | null {
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
