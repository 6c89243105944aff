/**
 * The OpenAPI 3.1 description of the booking interface (https://spec.openapis.org/oas/v3.1.0),
 * served at /v1/openapi.json. The bodies are the partner's (Swiss Activities' booking API) as far
 * as they are known, which the sandbox takes and answers; a field described "Assumed" is one of
 * ours whose partner counterpart is not known. The request bodies are the schemas the routes
 * validate with (requestSchemas.ts); the responses are described here. test/server/booking/openapi.test.ts
 * checks the document against the routes and every response the tests receive against its schema.
 */

import { BOOKING_WINDOW_DAYS, SLOT_TIMES, TIME_ZONE } from './availability.ts';
import { BOOKING_LOCALES } from './bookingLocale.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { IDEMPOTENCY_TTL_MS, MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.ts';
import { BODY_MEDIA_TYPES, ID_PATTERN, OPENAPI_PATH, type Operation, OPERATIONS, type OperationId } from './operations.ts';
import { MAX_BODY_BYTES } from './requestBody.ts';
import { LOCALE_PARAMETER, QUERY_PARAMETERS, REQUEST_BODIES, User } from './requestSchemas.ts';
import { TICKET_FILE_TYPES, ticketFileTemplate, TICKET_ID_PATTERN, type TicketFileKind } from './ticketFiles.ts';
import { BARCODE_FORMAT } from './tickets.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const string = (description?: string, extra: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const integer = (description?: string, extra: Schema = {}): Schema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
const array = (items: Schema, description?: string): Schema => ({ type: 'array', ...(description ? { description } : {}), items });
const object = (properties: Record<string, Schema>, required: string[] = Object.keys(properties), description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required,
  additionalProperties: false,
});
/** A field of ours: the partner's counterpart is not known. */
const assumed = (schema: Schema, description: string): Schema => ({ ...schema, description: `Assumed: ${description}` });
const DATE = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
const DATE_TIME = { type: 'string', format: 'date-time' };

/** A locale as the interface answers it (requests may also write de-CH). */
const LOCALE = { type: 'string', enum: Object.values(BOOKING_LOCALES) };
/** Sandbox ids of availabilities: `<activityId>-<YYYYMMDD>-<HHMM>`. */
const AVAILABILITY_ID = string('Pass it back as received. Sandbox: `<activityId>-<YYYYMMDD>-<HHMM>`.', { pattern: '^\\d+-\\d{8}-\\d{4}$' });

const SCHEMAS: Record<string, Schema> = {
  Error: object({
    error: object({
      code: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable; branch on it.' },
      message: string('For a developer; may change.'),
      details: { type: 'object', description: 'Specifics such as `field`, `allowed`, ids; `{}` when there are none.' },
    }),
  }),
  Money: object({
    amount: string('Decimal amount, e.g. "129.00"', { pattern: '^\\d+(\\.\\d+)?$' }),
    currency: string('ISO 4217 code, e.g. CHF'),
    formatted: string('For display, e.g. "CHF 129.00".'),
  }),
  ActivitySummary: object({
    activityId: integer('The booking id of the activity (GraphQL `Activity.bookingId`); the `{id}` of its availabilities.'),
    contentApiActivityId: string('GraphQL `Activity.id` (the content API id).'),
    startingPrice: nullable(ref('Money')),
    minPrice: nullable(ref('Money')),
    maxPrice: nullable(ref('Money')),
    popularity: { type: 'number' },
    durations: array(string(), 'e.g. "2", "all-day"; sandbox: empty.'),
    discount: { description: 'Sandbox: null.' },
    cancellation: { description: 'Sandbox: null.' },
    numOffers: integer('Offers that can be booked; sandbox: 1 when the activity is bookable, else 0.'),
  }),
  ActivitySummaryList: array(ref('ActivitySummary')),
  TicketCategory: object({
    ticketCategoryId: integer('Name it in a reservation\'s selection.'),
    label: object({ formatted: string(), audience: string(), discount: nullable(string()) }),
    audience: string('Sandbox: adult.'),
    description: nullable(string()),
    price: { ...ref('Money'), description: 'Per guest.' },
    occupancyType: string('fixed or variable'),
    occupancy: integer('Guests one ticket admits.'),
    maxOccupancy: nullable(integer()),
    minAge: nullable(integer()),
    maxAge: nullable(integer()),
  }),
  Availability: object({
    availabilityId: AVAILABILITY_ID,
    startsAt: { ...DATE_TIME, description: `Start with the Swiss offset (${TIME_ZONE}).` },
    isAllDay: { type: 'boolean' },
    cancellableUntil: nullable(DATE_TIME),
    ticketCategoryIds: array(integer(), "The offer's ticketCategories that can be booked here."),
    capacity: assumed(integer(), 'places in all.'),
    numAvailable: assumed(integer(), 'places neither booked nor held; 0 when sold out.'),
  }),
  Offer: object({
    offerId: integer('Sandbox: the activity id (one offer per activity).'),
    contentApiOfferId: nullable(integer('Sandbox: null.')),
    offerLabel: string(),
    availabilities: array(ref('Availability')),
    ticketCategories: array(ref('TicketCategory')),
  }),
  OfferList: array(ref('Offer'), 'Empty when nothing is offered in the range.'),
  TicketReservation: object({
    ticketReservationId: string(),
    ticketCategory: ref('TicketCategory'),
    ticketCategoryLabel: string(),
    offer: object({ label: string() }),
    seatPrice: ref('Money'),
    totalPrice: ref('Money'),
    guests: array(object({ occupancy: integer() }), 'One per guest.'),
  }),
  Reservation: object({
    reservationId: string(),
    cart: object({ cartId: string('Check this cart out to book.') }),
    activityId: integer(),
    offerId: integer(),
    availabilityId: string(),
    locale: LOCALE,
    startsAt: DATE_TIME,
    endsAt: nullable({ ...DATE_TIME, description: 'Sandbox: null (its slots have no set end).' }),
    isAllDay: { type: 'boolean' },
    cancellableUntil: nullable(DATE_TIME),
    ticketReservations: array(ref('TicketReservation')),
    totalPrice: ref('Money'),
    createdAt: assumed(DATE_TIME, 'when the hold was made.'),
    expiresAt: { ...DATE_TIME, description: 'createdAt + 15 minutes; the places are free again from then on.' },
  }),
  User,
  PaymentAttempt: object({
    paymentAttemptId: string(),
    bookingId: assumed(string(), 'the booking paid.'),
    paymentMethod: string(),
    status: { type: 'string', const: 'used', description: 'used: paid. A declined attempt is answered 422, not recorded.' },
    amount: assumed(ref('Money'), 'the amount paid.'),
    redirectUrl: nullable(string('Send the payer here; sandbox: successReturnUrl.')),
    language: LOCALE,
    invoice: assumed(nullable(object({ number: string(), dueDate: DATE })), 'with paymentMethod invoice, the invoice; else null.'),
    createdAt: assumed(DATE_TIME, 'when it was made.'),
  }),
  BookingItem: object({
    bookingItemId: string('The `{id}` to cancel it.'),
    bookingId: string(),
    status: assumed({ type: 'string', enum: ['booked', 'cancelled'] }, 'booked or cancelled.'),
    activityId: integer(),
    availabilityId: string(),
    startsAt: DATE_TIME,
    endsAt: nullable({ ...DATE_TIME, description: 'Sandbox: null.' }),
    isAllDay: { type: 'boolean' },
    numGuests: assumed(integer(), 'guests booked.'),
    service: object({ activity: nullable(string('The activity title.')) }),
    relatedIds: object({ activity_id: integer(), activity_id_capi: nullable(string('GraphQL Activity.id.')), offer_id: integer() }),
    reservations: array(object({ reservationId: string() })),
    totalPrice: ref('Money'),
    cancelledAt: assumed(nullable(DATE_TIME), 'when it was cancelled.'),
    cancellationReason: assumed(nullable(string()), 'as given at cancellation.'),
  }),
  Ticket: object(
    {
      ticketId: string(),
      bookingItemId: string(),
      numGuests: integer('Guests admitted.'),
      barcode: object({ format: { type: 'string', const: BARCODE_FORMAT }, value: string('16 digits.', { pattern: '^\\d{16}$' }) }),
      qrCode: string(`Path of the QR code of the bar-code value, a PNG image (GET ${ticketFileTemplate('qr_code')}).`, { pattern: `^/v1/tickets/${TICKET_ID_PATTERN}/qr_code$` }),
      pdf: string(`Path of the one-page PDF ticket (GET ${ticketFileTemplate('pdf')}).`, { pattern: `^/v1/tickets/${TICKET_ID_PATTERN}/pdf$` }),
    },
    undefined,
    "Assumed: the partner's ticket shape is not known.",
  ),
  Booking: object({
    bookingId: string(),
    cartId: assumed(string(), 'the cart checked out.'),
    partnerReference: assumed(nullable(string()), 'as given at check-out.'),
    locale: assumed(LOCALE, 'the language of its cart.'),
    status: assumed({ type: 'string', enum: ['pending_payment', 'confirmed', 'cancelled'] }, 'pending_payment, confirmed once paid, cancelled once every item is.'),
    paymentStatus: { type: 'string', enum: ['unpaid', 'paid'], description: '"paid" is the partner\'s; "unpaid" is assumed.' },
    user: ref('User'),
    items: array(ref('BookingItem')),
    totalGross: { ...ref('Money'), description: 'Sum over the items not cancelled.' },
    totalNet: { ...ref('Money'), description: 'Sandbox: no VAT, so totalGross.' },
    vat: { ...ref('Money'), description: 'Sandbox: 0.00.' },
    totalPayments: ref('Money'),
    paymentAttempts: array(ref('PaymentAttempt')),
    tickets: array(ref('Ticket'), 'Assumed: one per booked item once the booking is confirmed (paid); empty before.'),
    createdAt: assumed(DATE_TIME, 'when it was checked out.'),
  }),
  ...Object.fromEntries(Object.values(REQUEST_BODIES).map(({ name, schema }) => [name, schema])),
};

/** Statuses, besides the success, that every operation may answer. */
const ALWAYS = [400, 500, 502, 503, 504];
/** Statuses, besides those, of POST and PATCH. */
const WRITES = [409, 413, 415, 422, 429];

const ERROR_STATUSES: Record<OperationId, number[]> = {
  listActivities: ALWAYS,
  listAvailabilities: [...ALWAYS, 404],
  createReservation: [...ALWAYS, ...WRITES, 404, 410],
  checkOutCart: [...ALWAYS, ...WRITES, 404, 410],
  createPaymentAttempt: [...ALWAYS, ...WRITES, 404],
  getBooking: [...ALWAYS, 404],
  cancelBookingItem: [...ALWAYS, ...WRITES, 404],
};

const SUCCESS: Record<OperationId, { status: number; schema: string; summary: string; description: string }> = {
  listActivities: {
    status: 200,
    schema: 'ActivitySummaryList',
    summary: 'List activities',
    description: "Every activity of the locale, by activityId: the partner's activity summaries (GET /activities/summaries). The query parameter locale is written with an underscore (de_CH); de-CH is accepted too.",
  },
  listAvailabilities: {
    status: 200,
    schema: 'OfferList',
    summary: 'Availability of one activity',
    description: `The offers of the activity with their availabilities from startsAfter to the end of untilEndOfDay (default: the whole booking window, today and the next ${BOOKING_WINDOW_DAYS - 1} days), at most limit of them. Sandbox: one offer per activity, availabilities at ${SLOT_TIMES.join(' and ')} ${TIME_ZONE}, one closed weekday per activity, 4 + (id mod 9) places each.`,
  },
  createReservation: {
    status: 201,
    schema: 'Reservation',
    summary: 'Hold places for 15 minutes',
    description: 'Holds the selected guests of an availability for exactly 15 minutes in a cart (a new one unless `cartId` is given). Of two requests for the last place, one gets it and the other a 409 SOLD_OUT. Into a cart whose hold has expired it is a 410 HOLD_EXPIRED; a cart takes a limited number of reservations (409 CART_FULL) and a client may hold a limited number of places at once (429 HOLD_LIMIT_REACHED, with Retry-After).',
  },
  checkOutCart: {
    status: 200,
    schema: 'Booking',
    summary: 'Check a cart out',
    description: "Turns the cart's holds into a booking for the user, awaiting payment; its bookingId is what to pay. A hold that has expired makes it a 410, a held availability that has started a 422.",
  },
  createPaymentAttempt: {
    status: 201,
    schema: 'PaymentAttempt',
    summary: 'Pay a booking',
    description: 'Starts paying the booking; send the payer to redirectUrl. Sandbox: the attempt is paid at once (status used), the booking is confirmed and has its tickets.',
  },
  getBooking: {
    status: 200,
    schema: 'Booking',
    summary: 'A booking with its tickets',
    description: 'The booking, its items, its payment and (once confirmed) one ticket per booked item: its bar-code value and the paths of its QR-code PNG and PDF.',
  },
  cancelBookingItem: {
    status: 200,
    schema: 'BookingItem',
    summary: 'Cancel a booking item',
    description: 'Cancels the item and frees its places. Cancelling a cancelled item again answers the same, changing nothing.',
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone: a hold of the cart expired',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Cannot be processed',
  429: 'Rate limited',
  500: 'Internal error',
  502: 'Proxy mode: upstream unavailable',
  503: 'Sandbox mode: the booking journal cannot be read or written',
  504: 'Proxy mode: upstream timeout',
};

function errorResponse(status: number): Schema {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
  return {
    description: `${STATUS_TEXT[status]}. Codes: ${codes.join(', ')}.`,
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until a request may succeed.', schema: { type: 'integer' } } } } : {}),
    content: { 'application/json': { schema: ref('Error') } },
  };
}

/** GET of a ticket file (sandbox mode; the partner links its own tickets). */
function ticketFileOperation(kind: TicketFileKind): Schema {
  const type = TICKET_FILE_TYPES[kind];
  return {
    get: {
      operationId: kind === 'pdf' ? 'getTicketPdf' : 'getTicketQrCode',
      summary: kind === 'pdf' ? 'A ticket as a PDF' : "A ticket's QR code as a PNG",
      description: 'Sandbox mode. Linked from the ticket of a confirmed booking; rendered once and then served from memory, with an ETag (If-None-Match gets a 304). A cancelled item has no ticket (404).',
      parameters: [{ name: 'ticketId', in: 'path', required: true, schema: { type: 'string', pattern: `^${TICKET_ID_PATTERN}$` } }],
      responses: {
        200: { description: type, headers: { ETag: { schema: { type: 'string' } } }, content: { [type]: { schema: { type: 'string', format: 'binary' } } } },
        304: { description: 'Not modified: the If-None-Match tag is current' },
        404: errorResponse(404),
        500: errorResponse(500),
        503: errorResponse(503),
      },
    },
  };
}

/** The parameters of an operation: its `{id}`, the locale and, per operation, the others. */
function parametersOf(operation: Operation): Schema[] {
  const parameters: Schema[] = [];
  if (operation.path.includes('{id}')) parameters.push({ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: `^${ID_PATTERN}$` } });
  parameters.push({
    name: 'locale',
    in: 'query',
    required: false,
    description: 'de_CH (default), en_CH, fr_CH or it_CH; the hyphen form (de-CH) is accepted and forwarded as de_CH.',
    schema: LOCALE_PARAMETER,
  });
  for (const [name, schema] of Object.entries(QUERY_PARAMETERS[operation.id] ?? {})) parameters.push({ name, in: 'query', required: false, description: schema.description, schema });
  if (operation.method !== 'GET') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: `Makes a retry safe: a 2xx response is stored for ${IDEMPOTENCY_TTL_MS / 3_600_000} h and answered again (with Idempotent-Replayed: true) to the same request under the same key; another request under it is a 422, one while the first runs a 409.`,
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
    });
  }
  return parameters;
}

/** The Operation Object of one of the seven operations. */
function operationObject(operation: Operation): Record<string, unknown> {
  const success = SUCCESS[operation.id];
  const requestBody = REQUEST_BODIES[operation.id];
  const responses: Record<string, unknown> = {
    [success.status]: { description: success.summary, content: { 'application/json': { schema: ref(success.schema) } } },
  };
  for (const status of [...ERROR_STATUSES[operation.id]].sort((a, b) => a - b)) responses[status] = errorResponse(status);
  return {
    operationId: operation.id,
    summary: success.summary,
    description: success.description,
    parameters: parametersOf(operation),
    ...(requestBody
      ? {
          requestBody: {
            required: requestBody.required,
            content: Object.fromEntries(BODY_MEDIA_TYPES[operation.method as 'POST' | 'PATCH'].map((type) => [type, { schema: ref(requestBody.name) }])),
          },
        }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI document of the booking interface.
 *
 * @param mode the mode the server runs in, named in the description
 */
export function openApiDocument(mode: 'proxy' | 'sandbox'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  if (mode === 'sandbox') for (const kind of Object.keys(TICKET_FILE_TYPES) as TicketFileKind[]) paths[ticketFileTemplate(kind)] = ticketFileOperation(kind);
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      description: `This OpenAPI 3.1 document; /v1/docs renders it. Like every /v1 path, it refuses a request body over ${MAX_BODY_BYTES / 1024} KiB.`,
      responses: {
        200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
        413: errorResponse(413),
      },
    },
  };

  // Written as JSON: TypeBox marks its schemas with symbol keys that are no part of the document.
  return JSON.parse(JSON.stringify({
    openapi: '3.1.0',
    info: {
      title: 'Booking interface',
      version: '1',
      license: { name: 'MIT', identifier: 'MIT' },
      description: [
        `This server runs in **${mode}** mode.`,
        mode === 'proxy'
          ? "Calls are forwarded to the booking partner's paths with the contract credential added on the server; status and body are the partner's. The schemas below are the partner's bodies as far as they are known (fields described \"Assumed\" are the sandbox's own)."
          : "The sandbox is a complete offline implementation over the loaded activities; nothing reaches the partner. It takes and answers the partner's bodies as far as they are known (fields described \"Assumed\" are its own), so a front end built against it works against the partner.",
        'Errors: `{ "error": { "code", "message", "details" } }`. An unknown path under /v1 is a 404 NOT_FOUND, a method a path does not answer a 405 METHOD_NOT_ALLOWED with `Allow`.',
        'POST and PATCH bodies are JSON (Content-Type: application/json; a PATCH may also be sent as application/merge-patch+json, as the partner takes it), at most 64 KiB, and are rate-limited per client (429 with Retry-After).',
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    // No path takes a credential from the client: in proxy mode the server adds the partner's.
    security: [],
    paths,
    components: { schemas: SCHEMAS },
  }));
}
