/** The refusals several sandbox commands share, as BookingErrors (errors.ts gives their statuses). */

import { BookingError } from '../errors.ts';
import type { Cart, Reservation } from './records.ts';

/** NOT_FOUND for an id of `resource` ("booking item" is answered as `booking_item`). */
export function notFound(resource: string, id: string): BookingError {
  return new BookingError('NOT_FOUND', `No ${resource} with id ${JSON.stringify(id)}`, { resource: resource.replace(' ', '_'), id });
}

/** The refusal of every call once a journal write has failed (the log names the file and cause). */
export function journalFailed(): BookingError {
  return new BookingError('BOOKING_UNAVAILABLE', 'Booking is unavailable: its journal could not be written; it comes back when the operator has restarted the server', {
    reason: 'journal_write_failed',
  });
}

/** CART_CHECKED_OUT: a checked-out cart takes no more reservations and is not checked out again. */
export function checkedOut(cart: Cart): BookingError {
  return new BookingError('CART_CHECKED_OUT', `Cart ${cart.id} is already checked out as booking ${cart.bookingId}`, { cartId: cart.id, bookingId: cart.bookingId });
}

/**
 * A cart with an expired hold can never be checked out, so it takes nothing more either.
 *
 * @param held the cart's reservations
 * @throws BookingError HOLD_EXPIRED (410) naming the expired reservations
 */
export function refuseExpiredHolds(cart: Cart, held: readonly Reservation[], now: number): void {
  const expired = held.filter((reservation) => reservation.expiresAt <= now);
  if (expired.length === 0) return;
  const expiredAt = new Date(Math.min(...expired.map((reservation) => reservation.expiresAt))).toISOString();
  throw new BookingError('HOLD_EXPIRED', `A hold of cart ${cart.id} expired at ${expiredAt} (holds last 15 minutes); reserve again in a new cart`, {
    cartId: cart.id,
    reservationIds: expired.map((reservation) => reservation.id),
    expiredAt,
  });
}
