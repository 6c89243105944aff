/**
 * The OpenAPI 3.1 description of the booking interface (https://spec.openapis.org/oas/v3.1.0),
 * served at /v1/openapi.json. The schemas are the sandbox's payloads (SPEC.md does not show the
 * partner's); test/server/booking/openapi.test.ts checks the document against the routes and every
 * response the tests receive against its schema.
 */

import { BOOKING_WINDOW_DAYS, SLOT_TIMES, TIME_ZONE } from './availability.ts';
import { BOOKING_LOCALES } from './bookingLocale.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { IDEMPOTENCY_TTL_MS, MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.ts';
import { ID_PATTERN, OPENAPI_PATH, OPERATIONS, type OperationId } from './operations.ts';
import { DECLINED_CARD_TOKEN } from './sandbox.ts';
import { TICKET_FILE_TYPES, ticketFileTemplate, TICKET_ID_PATTERN, type TicketFileKind } from './ticketFiles.ts';
import { BARCODE_FORMAT } from './tickets.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const string = (description?: string, extra: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const object = (properties: Record<string, Schema>, required: string[] = Object.keys(properties), description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required,
  additionalProperties: false,
});
const DATE = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
const DATE_TIME = { type: 'string', format: 'date-time' };

const LOCALE_VALUES = Object.values(BOOKING_LOCALES);

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
  }),
  Activity: object({
    id: { type: 'integer', description: 'The booking id of the activity (GraphQL `Activity.bookingId`); the `{id}` of its availabilities.' },
    contentId: string('GraphQL `Activity.id`.'),
    locale: { type: 'string', enum: LOCALE_VALUES },
    title: nullable(string()),
    isBookable: { type: 'boolean' },
    startingPrice: nullable(ref('Money')),
    nextAvailableDate: nullable({ ...DATE, description: 'First date with a free place, or null.' }),
  }),
  ActivityList: object({ data: { type: 'array', items: ref('Activity') }, total: { type: 'integer' } }),
  Slot: object({
    slotId: string('Pass it to POST /v1/reservations.', { pattern: '^\\d+-\\d{8}-\\d{4}$' }),
    date: DATE,
    startTime: string(`Local time (${TIME_ZONE}), HH:MM.`),
    startsAt: DATE_TIME,
    capacity: { type: 'integer' },
    available: { type: 'integer', description: 'Places neither booked nor held; 0 when sold out.' },
    price: ref('Money'),
  }),
  AvailabilityList: object({
    activityId: { type: 'integer' },
    timeZone: { type: 'string', const: TIME_ZONE },
    from: DATE,
    to: DATE,
    data: { type: 'array', items: ref('Slot') },
  }),
  ReservationRequest: object(
    {
      slotId: string('From the availabilities.'),
      quantity: { type: 'integer', minimum: 1, maximum: 50 },
      cartId: string('Add the hold to this open cart; without it, a new cart is made.'),
    },
    ['slotId', 'quantity'],
  ),
  Reservation: object({
    id: string(),
    cartId: string('Check this cart out to book.'),
    slotId: string(),
    activityId: { type: 'integer' },
    date: DATE,
    startTime: string(),
    startsAt: DATE_TIME,
    quantity: { type: 'integer' },
    unitPrice: ref('Money'),
    totalPrice: ref('Money'),
    createdAt: DATE_TIME,
    expiresAt: { ...DATE_TIME, description: 'createdAt + 15 minutes; the places are free again from then on.' },
  }),
  Customer: object(
    {
      firstName: string(undefined, { maxLength: 100 }),
      lastName: string(undefined, { maxLength: 100 }),
      email: string(undefined, { format: 'email', maxLength: 254 }),
      phone: nullable(string(undefined, { maxLength: 40 })),
    },
    ['firstName', 'lastName', 'email'],
  ),
  CheckOutRequest: object(
    {
      partnerReference: string("The distribution partner's own booking reference; printed on the tickets.", { maxLength: 64 }),
      customer: ref('Customer'),
      locale: { type: 'string', enum: LOCALE_VALUES, description: 'Language of titles and tickets; default de_CH.' },
    },
    ['partnerReference', 'customer'],
  ),
  PaymentAttemptRequest: object(
    {
      method: { type: 'string', enum: ['invoice', 'card'], description: 'invoice settles the booking on account.' },
      cardToken: string(`With method card: a card token. Sandbox: "${DECLINED_CARD_TOKEN}" is declined (422 PAYMENT_DECLINED), any other is approved.`),
    },
    ['method'],
  ),
  PaymentAttempt: object({
    id: string(),
    bookingId: string(),
    method: { type: 'string', enum: ['invoice', 'card'] },
    status: { type: 'string', const: 'succeeded', description: 'A declined attempt is answered 422, not recorded.' },
    amount: ref('Money'),
    invoice: nullable(object({ number: string(), dueDate: DATE })),
    createdAt: DATE_TIME,
  }),
  BookingItem: object({
    id: string('The `{id}` to cancel it.'),
    bookingId: string(),
    status: { type: 'string', enum: ['booked', 'cancelled'] },
    activityId: { type: 'integer' },
    title: nullable(string()),
    slotId: string(),
    date: DATE,
    startTime: string(),
    startsAt: DATE_TIME,
    quantity: { type: 'integer' },
    unitPrice: ref('Money'),
    totalPrice: ref('Money'),
    cancelledAt: nullable(DATE_TIME),
    cancellationReason: nullable(string()),
  }),
  Ticket: object({
    id: string(),
    bookingItemId: string(),
    quantity: { type: 'integer', description: 'Participants admitted.' },
    barcode: object({ format: { type: 'string', const: BARCODE_FORMAT }, value: string('16 digits.', { pattern: '^\\d{16}$' }) }),
    qrCode: string(`Path of the QR code of the bar-code value, a PNG image (GET ${ticketFileTemplate('qr_code')}).`, { pattern: `^/v1/tickets/${TICKET_ID_PATTERN}/qr_code$` }),
    pdf: string(`Path of the one-page PDF ticket (GET ${ticketFileTemplate('pdf')}).`, { pattern: `^/v1/tickets/${TICKET_ID_PATTERN}/pdf$` }),
  }),
  Booking: object({
    id: string(),
    cartId: string(),
    partnerReference: string(),
    locale: { type: 'string', enum: LOCALE_VALUES },
    status: { type: 'string', enum: ['pending_payment', 'confirmed', 'cancelled'], description: 'cancelled once every item is.' },
    customer: ref('Customer'),
    items: { type: 'array', items: ref('BookingItem') },
    totalPrice: { ...ref('Money'), description: 'Sum over the items not cancelled.' },
    payment: nullable(ref('PaymentAttempt')),
    tickets: { type: 'array', items: ref('Ticket'), description: 'One per booked item once the booking is confirmed (paid); empty before.' },
    createdAt: DATE_TIME,
  }),
  CancelRequest: object({ reason: string(undefined, { maxLength: 500 }) }, []),
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
    schema: 'ActivityList',
    summary: 'List activities',
    description: 'Every activity of the locale, by id. The query parameter locale is written with an underscore (de_CH); de-CH is accepted too.',
  },
  listAvailabilities: {
    status: 200,
    schema: 'AvailabilityList',
    summary: 'Availability of one activity',
    description: `Time slots offered from \`from\` to \`to\` (default: the whole booking window, today and the next ${BOOKING_WINDOW_DAYS - 1} days). Sandbox: slots at ${SLOT_TIMES.join(' and ')} ${TIME_ZONE}, one closed weekday per activity, 4 + (id mod 9) places each.`,
  },
  createReservation: {
    status: 201,
    schema: 'Reservation',
    summary: 'Hold places for 15 minutes',
    description: 'Holds `quantity` places of a slot for exactly 15 minutes in a cart (a new one unless `cartId` is given). Of two requests for the last place, one gets it and the other a 409 SOLD_OUT. Into a cart whose hold has expired it is a 410 HOLD_EXPIRED; a cart takes a limited number of reservations (409 CART_FULL) and a client may hold a limited number of places at once (429 HOLD_LIMIT_REACHED, with Retry-After).',
  },
  checkOutCart: {
    status: 200,
    schema: 'Booking',
    summary: 'Check a cart out',
    description: "Turns the cart's holds into a booking carrying the partner's own reference, awaiting payment. A hold that has expired makes it a 410, a held slot that has started a 422.",
  },
  createPaymentAttempt: {
    status: 201,
    schema: 'PaymentAttempt',
    summary: 'Pay a booking',
    description: 'Settles the booking on invoice or by card; it is then confirmed and has its tickets.',
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

const REQUEST_BODIES: Partial<Record<OperationId, { schema: string; required: boolean }>> = {
  createReservation: { schema: 'ReservationRequest', required: true },
  checkOutCart: { schema: 'CheckOutRequest', required: true },
  createPaymentAttempt: { schema: 'PaymentAttemptRequest', required: true },
  cancelBookingItem: { schema: 'CancelRequest', required: false },
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

/**
 * The OpenAPI document of the booking interface.
 *
 * @param mode the mode the server runs in, named in the description
 */
export function openApiDocument(mode: 'proxy' | 'sandbox'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const success = SUCCESS[operation.id];
    const parameters: Schema[] = [];
    if (operation.path.includes('{id}')) parameters.push({ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: `^${ID_PATTERN}$` } });
    parameters.push({
      name: 'locale',
      in: 'query',
      required: false,
      description: 'de_CH (default), en_CH, fr_CH or it_CH; the hyphen form (de-CH) is accepted and forwarded as de_CH.',
      schema: { type: 'string', enum: [...LOCALE_VALUES, ...Object.keys(BOOKING_LOCALES)] },
    });
    if (operation.id === 'listAvailabilities') {
      parameters.push({ name: 'from', in: 'query', required: false, schema: DATE }, { name: 'to', in: 'query', required: false, schema: DATE });
    }
    if (operation.method !== 'GET') {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: `Makes a retry safe: a 2xx response is stored for ${IDEMPOTENCY_TTL_MS / 3_600_000} h and answered again (with Idempotent-Replayed: true) to the same request under the same key; another request under it is a 422, one while the first runs a 409.`,
        schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      });
    }
    const requestBody = REQUEST_BODIES[operation.id];
    const responses: Record<string, unknown> = {
      [success.status]: { description: success.summary, content: { 'application/json': { schema: ref(success.schema) } } },
    };
    for (const status of [...ERROR_STATUSES[operation.id]].sort((a, b) => a - b)) responses[status] = errorResponse(status);
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = {
      operationId: operation.id,
      summary: success.summary,
      description: success.description,
      parameters,
      ...(requestBody ? { requestBody: { required: requestBody.required, content: { 'application/json': { schema: ref(requestBody.schema) } } } } : {}),
      responses,
    };
  }
  if (mode === 'sandbox') for (const kind of Object.keys(TICKET_FILE_TYPES) as TicketFileKind[]) paths[ticketFileTemplate(kind)] = ticketFileOperation(kind);
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      responses: { 200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Booking interface',
      version: '1',
      description: [
        `This server runs in **${mode}** mode.`,
        mode === 'proxy'
          ? 'Calls are forwarded to the booking partner with the contract credential added on the server; status and body are the partner\'s, so payloads may differ from the schemas below, which describe the sandbox.'
          : 'The sandbox is a complete offline implementation over the loaded activities; nothing reaches the partner.',
        'Errors: `{ "error": { "code", "message", "details" } }`. An unknown path under /v1 is a 404 NOT_FOUND, a method a path does not answer a 405 METHOD_NOT_ALLOWED with `Allow`.',
        'POST and PATCH bodies are JSON (Content-Type: application/json, at most 64 KiB) and are rate-limited per client (429 with Retry-After).',
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas: SCHEMAS },
  };
}
