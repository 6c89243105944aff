/**
 * The sandbox's records and the events that change them: what the journal holds, one event per
 * line. Types only; state.ts applies the events, partnerViews.ts turns the records into answers.
 */

import type { Locale } from '../../snapshot/locales.ts';

/** An amount in the currency's hundredths. */
export interface Money {
  cents: number;
  currency: string;
}

/** A hold: what the journal records of a reservation. */
export interface Reservation {
  id: string;
  cartId: string;
  /** The client that made it (BookingCall.client), whose held places it counts against. */
  client: string;
  slotId: string;
  activityId: number;
  date: string;
  startTime: string;
  startsAt: string;
  quantity: number;
  unitPrice: Money;
  createdAt: number;
  expiresAt: number;
  /** The language asked for; a journal may hold reservations without it, which read as de-CH. */
  locale?: Locale;
}

/** A cart: the reservations made into it, and the booking it became once checked out. */
export interface Cart {
  id: string;
  createdAt: number;
  reservationIds: string[];
  bookingId: string | null;
}

/** The booking form's user; the partner's givenName and familyName are first and last name. */
export interface Customer {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  countryCode?: string | null;
}

/** A successful payment attempt (a declined one changes nothing, so it is not recorded). */
export interface Payment {
  id: string;
  /** One of PAYMENT_METHODS (pay.ts). */
  method: string;
  amount: Money;
  createdAt: number;
  invoice: { number: string; dueDate: string } | null;
  /** Where the payer is sent on, and in which language; a journal may hold payments without them. */
  successReturnUrl?: string | null;
  language?: Locale;
}

/** A checked-out cart. */
export interface Booking {
  id: string;
  cartId: string;
  partnerReference: string | null;
  locale: Locale;
  customer: Customer;
  createdAt: number;
  itemIds: string[];
  payment: Payment | null;
}

/** One reservation of a checked-out cart; cancelling it frees its places. */
export interface BookingItem {
  id: string;
  bookingId: string;
  reservationId: string;
  activityId: number;
  title: string | null;
  slotId: string;
  date: string;
  startTime: string;
  startsAt: string;
  quantity: number;
  unitPrice: Money;
  cancelledAt: number | null;
  cancellationReason: string | null;
}

/** A change of state: what the journal records, one per line. */
export type SandboxEvent =
  | { type: 'reservation_created'; at: number; reservation: Reservation; newCart: boolean }
  | { type: 'cart_checked_out'; at: number; booking: Omit<Booking, 'itemIds' | 'payment'>; items: BookingItem[] }
  | { type: 'payment_succeeded'; at: number; bookingId: string; payment: Payment }
  | { type: 'booking_item_cancelled'; at: number; itemId: string; reason: string | null };

/** One journal line: an event, and the response stored under the request's Idempotency-Key. */
export type JournalEntry = SandboxEvent & {
  v: 1;
  idempotency?: { client: string; key: string; fingerprint: string; status: number; body: string };
};
