/**
 * The request bodies of the booking interface, read strictly against their schemas
 * (requestSchemas.ts). They are the partner's own (Swiss Activities' booking API, as its website
 * sends them), so a front end built against the sandbox sends the same bodies to the partner;
 * fields the partner's are not known to have are marked "assumed" in docs/booking.md. Every
 * reader throws a 400 naming the field at fault.
 *
 * What one field's schema cannot say is checked here by hand, after the schema: a ticket
 * category named twice, the guests over all categories, and `doCreateCart` against `cartId`.
 */

import type { Locale } from '../snapshot/locales.ts';
import { parseBookingLocale } from './bookingLocale.ts';
import { bodyReader, invalid } from './input.ts';
import * as schemas from './requestSchemas.ts';
import { MAX_GUESTS } from './requestSchemas.ts';

const reservations = bodyReader(schemas.ReservationRequest, true);
const checkOuts = bodyReader(schemas.CheckOutRequest, true);
const paymentAttempts = bodyReader(schemas.PaymentAttemptRequest, true);
const cancellations = bodyReader(schemas.CancelRequest, false);

/** `POST /reservations`: hold guests of one availability, in a new or an open cart. */
export interface ReservationRequest {
  activityId: number;
  availabilityId: string;
  /** One entry per ticket category, no category twice. */
  selection: { ticketCategoryId: number; numGuests: number }[];
  locale: Locale | undefined;
  /** The open cart to add to; undefined: a new cart (doCreateCart true or left out). */
  cartId: string | undefined;
}

/**
 * Reads `{ activityId, availabilityId, selection: [{ ticketCategoryId, numGuests }], locale?,
 * doCreateCart?, cartId? }`. The partner's website sends `doCreateCart: true` without a cart and
 * `cartId` with one; both at once, or neither with `doCreateCart: false`, say nothing sensible.
 *
 * @throws BookingError INVALID_REQUEST naming the field
 */
export function readReservationRequest(raw: Buffer): ReservationRequest {
  const { activityId, availabilityId, selection, locale, doCreateCart, cartId } = reservations.read(raw);
  const seen = new Set<number>();
  selection.forEach(({ ticketCategoryId }, index) => {
    if (seen.has(ticketCategoryId)) throw invalid(`selection[${index}].ticketCategoryId`, `selection names ticket category ${ticketCategoryId} twice; give each category once with its numGuests`);
    seen.add(ticketCategoryId);
  });
  const guests = selection.reduce((sum, entry) => sum + entry.numGuests, 0);
  if (guests > MAX_GUESTS) throw invalid('selection', `selection asks for ${guests} guests; at most ${MAX_GUESTS} per reservation`);
  if (cartId != null && doCreateCart === true) throw invalid('doCreateCart', 'doCreateCart must not be true together with cartId: either add to that cart or create one');
  if (cartId == null && doCreateCart === false) throw invalid('cartId', 'cartId is required when doCreateCart is false');
  return { activityId, availabilityId, selection, locale: localeOf(locale, 'locale'), cartId: cartId ?? undefined };
}

/** `PATCH /carts/{id}/check_out`: the booking form. */
export interface CheckOutRequest {
  user: { givenName: string; familyName: string; email: string; phone: string | null; countryCode: string | null };
  /** The distribution partner's own booking reference (assumed field). */
  partnerReference: string | null;
}

/**
 * Reads `{ user: { givenName, familyName, email, phone?, countryCode? }, partnerReference? }`.
 *
 * @throws BookingError INVALID_REQUEST naming the field (dotted: `user.email`)
 */
export function readCheckOutRequest(raw: Buffer): CheckOutRequest {
  const { user, partnerReference } = checkOuts.read(raw);
  return {
    user: { givenName: user.givenName, familyName: user.familyName, email: user.email, phone: user.phone ?? null, countryCode: user.countryCode ?? null },
    partnerReference: partnerReference ?? null,
  };
}

/** `POST /bookings/{id}/payment_attempts`. */
export interface PaymentAttemptRequest {
  /** One of the methods requestSchemas.ts lists. */
  paymentMethod: string;
  successReturnUrl: string | null;
  failureReturnUrl: string | null;
  language: Locale | undefined;
}

/**
 * Reads `{ paymentMethod, successReturnUrl?, failureReturnUrl?, language? }`; the return URLs are
 * absolute http(s) URLs.
 *
 * @throws BookingError INVALID_REQUEST naming the field
 */
export function readPaymentAttemptRequest(raw: Buffer): PaymentAttemptRequest {
  const { paymentMethod, successReturnUrl, failureReturnUrl, language } = paymentAttempts.read(raw);
  return { paymentMethod, successReturnUrl: successReturnUrl ?? null, failureReturnUrl: failureReturnUrl ?? null, language: localeOf(language, 'language') };
}

/**
 * Reads the optional body of `PATCH /booking_items/{id}/cancel`: empty, or `{ reason? }` (assumed).
 *
 * @throws BookingError INVALID_REQUEST naming the field
 */
export function readCancelRequest(raw: Buffer): { reason: string | null } {
  return { reason: cancellations.read(raw).reason ?? null };
}

/** Our locale of a locale the schema has let through (either spelling). */
function localeOf(value: string | null | undefined, field: string): Locale | undefined {
  return value == null ? undefined : parseBookingLocale(value, field);
}
