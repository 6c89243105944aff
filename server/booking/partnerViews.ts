/**
 * The response bodies the sandbox answers, in the partner's shapes (Swiss Activities' booking
 * API, as far as its website reads them) with the few fields of ours marked "assumed" in
 * docs/booking.md; openapi.ts describes every one. Pure functions of the sandbox's records.
 *
 * The sandbox sells each activity as one offer (its `offerId` is the activity id) with one ticket
 * category (adults, at the activity's starting price), and each slot as one availability.
 */

import type { ActivityRecord } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import type { Slot } from './availability.ts';
import { BOOKING_LOCALES } from './bookingLocale.ts';
import type { Booking, BookingItem, Money, Payment, Reservation } from './sandbox/records.ts';

/** The ticket category id of an activity's one sandbox category. */
export function ticketCategoryIdOf(activityId: number): number {
  return activityId * 100 + 1;
}

const ADULT = { 'de-CH': 'Erwachsene', 'en-CH': 'Adult', 'fr-CH': 'Adulte', 'it-CH': 'Adulto' } as const satisfies Record<Locale, string>;

/** `{ amount, currency, formatted }`, the amount a decimal string (no float rounding). */
export function moneyView(value: Money) {
  const amount = (value.cents / 100).toFixed(2);
  return { amount, currency: value.currency, formatted: `${value.currency} ${amount}` };
}

function times(value: Money, count: number): Money {
  return { cents: value.cents * count, currency: value.currency };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One entry of `GET /activities/summaries`. */
export function activitySummaryView(record: ActivityRecord, price: Money | null, bookable: boolean) {
  const priced = price === null ? null : moneyView(price);
  return {
    activityId: record.bookingId,
    contentApiActivityId: record.id,
    startingPrice: priced,
    minPrice: priced,
    maxPrice: priced,
    popularity: record.summary.popularity,
    durations: [] as string[],
    discount: null,
    cancellation: null,
    numOffers: bookable ? 1 : 0,
  };
}

/** The activity's one ticket category, labelled in `locale`. */
export function ticketCategoryView(activityId: number, price: Money, locale: Locale) {
  return {
    ticketCategoryId: ticketCategoryIdOf(activityId),
    label: { formatted: ADULT[locale], audience: ADULT[locale], discount: null },
    audience: 'adult',
    description: null,
    price: moneyView(price),
    occupancyType: 'fixed',
    occupancy: 1,
    maxOccupancy: null,
    minAge: null,
    maxAge: null,
  };
}

/**
 * The answer of `GET /activities/{id}/availabilities`: an array of offers, empty when the
 * activity has no slot in the range or cannot be booked.
 *
 * @param available places neither booked nor held, per slot
 */
export function offersView(record: ActivityRecord, price: Money | null, slots: readonly Slot[], available: (slot: Slot) => number, locale: Locale) {
  if (price === null || slots.length === 0) return [];
  const category = ticketCategoryView(record.bookingId, price, locale);
  return [
    {
      offerId: record.bookingId,
      contentApiOfferId: null,
      offerLabel: titleOf(record) ?? `Activity ${record.bookingId}`,
      availabilities: slots.map((slot) => ({
        availabilityId: slot.id,
        startsAt: slot.startsAt,
        isAllDay: false,
        cancellableUntil: null,
        ticketCategoryIds: [category.ticketCategoryId],
        capacity: slot.capacity,
        numAvailable: available(slot),
      })),
      ticketCategories: [category],
    },
  ];
}

/** The answer of `POST /reservations`. */
export function reservationView(reservation: Reservation, offerLabel: string) {
  const locale = reservation.locale ?? 'de-CH';
  const category = ticketCategoryView(reservation.activityId, reservation.unitPrice, locale);
  const total = moneyView(times(reservation.unitPrice, reservation.quantity));
  return {
    reservationId: reservation.id,
    cart: { cartId: reservation.cartId },
    activityId: reservation.activityId,
    offerId: reservation.activityId,
    availabilityId: reservation.slotId,
    locale: BOOKING_LOCALES[locale],
    startsAt: reservation.startsAt,
    endsAt: null,
    isAllDay: false,
    cancellableUntil: null,
    ticketReservations: [
      {
        ticketReservationId: `tres_${reservation.id.slice(reservation.id.indexOf('_') + 1)}`,
        ticketCategory: category,
        ticketCategoryLabel: category.label.formatted,
        offer: { label: offerLabel },
        seatPrice: category.price,
        totalPrice: total,
        guests: Array.from({ length: reservation.quantity }, () => ({ occupancy: 1 })),
      },
    ],
    totalPrice: total,
    createdAt: iso(reservation.createdAt),
    expiresAt: iso(reservation.expiresAt),
  };
}

/** One booking item, as in a booking and as `PATCH /booking_items/{id}/cancel` answers it. */
export function bookingItemView(item: BookingItem, contentApiActivityId: string | null) {
  return {
    bookingItemId: item.id,
    bookingId: item.bookingId,
    status: item.cancelledAt === null ? 'booked' : 'cancelled',
    activityId: item.activityId,
    availabilityId: item.slotId,
    startsAt: item.startsAt,
    endsAt: null,
    isAllDay: false,
    numGuests: item.quantity,
    service: { activity: item.title },
    relatedIds: { activity_id: item.activityId, activity_id_capi: contentApiActivityId, offer_id: item.activityId },
    reservations: [{ reservationId: item.reservationId }],
    totalPrice: moneyView(times(item.unitPrice, item.quantity)),
    cancelledAt: item.cancelledAt === null ? null : iso(item.cancelledAt),
    cancellationReason: item.cancellationReason,
  };
}

/** One payment attempt; only successful ones exist (a declined one is answered 422). */
export function paymentAttemptView(bookingId: string, payment: Payment) {
  return {
    paymentAttemptId: payment.id,
    bookingId,
    paymentMethod: payment.method,
    // "used": the partner's word for a payment attempt that has been paid.
    status: 'used',
    amount: moneyView(payment.amount),
    redirectUrl: payment.successReturnUrl ?? null,
    language: BOOKING_LOCALES[payment.language ?? 'de-CH'],
    invoice: payment.invoice,
    createdAt: iso(payment.createdAt),
  };
}

/** What a booking view is made of besides the booking itself. */
export interface BookingParts {
  items: { item: BookingItem; contentApiActivityId: string | null }[];
  status: 'pending_payment' | 'confirmed' | 'cancelled';
  /** Sum over the items not cancelled. */
  total: Money;
  tickets: unknown[];
}

/** The answer of `GET /bookings/{id}` and of a check-out. */
export function bookingView(booking: Booking, parts: BookingParts) {
  const total = moneyView(parts.total);
  const paid = booking.payment === null ? { cents: 0, currency: parts.total.currency } : booking.payment.amount;
  return {
    bookingId: booking.id,
    cartId: booking.cartId,
    partnerReference: booking.partnerReference,
    locale: BOOKING_LOCALES[booking.locale],
    status: parts.status,
    paymentStatus: booking.payment === null ? 'unpaid' : 'paid',
    user: {
      givenName: booking.customer.firstName,
      familyName: booking.customer.lastName,
      email: booking.customer.email,
      phone: booking.customer.phone,
      countryCode: booking.customer.countryCode ?? null,
    },
    items: parts.items.map(({ item, contentApiActivityId }) => bookingItemView(item, contentApiActivityId)),
    // The sandbox charges no VAT: gross and net are the same.
    totalGross: total,
    totalNet: total,
    vat: moneyView({ cents: 0, currency: parts.total.currency }),
    totalPayments: moneyView(paid),
    paymentAttempts: booking.payment === null ? [] : [paymentAttemptView(booking.id, booking.payment)],
    tickets: parts.tickets,
    createdAt: iso(booking.createdAt),
  };
}

/** The title of an activity record, if it has one. */
export function titleOf(record: ActivityRecord): string | null {
  return record.title ?? record.info?.title ?? null;
}
