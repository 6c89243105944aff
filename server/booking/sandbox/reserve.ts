/**
 * The command `POST /reservations`: holds places of one availability for {@link HOLD_MS} in a
 * new cart or in one not yet checked out.
 */

import type { ActivityRecord } from '../../../sync/format.ts';
import { isOffered, parseSlotId, type Slot } from '../availability.ts';
import { BookingError } from '../errors.ts';
import type { BookingCall } from '../operations.ts';
import { type ReservationRequest, readReservationRequest } from '../partnerRequests.ts';
import { reservationView, ticketCategoryIdOf, titleOf } from '../partnerViews.ts';
import { unitPrice } from './catalog.ts';
import type { Decision } from './commit.ts';
import type { SandboxContext } from './context.ts';
import { newId } from './ids.ts';
import type { Cart, Money, Reservation } from './records.ts';
import { checkedOut, notFound, refuseExpiredHolds } from './refusals.ts';

/** How long a reservation holds its places: 15 minutes, in ms. */
export const HOLD_MS = 15 * 60 * 1000;

/**
 * Decides a reservation: checks, in this order, the availability, the ticket categories, the
 * cart, the client's held places and the places left.
 *
 * @throws BookingError SLOT_UNAVAILABLE, INVALID_REQUEST, NOT_FOUND, CART_CHECKED_OUT,
 *   HOLD_EXPIRED, CART_FULL, CURRENCY_MISMATCH, HOLD_LIMIT_REACHED or SOLD_OUT
 */
export function createReservation(context: SandboxContext, call: BookingCall, now: number): Decision {
  const request = readReservationRequest(call.body);
  const quantity = request.selection.reduce((sum, entry) => sum + entry.numGuests, 0);
  const { slot, record, price } = reservableSlot(context, request, now);
  refuseOtherCategories(request, slot);
  const cart = request.cartId === undefined ? undefined : cartToFill(context, request.cartId, request.availabilityId, price, now);
  refuseOverHoldLimit(context, call.client, quantity, now);
  refuseSoldOut(context, slot, request.availabilityId, quantity, now);

  const reservation: Reservation = {
    id: newId('rsv'),
    cartId: cart?.id ?? newId('cart'),
    client: call.client,
    slotId: request.availabilityId,
    activityId: slot.activityId,
    date: slot.date,
    startTime: slot.startTime,
    startsAt: slot.startsAt,
    quantity,
    unitPrice: price,
    createdAt: now,
    expiresAt: now + HOLD_MS,
    locale: request.locale ?? 'de-CH',
  };
  const offerLabel = titleOf(record) ?? `Activity ${slot.activityId}`;
  return {
    event: { type: 'reservation_created', at: now, reservation, newCart: cart === undefined },
    status: 201,
    view: () => reservationView(reservation, offerLabel),
  };
}

/**
 * The slot the request names, its activity and price, when the sandbox sells places of it now.
 *
 * @throws BookingError SLOT_UNAVAILABLE saying why not
 */
function reservableSlot({ catalog }: SandboxContext, request: ReservationRequest, now: number): { slot: Slot; record: ActivityRecord; price: Money } {
  const { availabilityId } = request;
  const slot = parseSlotId(availabilityId);
  const record = slot === null ? undefined : catalog.findActivity(slot.activityId, request.locale ?? 'de-CH');
  const price = record === undefined ? null : unitPrice(record);
  if (slot !== null && slot.activityId === request.activityId && record !== undefined && price !== null && record.isBookable && isOffered(slot, now)) {
    return { slot, record, price };
  }
  const reason =
    slot === null ? 'no such availability (closed day, unknown date or start time)'
    : slot.activityId !== request.activityId ? `availability ${availabilityId} belongs to activity ${slot.activityId}, not ${request.activityId}`
    : record === undefined ? `no activity ${slot.activityId}`
    : price === null || !record.isBookable ? `activity ${slot.activityId} is not bookable`
    : 'the availability has started or lies outside the booking window';
  throw new BookingError('SLOT_UNAVAILABLE', `Availability ${availabilityId} cannot be reserved: ${reason}`, { availabilityId, reason });
}

/** @throws BookingError INVALID_REQUEST for a selection naming a category the slot does not have */
function refuseOtherCategories(request: ReservationRequest, slot: Slot): void {
  const categoryId = ticketCategoryIdOf(slot.activityId);
  request.selection.forEach(({ ticketCategoryId }, index) => {
    if (ticketCategoryId !== categoryId) {
      throw new BookingError('INVALID_REQUEST', `selection[${index}].ticketCategoryId ${ticketCategoryId} is not a ticket category of availability ${request.availabilityId}; allowed: ${categoryId}`, {
        field: `selection[${index}].ticketCategoryId`,
        allowed: [categoryId],
      });
    }
  });
}

/**
 * The cart a reservation goes into, when it may take one more at `price`.
 *
 * @throws BookingError NOT_FOUND, CART_CHECKED_OUT, HOLD_EXPIRED, CART_FULL or CURRENCY_MISMATCH
 */
function cartToFill({ state, limits }: SandboxContext, cartId: string, availabilityId: string, price: Money, now: number): Cart {
  const cart = state.carts.get(cartId);
  if (cart === undefined) throw notFound('cart', cartId);
  if (cart.bookingId !== null) throw checkedOut(cart);
  const held = state.reservationsOf(cart);
  refuseExpiredHolds(cart, held, now);
  // Every item of a cart becomes a booking item, listed and answered whole on each read of the
  // booking: the cap keeps that answer small.
  if (held.length >= limits.maxCartItems) {
    throw new BookingError('CART_FULL', `Cart ${cart.id} holds ${limits.maxCartItems} reservations, the most one cart takes; check it out and reserve the rest in a new cart`, {
      cartId: cart.id,
      limit: limits.maxCartItems,
    });
  }
  const other = held.find((reservation) => reservation.unitPrice.currency !== price.currency);
  if (other) {
    throw new BookingError('CURRENCY_MISMATCH', `Cart ${cartId} holds places priced in ${other.unitPrice.currency}; availability ${availabilityId} is priced in ${price.currency}`, {
      cartId,
      cartCurrency: other.unitPrice.currency,
      availabilityCurrency: price.currency,
    });
  }
  return cart;
}

/**
 * Held places are taken from everyone else for 15 minutes without a booking: one client may
 * hold only so many at once.
 *
 * @throws BookingError HOLD_LIMIT_REACHED (429, Retry-After until its first hold expires)
 */
function refuseOverHoldLimit({ state, limits }: SandboxContext, client: string, quantity: number, now: number): void {
  const limit = limits.maxHeldPlaces;
  const { held, firstExpiry } = state.clientHolds(client, now);
  if (held + quantity <= limit) return;
  const retryAfterS = Number.isFinite(firstExpiry) ? Math.max(1, Math.ceil((firstExpiry - now) / 1000)) : Math.ceil(HOLD_MS / 1000);
  throw new BookingError(
    'HOLD_LIMIT_REACHED',
    `This client holds ${held} place${held === 1 ? '' : 's'}; ${quantity} more would exceed the ${limit} one client may hold at once. Check out or let holds expire (the first in ${retryAfterS} s)`,
    { limit, held, requested: quantity },
    { 'Retry-After': String(retryAfterS) },
  );
}

/** @throws BookingError SOLD_OUT when fewer than `quantity` places of the slot are left */
function refuseSoldOut({ state }: SandboxContext, slot: Slot, availabilityId: string, quantity: number, now: number): void {
  const left = state.available(slot, now);
  if (left >= quantity) return;
  throw new BookingError('SOLD_OUT', `Availability ${availabilityId} has ${left} place${left === 1 ? '' : 's'} left, ${quantity} requested`, {
    availabilityId,
    requested: quantity,
    available: left,
  });
}
