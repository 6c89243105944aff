/**
 * Structured JSON logs (pino, https://getpino.io), one object per line on stdout. A request's
 * line carries its id, method, path (never the query string: GET variables live there),
 * operation name, status and duration; query text, variables and keys are never logged.
 */

import { randomUUID } from 'node:crypto';
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

/** A client's `x-request-id` is kept when it is a short token: no spaces, quotes or control characters. */
const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * The id of a request: the client's `x-request-id` when sane (so a trace spans proxies), else
 * a new UUID. Echoed in the response's `X-Request-Id` and on every log line of the request.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
