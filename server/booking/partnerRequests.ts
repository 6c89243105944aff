/**
 * The request bodies of the booking interface, read strictly. They are the partner's own
 * (Swiss Activities' booking API, as its website sends them), so a front end built against the
 * sandbox sends the same bodies to the partner; fields the partner's are not known to have are
 * marked "assumed" in docs/booking.md. Every reader throws a 400 naming the field at fault.
 */

import type { Locale } from '../snapshot/locales.ts';
import { parseBookingLocale } from './bookingLocale.ts';
import {
  checkFields,
  invalid,
  type JsonObject,
  optionalBoolean,
  optionalString,
  parseJsonObject,
  requiredInteger,
  requiredObject,
  requiredObjectArray,
  requiredString,
} from './input.ts';

/** Most guests one reservation may take, over all its ticket categories. */
export const MAX_GUESTS = 50;

/** Most ticket categories one reservation may name. */
const MAX_SELECTION = 20;

/** Largest id the partner's integer ids are read up to. */
const MAX_ID = 2_147_483_647;

const EMAIL = { regex: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, hint: 'an e-mail address' };
const COUNTRY_CODE = { regex: /^[A-Z]{2}$/, hint: 'an ISO 3166-1 alpha-2 country code, e.g. CH' };
const AVAILABILITY_ID = { regex: /^\d{1,9}-\d{8}-\d{4}$/, hint: 'an availabilityId from the availabilities, e.g. 4711-20261122-0900' };
const PAYMENT_METHOD = { regex: /^[a-z][a-z0-9_]*$/, hint: 'a payment method name such as invoice or card' };

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
  const body = parseJsonObject(raw, true);
  checkFields(body, ['activityId', 'availabilityId', 'selection', 'locale', 'doCreateCart', 'cartId']);
  const activityId = requiredInteger(body, 'activityId', 1, MAX_ID);
  const availabilityId = requiredString(body, 'availabilityId', { maxLength: 40, pattern: AVAILABILITY_ID });
  const selection = requiredObjectArray(body, 'selection', 1, MAX_SELECTION).map((entry, index) => {
    const prefix = `selection[${index}].`;
    checkFields(entry, ['ticketCategoryId', 'numGuests'], prefix);
    return { ticketCategoryId: requiredInteger(entry, 'ticketCategoryId', 1, MAX_ID, prefix), numGuests: requiredInteger(entry, 'numGuests', 1, MAX_GUESTS, prefix) };
  });
  const seen = new Set<number>();
  selection.forEach(({ ticketCategoryId }, index) => {
    if (seen.has(ticketCategoryId)) throw invalid(`selection[${index}].ticketCategoryId`, `selection names ticket category ${ticketCategoryId} twice; give each category once with its numGuests`);
    seen.add(ticketCategoryId);
  });
  const guests = selection.reduce((sum, entry) => sum + entry.numGuests, 0);
  if (guests > MAX_GUESTS) throw invalid('selection', `selection asks for ${guests} guests; at most ${MAX_GUESTS} per reservation`);
  const locale = optionalLocale(body, 'locale');
  const doCreateCart = optionalBoolean(body, 'doCreateCart');
  const cartId = optionalString(body, 'cartId', { maxLength: 128 });
  if (cartId !== undefined && doCreateCart === true) throw invalid('doCreateCart', 'doCreateCart must not be true together with cartId: either add to that cart or create one');
  if (cartId === undefined && doCreateCart === false) throw invalid('cartId', 'cartId is required when doCreateCart is false');
  return { activityId, availabilityId, selection, locale, cartId };
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
  const body = parseJsonObject(raw, true);
  checkFields(body, ['user', 'partnerReference']);
  const user = requiredObject(body, 'user');
  const prefix = 'user.';
  checkFields(user, ['givenName', 'familyName', 'email', 'phone', 'countryCode'], prefix);
  return {
    user: {
      givenName: requiredString(user, 'givenName', { maxLength: 100 }, prefix),
      familyName: requiredString(user, 'familyName', { maxLength: 100 }, prefix),
      email: requiredString(user, 'email', { maxLength: 254, pattern: EMAIL }, prefix),
      phone: optionalString(user, 'phone', { maxLength: 40 }, prefix) ?? null,
      countryCode: optionalString(user, 'countryCode', { maxLength: 2, pattern: COUNTRY_CODE }, prefix) ?? null,
    },
    partnerReference: optionalString(body, 'partnerReference', { maxLength: 64 }) ?? null,
  };
}

/** `POST /bookings/{id}/payment_attempts`. */
export interface PaymentAttemptRequest {
  /** As sent; which methods are accepted is up to the mode. */
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
  const body = parseJsonObject(raw, true);
  checkFields(body, ['paymentMethod', 'successReturnUrl', 'failureReturnUrl', 'language']);
  return {
    paymentMethod: requiredString(body, 'paymentMethod', { maxLength: 40, pattern: PAYMENT_METHOD }),
    successReturnUrl: optionalUrl(body, 'successReturnUrl'),
    failureReturnUrl: optionalUrl(body, 'failureReturnUrl'),
    language: optionalLocale(body, 'language'),
  };
}

/**
 * Reads the optional body of `PATCH /booking_items/{id}/cancel`: empty, or `{ reason? }` (assumed).
 *
 * @throws BookingError INVALID_REQUEST naming the field
 */
export function readCancelRequest(raw: Buffer): { reason: string | null } {
  const body = parseJsonObject(raw, false);
  checkFields(body, ['reason']);
  return { reason: optionalString(body, 'reason', { maxLength: 500 }) ?? null };
}

function optionalLocale(body: JsonObject, name: string): Locale | undefined {
  const value = optionalString(body, name, { maxLength: 10 });
  return value === undefined ? undefined : parseBookingLocale(value, name);
}

function optionalUrl(body: JsonObject, name: string): string | null {
  const value = optionalString(body, name, { maxLength: 2000 });
  if (value === undefined) return null;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid(name, `${name} must be an absolute http(s) URL`);
  return value;
}
