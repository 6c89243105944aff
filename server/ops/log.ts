/**
 * Structured JSON logs (pino, https://getpino.io), one object per line on stdout. A request's
 * line carries its id, method, path (never the query string: GET variables live there),
 * status, error codes, duration, and for GraphQL its outcome, operation name and document hash
 * (server/http/server.ts); query text, variables and keys are never logged.
 */

import pino, { type DestinationStream, type LevelWithSilent, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Creates the service's logger.
 *
 * @param destination where lines go; default stdout (tests pass a stream to read them)
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'tourism-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // "level":"info" rather than 30: readable without pino's tooling.
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
