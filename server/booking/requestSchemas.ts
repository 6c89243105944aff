/**
 * The request bodies and query parameters of the booking interface as JSON Schema (TypeBox,
 * https://github.com/sinclairzx81/typebox): the routes validate with these schemas (input.ts)
 * and the OpenAPI document (openapi.ts) publishes these very objects, so the two cannot drift.
 * They are the partner's bodies as far as they are known; "Assumed" marks a field of ours.
 *
 * Strings are trimmed before they are checked (input.ts), so `minLength`, `maxLength` and the
 * patterns apply to the trimmed value. An optional field may also be sent as `null`.
 */

import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { BookingError } from './errors.ts';
import { isDate } from './availability.ts';
import { BOOKING_LOCALES, unknownLocale } from './bookingLocale.ts';
import { REFUSAL, type Refusal } from './input.ts';
import type { OperationId } from './operations.ts';

/** Most guests one reservation may take, over all its ticket categories. */
export const MAX_GUESTS = 50;

/** Most ticket categories one reservation may name. */
const MAX_SELECTION = 20;

/** Largest id the partner's integer ids are read up to. */
const MAX_ID = 2_147_483_647;

/**
 * The payment methods the sandbox settles: those of the partner's website, and invoice (bookings
 * can be settled on invoice).
 */
export const PAYMENT_METHODS = ['invoice', 'card', 'twint', 'apple_pay', 'ideal'] as const;

/** The payment method the sandbox always declines, to try the unhappy path. */
export const DECLINED_PAYMENT_METHOD = 'sandbox_declined';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

// `format` tells a reader of the document what a string is; TypeBox checks a format only once it
// is registered, here with the rule the sandbox applies (a calendar date, an http(s) URL).
FormatRegistry.Set('email', (value) => EMAIL.test(value));
FormatRegistry.Set('date', isDate);
FormatRegistry.Set('uri', (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol));

/** A string that is not blank, at most `maxLength` characters, refused as `<field> must be <refusal>` when it fails `pattern`. */
function text(maxLength: number, options: { pattern?: RegExp; refusal?: Refusal; format?: string; description?: string } = {}) {
  const { pattern, refusal, ...rest } = options;
  return Type.String({ minLength: 1, maxLength, pattern: pattern?.source ?? '\\S', ...rest, ...(refusal === undefined ? {} : { [REFUSAL]: refusal }) });
}

/** One of `values`; anything else is refused by `refusal`. */
function oneOf(values: readonly string[], refusal: Refusal, description: string) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { description, [REFUSAL]: refusal },
  );
}

/** An optional field that may also be sent as `null` (read as absent). */
function optional<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

const id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, ...(description ? { description } : {}) });

/** A locale written either way (`de_CH`, as the partner writes it, or `de-CH`). */
const locale = (description: string) =>
  oneOf([...Object.values(BOOKING_LOCALES), ...Object.keys(BOOKING_LOCALES)], unknownLocale, `${description}: de_CH, en_CH, fr_CH or it_CH (de-CH is read as de_CH).`);

/** An absolute http(s) URL. */
const returnUrl = (description: string) => text(2000, { pattern: /^[Hh][Tt][Tt][Pp][Ss]?:/, format: 'uri', refusal: 'an absolute http(s) URL', description });

/** `POST /reservations`: hold guests of one availability, in a new or an open cart. */
export const ReservationRequest = Type.Object(
  {
    activityId: id('The activity of the availability.'),
    availabilityId: text(40, {
      pattern: /^\d{1,9}-\d{8}-\d{4}$/,
      refusal: 'an availabilityId from the availabilities, e.g. 4711-20261122-0900',
      description: 'Pass it back as received. Sandbox: `<activityId>-<YYYYMMDD>-<HHMM>`.',
    }),
    selection: Type.Array(Type.Object({ ticketCategoryId: id(), numGuests: Type.Integer({ minimum: 1, maximum: MAX_GUESTS }) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_SELECTION,
      description: `One entry per ticket category, none twice; at most ${MAX_GUESTS} guests in all.`,
    }),
    locale: optional(locale('Language of labels, the booking and its tickets (default de_CH)')),
    doCreateCart: optional(Type.Boolean({ description: 'true (or left out) without cartId: a new cart is made; not true together with cartId.' })),
    cartId: optional(text(128, { description: 'Add the hold to this open cart; required when doCreateCart is false.' })),
  },
  { additionalProperties: false },
);

/** The booker of a check-out; also the `user` of a booking. */
export const User = Type.Object(
  {
    givenName: text(100),
    familyName: text(100),
    email: text(254, { pattern: EMAIL, format: 'email', refusal: 'an e-mail address' }),
    phone: optional(text(40)),
    countryCode: optional(text(2, { pattern: /^[A-Z]{2}$/, refusal: 'an ISO 3166-1 alpha-2 country code, e.g. CH', description: 'ISO 3166-1 alpha-2, e.g. CH' })),
  },
  { additionalProperties: false },
);

/** `PATCH /carts/{id}/check_out`: the booking form. */
export const CheckOutRequest = Type.Object(
  {
    user: User,
    partnerReference: optional(text(64, { description: "Assumed: the distribution partner's own booking reference; printed on the tickets." })),
  },
  { additionalProperties: false },
);

/** `POST /bookings/{id}/payment_attempts`. */
export const PaymentAttemptRequest = Type.Object(
  {
    paymentMethod: oneOf(
      [...PAYMENT_METHODS, DECLINED_PAYMENT_METHOD],
      (value, field) =>
        new BookingError('INVALID_REQUEST', `${field} ${JSON.stringify(value)} is not one the sandbox takes; allowed: ${PAYMENT_METHODS.join(', ')} (${DECLINED_PAYMENT_METHOD} is always declined)`, {
          field,
          allowed: [...PAYMENT_METHODS, DECLINED_PAYMENT_METHOD],
        }),
      `Sandbox: every method settles at once; "${DECLINED_PAYMENT_METHOD}" is always declined (422 PAYMENT_DECLINED).`,
    ),
    successReturnUrl: optional(returnUrl('Where the payer goes once paid: the sandbox answers it as redirectUrl.')),
    failureReturnUrl: optional(returnUrl('Where the payer goes when the payment fails.')),
    language: optional(locale('Language of the payment page')),
  },
  { additionalProperties: false },
);

/** `PATCH /booking_items/{id}/cancel`: an empty body, or `{ reason? }` (assumed). */
export const CancelRequest = Type.Object({ reason: optional(text(500, { description: 'Assumed: why, kept with the item.' })) }, { additionalProperties: false });

/** The request body of each operation that takes one: its schema's name in the document, the schema, and whether it may be left out. */
export const REQUEST_BODIES: Partial<Record<OperationId, { name: string; schema: TSchema; required: boolean }>> = {
  createReservation: { name: 'ReservationRequest', schema: ReservationRequest, required: true },
  checkOutCart: { name: 'CheckOutRequest', schema: CheckOutRequest, required: true },
  createPaymentAttempt: { name: 'PaymentAttemptRequest', schema: PaymentAttemptRequest, required: true },
  cancelBookingItem: { name: 'CancelRequest', schema: CancelRequest, required: false },
};

/** How many availabilities one answer lists unless `limit` says otherwise. */
const DEFAULT_AVAILABILITY_LIMIT = 50;
/** The most availabilities one answer lists, whatever `limit` says. */
const MAX_AVAILABILITY_LIMIT = 500;

/** The query parameter `locale` of every operation. */
export const LOCALE_PARAMETER = locale('Language of the answer (default de_CH)');

/** The query parameters of `GET /activities/{id}/availabilities` besides `locale`, in the order the document lists them. */
export const AVAILABILITY_PARAMETERS = {
  startsAfter: Type.String({ format: 'date', description: 'First date, YYYY-MM-DD; default today.' }),
  untilEndOfDay: Type.String({ format: 'date', description: 'Last date, YYYY-MM-DD, included; default the last day of the booking window.' }),
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_AVAILABILITY_LIMIT,
    default: DEFAULT_AVAILABILITY_LIMIT,
    description: `Most availabilities answered, the earliest first; default ${DEFAULT_AVAILABILITY_LIMIT}.`,
  }),
};

/** The query parameters of each operation besides `locale`, for the operations that take any. */
export const QUERY_PARAMETERS: Partial<Record<OperationId, Record<string, TSchema>>> = { listAvailabilities: AVAILABILITY_PARAMETERS };
