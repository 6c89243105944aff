import { type Cors, createCors } from '../http/cors.ts';

/**
 * Creates the CORS policy of the booking paths: the same origins as the query interface
 * (server/http/cors.ts: `allowedOrigins` plus localhost on any port), with the booking methods
 * (PATCH) and headers (Idempotency-Key) granted in preflights and Retry-After and
 * Idempotent-Replayed exposed. Returns true when it answered the request (a preflight, always 204).
 *
 * @throws Error as createCors when an allowed origin is malformed
 */
export function createBookingCors(allowedOrigins: readonly string[]): Cors {
  return createCors(allowedOrigins, {
    methods: 'GET, POST, PATCH, OPTIONS',
    requestHeaders: new Set(['accept', 'accept-language', 'content-type', 'idempotency-key', 'x-request-id']),
    exposedHeaders: 'Retry-After, Idempotent-Replayed, Allow',
  });
}
