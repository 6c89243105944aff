/**
 * The error format of the booking interface, the same in both modes:
 * `{ "error": { "code", "message", "details" } }`, where `code` is stable (clients branch on it),
 * `message` is English prose for a developer and `details` is an object, empty when there is
 * nothing to add. docs/booking.md lists every code.
 */

/** Every error code of the booking interface and the HTTP status it is sent with. */
export const ERROR_STATUS = {
  /** The request does not match the documented shape: JSON, field types, parameters, locale. */
  INVALID_REQUEST: 400,
  /** No resource at this path, or no activity, cart, booking or booking item with this id. */
  NOT_FOUND: 404,
  /** The booking interface is off on this server (BOOKING_MODE=off): no path under /v1 is answered. */
  BOOKING_OFF: 404,
  /** The path exists but does not answer this method (`Allow` lists the ones it does). */
  METHOD_NOT_ALLOWED: 405,
  /** Fewer places are left in the slot than requested. */
  SOLD_OUT: 409,
  /** The cart was already checked out (details.bookingId names its booking). */
  CART_CHECKED_OUT: 409,
  /** The booking is already settled. */
  BOOKING_ALREADY_PAID: 409,
  /** Every item of the booking is cancelled: there is nothing left to pay. */
  BOOKING_CANCELLED: 409,
  /** The cart already holds the most reservations one cart takes (details.limit); check it out or start another. */
  CART_FULL: 409,
  /** A request with this Idempotency-Key is still being processed. */
  IDEMPOTENCY_KEY_IN_USE: 409,
  /** A hold of the cart has expired (holds last 15 minutes): reserve again in a new cart. */
  HOLD_EXPIRED: 410,
  /** The request body is over the limit. */
  PAYLOAD_TOO_LARGE: 413,
  /** A request body that is not `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The slot is not offered: unknown or unbookable activity, closed day, started or beyond the booking window. */
  SLOT_UNAVAILABLE: 422,
  /** The cart holds places priced in another currency. */
  CURRENCY_MISMATCH: 422,
  /** The card was declined; the booking stays unpaid and may be paid again. */
  PAYMENT_DECLINED: 422,
  /** The Idempotency-Key was used before for a different request. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** Too many POST/PATCH requests from this client (`Retry-After` says when to retry, in seconds). */
  RATE_LIMITED: 429,
  /**
   * The reservation would take this client over the places it may hold at once (details.limit);
   * `Retry-After` says when its first hold expires. Checking out a cart releases its places too.
   */
  HOLD_LIMIT_REACHED: 429,
  /** A fault on our side; logged in full, never detailed to the client. */
  INTERNAL_SERVER_ERROR: 500,
  /** Proxy mode: the upstream could not be reached or sent an invalid response. */
  UPSTREAM_UNAVAILABLE: 502,
  /**
   * Sandbox mode: the journal could not be read at start or written since; booking stays off
   * until the operator fixes it and restarts, while the query interface goes on.
   */
  BOOKING_UNAVAILABLE: 503,
  /** Proxy mode: the upstream did not answer in time. */
  UPSTREAM_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A refusal to be sent to the client as a JSON error with the status of its code. */
export class BookingError extends Error {
  override name = 'BookingError';
  /** The HTTP status, from {@link ERROR_STATUS}. */
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Machine-readable specifics (ids, the field at fault, what is allowed). */
    readonly details: Record<string, unknown> = {},
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** The JSON body of an error response. */
export function errorBody(code: ErrorCode, message: string, details: Record<string, unknown> = {}): { error: { code: ErrorCode; message: string; details: Record<string, unknown> } } {
  return { error: { code, message, details } };
}
