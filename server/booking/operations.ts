/**
 * The seven operations of the booking interface, the partner path each one maps to, the path
 * matcher, and the contract between the HTTP layer (routes.ts) and a mode (sandbox.ts, proxy.ts).
 */

import type { IncomingHttpHeaders } from 'node:http';
import type { TicketFileKind } from './ticketFiles.ts';

export type OperationId =
  | 'listActivities'
  | 'listAvailabilities'
  | 'createReservation'
  | 'checkOutCart'
  | 'createPaymentAttempt'
  | 'getBooking'
  | 'cancelBookingItem';

export interface Operation {
  /** Also the operationId in the OpenAPI document. */
  readonly id: OperationId;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** OpenAPI path template; `{id}` is the only parameter. */
  readonly path: string;
  /**
   * The partner's path for the same call (Swiss Activities' booking API carries no version
   * segment), `{id}` as in {@link path}; the proxy appends it to the base URL.
   */
  readonly upstreamPath: string;
}

/** The operations served (and, in proxy mode, the only ones forwarded). */
export const OPERATIONS: readonly Operation[] = [
  // The partner's list of bookable activities is its summaries (one per activity, with prices).
  { id: 'listActivities', method: 'GET', path: '/v1/activities', upstreamPath: '/activities/summaries' },
  { id: 'listAvailabilities', method: 'GET', path: '/v1/activities/{id}/availabilities', upstreamPath: '/activities/{id}/availabilities' },
  { id: 'createReservation', method: 'POST', path: '/v1/reservations', upstreamPath: '/reservations' },
  { id: 'checkOutCart', method: 'PATCH', path: '/v1/carts/{id}/check_out', upstreamPath: '/carts/{id}/check_out' },
  { id: 'createPaymentAttempt', method: 'POST', path: '/v1/bookings/{id}/payment_attempts', upstreamPath: '/bookings/{id}/payment_attempts' },
  { id: 'getBooking', method: 'GET', path: '/v1/bookings/{id}', upstreamPath: '/bookings/{id}' },
  { id: 'cancelBookingItem', method: 'PATCH', path: '/v1/booking_items/{id}/cancel', upstreamPath: '/booking_items/{id}/cancel' },
];

/**
 * The media type of a request body per method: the partner takes PATCH bodies as JSON Merge
 * Patch (RFC 7396) and every other body as plain JSON. The booking interface accepts both on a
 * PATCH, and the proxy sends each body upstream under the type the partner expects.
 */
export const BODY_MEDIA_TYPES = {
  POST: ['application/json'],
  PATCH: ['application/merge-patch+json', 'application/json'],
} as const satisfies Record<'POST' | 'PATCH', readonly string[]>;

/** The partner path of a call: `upstreamPath` with its `{id}` filled in. */
export function upstreamPathOf(operation: Operation, id: string | undefined): string {
  return id === undefined ? operation.upstreamPath : operation.upstreamPath.replace('{id}', id);
}

/** Where the OpenAPI description is served (GET, HEAD). */
export const OPENAPI_PATH = '/v1/openapi.json';

/**
 * An `{id}` is one path segment of letters, digits, `_` and `-`, 1 to 128 characters. Nothing
 * percent-encoded, no dots: a path that matches is one of the seven shapes as the upstream reads
 * it, so no request can reach another upstream path (`..`, `%2F`).
 */
export const ID_PATTERN = '[A-Za-z0-9_-]{1,128}';

const MATCHERS = OPERATIONS.map((operation) => ({
  operation,
  regex: new RegExp(`^${operation.path.replace('{id}', `(${ID_PATTERN})`)}$`),
}));

/**
 * Finds the operations whose path template matches a request path.
 *
 * @returns the operations of that path (one per method) and its `{id}`, or null when the path is
 *   none of the seven
 */
export function matchPath(path: string): { operations: Operation[]; id: string | undefined } | null {
  const operations: Operation[] = [];
  let id: string | undefined;
  for (const { operation, regex } of MATCHERS) {
    const match = regex.exec(path);
    if (match) {
      operations.push(operation);
      id = match[1];
    }
  }
  return operations.length === 0 ? null : { operations, id };
}

/** One checked request, as a mode receives it. */
export interface BookingCall {
  readonly operation: Operation;
  /** The request path, one of the seven shapes, e.g. `/v1/bookings/bkg_1a2b`. */
  readonly path: string;
  /** The `{id}` path parameter; undefined for paths without one. */
  readonly id: string | undefined;
  /** The query, with `locale` (when given) already checked and written in the underscore form. */
  readonly query: URLSearchParams;
  /** The raw request body (empty for GET), at most the body limit. */
  readonly body: Buffer;
  readonly headers: IncomingHttpHeaders;
  /** Who sent it: the client address, as for the rate limit (server/http/clientAddress.ts). */
  readonly client: string;
  /** Present when the request carries an Idempotency-Key (POST and PATCH only). */
  readonly idempotency: { readonly key: string; readonly fingerprint: string } | undefined;
}

/** A complete response: status, headers and body bytes. */
export interface BookingReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** One mode of the booking interface. */
export interface BookingBackend {
  /**
   * Answers one call. Refusals are thrown as BookingError; any other rejection is an internal
   * error.
   */
  execute(call: BookingCall): Promise<BookingReply>;
  /**
   * Sandbox only: one file of a ticket (ticketFiles.ts), answering `If-None-Match` with a 304.
   * Refusals are thrown as BookingError.
   */
  ticketFile?(ticketId: string, kind: TicketFileKind, headers: IncomingHttpHeaders): Promise<BookingReply>;
  /** Releases files and connections; waits for journal writes in flight. */
  close(): Promise<void>;
}

/** Content type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON response. */
export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): BookingReply {
  return { status, headers: { ...headers, 'content-type': JSON_CONTENT_TYPE }, body: Buffer.from(JSON.stringify(value)) };
}

/**
 * Where the booking interface reports what an operator should know. Every call passes one
 * string, so both `console` and a pino logger fit.
 */
export interface BookingLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
