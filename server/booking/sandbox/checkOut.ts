/** The command `PATCH /carts/{id}/check_out`: turns a cart's holds into an unpaid booking. */

import type { Locale } from '../../snapshot/locales.ts';
import { BookingError } from '../errors.ts';
import type { BookingCall } from '../operations.ts';
import { readCheckOutRequest } from '../partnerRequests.ts';
import { titleOf } from '../partnerViews.ts';
import type { Decision } from './commit.ts';
import type { SandboxContext } from './context.ts';
import { newId } from './ids.ts';
import type { BookingItem, Customer, Reservation } from './records.ts';
import { checkedOut, notFound, refuseExpiredHolds } from './refusals.ts';
import { fullBookingView } from './views.ts';

/**
 * Decides a check-out: one booking item per reservation of the cart, in the language the cart
 * was filled in.
 *
 * @throws BookingError INVALID_REQUEST, NOT_FOUND, CART_CHECKED_OUT, HOLD_EXPIRED or
 *   SLOT_UNAVAILABLE (an availability of the cart has started)
 */
export function checkOutCart(context: SandboxContext, call: BookingCall, now: number): Decision {
  const { user, partnerReference } = readCheckOutRequest(call.body);
  const customer: Customer = { firstName: user.givenName, lastName: user.familyName, email: user.email, phone: user.phone, countryCode: user.countryCode };

  const cart = context.state.carts.get(call.id!);
  if (cart === undefined) throw notFound('cart', call.id!);
  if (cart.bookingId !== null) throw checkedOut(cart);
  const held = context.state.reservationsOf(cart);
  refuseExpiredHolds(cart, held, now);
  // The booking speaks the language its cart was filled in.
  const locale = held[0]?.locale ?? 'de-CH';
  const started = held.find((reservation) => Date.parse(reservation.startsAt) <= now);
  if (started) {
    throw new BookingError('SLOT_UNAVAILABLE', `Cart ${cart.id} cannot be checked out: availability ${started.slotId} has started`, {
      availabilityId: started.slotId,
      reason: 'the availability has started',
    });
  }

  const bookingId = newId('bkg');
  const items = held.map((reservation) => bookingItemOf(context, reservation, bookingId, locale));
  const booking = { id: bookingId, cartId: cart.id, partnerReference, locale, customer, createdAt: now };
  return {
    event: { type: 'cart_checked_out', at: now, booking, items },
    status: 200,
    // A booking fresh from check-out is unpaid, so it has no tickets yet.
    view: () => fullBookingView(context, context.state.bookings.get(bookingId)!, []),
  };
}

/** The booking item a reservation becomes, titled as the snapshot names its activity now in the booking's `locale`. */
function bookingItemOf({ catalog }: SandboxContext, reservation: Reservation, bookingId: string, locale: Locale): BookingItem {
  const record = catalog.findActivity(reservation.activityId, locale);
  return {
    id: newId('itm'),
    bookingId,
    reservationId: reservation.id,
    activityId: reservation.activityId,
    title: record ? titleOf(record) : null,
    slotId: reservation.slotId,
    date: reservation.date,
    startTime: reservation.startTime,
    startsAt: reservation.startsAt,
    quantity: reservation.quantity,
    unitPrice: reservation.unitPrice,
    cancelledAt: null,
    cancellationReason: null,
  };
}
