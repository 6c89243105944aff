/** The id that ties a request's answer to its log lines. */

import { randomUUID } from 'node:crypto';

/** A client's `x-request-id` is kept when it is a short token: no spaces, quotes or control characters. */
const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * The id of a request: the client's `x-request-id` when sane (so a trace spans proxies), else
 * a new UUID. Echoed in the response's `X-Request-Id` and on every log line of the request.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
