/**
 * What tracing tells the log: failed exports (rate-limited by tracing/startTracing.ts, one line
 * per interval with the count since the last), and spans left unexported because the grace
 * period of a shutdown ran out before the collector answered.
 */

import { EXPORT_FAILURE_REPORT_INTERVAL_MS, type ExportFailures, type Tracing } from '../../../tracing/startTracing.ts';
import type { Logger } from '../log.ts';
import type { BeforeExit } from '../shutdown.ts';

/** Logs a report of failed exports at warn level. */
export function logExportFailures(logger: Logger): (failures: ExportFailures) => void {
  return (failures) =>
    logger.warn(
      { failedExports: failures.exports, lostSpans: failures.spans, err: failures.error, intervalMs: EXPORT_FAILURE_REPORT_INTERVAL_MS },
      'tracing: span exports failed since the last report; their spans are lost',
    );
}

/** Stops tracing within what is left of the grace period, and logs when that cut the export short. */
export function stopTracingWithin(tracing: Tracing, logger: Logger): BeforeExit {
  return async (leftMs) => {
    const finished = await tracing.shutdown(leftMs);
    if (!finished) logger.warn({ leftMs: Math.round(leftMs) }, 'tracing: the spans still buffered were not exported within the grace period; exiting without them');
  };
}
