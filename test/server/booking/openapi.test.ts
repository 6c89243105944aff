import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../server/booking/errors.ts';
import { openApiDocument } from '../../../server/booking/openapi.ts';
import { OPENAPI_PATH, OPERATIONS } from '../../../server/booking/operations.ts';
import { AVAILABILITY_PARAMETERS, LOCALE_PARAMETER, REQUEST_BODIES } from '../../../server/booking/requestSchemas.ts';
import { CHECK_OUT, hold, request, sandboxForFile, validate } from './helpers.ts';

type Document = {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};
const document = openApiDocument('sandbox') as Document;

const sandbox = sandboxForFile();

function documented(): { path: string; method: string; operationId: string }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operationId: operation.operationId })),
  );
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and describes exactly the seven operations, the ticket files (sandbox mode) and itself', () => {
    expect(document.openapi).toBe('3.1.0');
    const operations = OPERATIONS.map(({ path, method, id }) => ({ path, method, operationId: id }));
    const itself = { path: OPENAPI_PATH, method: 'GET', operationId: 'getOpenApi' };
    expect(documented()).toEqual([
      ...operations,
      { path: '/v1/tickets/{ticketId}/pdf', method: 'GET', operationId: 'getTicketPdf' },
      { path: '/v1/tickets/{ticketId}/qr_code', method: 'GET', operationId: 'getTicketQrCode' },
      itself,
    ]);
    const proxy = openApiDocument('proxy') as Document;
    expect(Object.keys(proxy.paths)).toEqual([...new Set(OPERATIONS.map(({ path }) => path)), OPENAPI_PATH]);
  });

  it('is served at /v1/openapi.json, naming the mode', async () => {
    const response = await fetch(`${sandbox().url}${OPENAPI_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(document);
    expect((openApiDocument('proxy') as { info: { description: string } }).info.description).toMatch(/^This server runs in \*\*proxy\*\* mode/);
    const head = await fetch(`${sandbox().url}${OPENAPI_PATH}`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('has every documented operation served: none answers 405 or "no such path"', async () => {
    for (const { path, method } of documented()) {
      const answer = await request(sandbox().url, method, path.replace('{id}', 'x1').replace('{ticketId}', 'tkt_0123456789abcdef'), method === 'GET' ? {} : { body: {} });
      expect(answer.status, `${method} ${path}`).not.toBe(405);
      expect(answer.body?.error?.details?.resource, `${method} ${path}`).not.toBe('path');
    }
  });

  it('lists every error status of the code under some operation (405 is answered only outside them)', () => {
    const listed = new Set(Object.values(document.paths).flatMap((methods) => Object.values(methods).flatMap((operation) => Object.keys(operation.responses).map(Number))));
    const sent = new Set(Object.values(ERROR_STATUS).filter((status) => status !== 405));
    expect([...sent].filter((status) => !listed.has(status))).toEqual([]);
  });

  it("describes the request bodies the partner's website sends, and takes PATCH bodies as merge-patch JSON", () => {
    // As Swiss Activities' website builds them (services/bookingServices.js and its booking pages).
    const bodies: [string, unknown][] = [
      ['ReservationRequest', { activityId: 9, availabilityId: '9-20261121-0900', selection: [{ ticketCategoryId: 901, numGuests: 2 }], locale: 'de_CH', doCreateCart: true }],
      ['CheckOutRequest', { user: { givenName: 'Anna', familyName: 'Muster', email: 'anna@example.ch', phone: '+41791234567', countryCode: 'CH' } }],
      ['PaymentAttemptRequest', { successReturnUrl: 'https://shop.example/ok', failureReturnUrl: 'https://shop.example/ko', language: 'de_CH', paymentMethod: 'twint' }],
    ];
    for (const [name, body] of bodies) expect(validate(body, { $ref: `#/components/schemas/${name}` }), name).toEqual([]);
    const checkOut = document.paths['/v1/carts/{id}/check_out']!.patch as unknown as { requestBody: { content: Record<string, unknown> } };
    expect(Object.keys(checkOut.requestBody.content)).toEqual(['application/merge-patch+json', 'application/json']);
  });

  it("publishes as each operation's request body the schema its route validates with", () => {
    const withBodies = Object.values(document.paths).flatMap((methods) => Object.values(methods)).filter((operation) => 'requestBody' in operation);
    expect(withBodies.map((operation) => operation.operationId).sort()).toEqual(Object.keys(REQUEST_BODIES).sort());
    for (const operation of withBodies as unknown as { operationId: keyof typeof REQUEST_BODIES; requestBody: { required: boolean; content: Record<string, { schema: unknown }> } }[]) {
      const { name, schema, required } = REQUEST_BODIES[operation.operationId]!;
      expect(operation.requestBody.required, operation.operationId).toBe(required);
      for (const content of Object.values(operation.requestBody.content)) expect(content.schema).toEqual({ $ref: `#/components/schemas/${name}` });
      expect(document.components.schemas[name], name).toEqual(JSON.parse(JSON.stringify(schema)));
    }
  });

  it('publishes as query parameters the schemas the routes check them with', () => {
    const parameters = (document.paths['/v1/activities/{id}/availabilities']!.get as unknown as { parameters: { name: string; in: string; schema: unknown }[] }).parameters;
    const query = Object.fromEntries(parameters.filter((parameter) => parameter.in === 'query').map(({ name, schema }) => [name, schema]));
    expect(query).toEqual(JSON.parse(JSON.stringify({ locale: LOCALE_PARAMETER, ...AVAILABILITY_PARAMETERS })));
  });

  it("refuses by the document's schema every body the route refuses for its shape", async () => {
    const { body: reservation } = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261121-0900', 1) });
    const { body: booking } = await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body: CHECK_OUT });
    const valid = hold('9-20261121-0900', 1);
    const cases: [string, string, string, Record<string, unknown>][] = [
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, activityId: 0 }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, activityId: '9' }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, availabilityId: 'tomorrow' }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, selection: [] }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, selection: [{ ticketCategoryId: 1, numGuests: 51 }] }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, locale: 'rm_CH' }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, cartId: '' }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, cartId: 'c'.repeat(129) }],
      ['ReservationRequest', 'POST', '/v1/reservations', { ...valid, cart: 'x' }],
      ['CheckOutRequest', 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { ...CHECK_OUT, user: { ...CHECK_OUT.user, email: 'anna' } }],
      ['CheckOutRequest', 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { ...CHECK_OUT, user: { ...CHECK_OUT.user, givenName: '' } }],
      ['CheckOutRequest', 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { ...CHECK_OUT, user: { ...CHECK_OUT.user, countryCode: 'ch' } }],
      ['CheckOutRequest', 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { ...CHECK_OUT, partnerReference: 'r'.repeat(65) }],
      ['CheckOutRequest', 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { partnerReference: 'x' }],
      ['PaymentAttemptRequest', 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { paymentMethod: 'cash' }],
      ['PaymentAttemptRequest', 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { paymentMethod: 'card', successReturnUrl: '/paid' }],
      ['PaymentAttemptRequest', 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { paymentMethod: 'card', language: 'de_DE' }],
      ['PaymentAttemptRequest', 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, {}],
      ['CancelRequest', 'PATCH', `/v1/booking_items/${booking.items[0].bookingItemId}/cancel`, { reason: 5 }],
      ['CancelRequest', 'PATCH', `/v1/booking_items/${booking.items[0].bookingItemId}/cancel`, { why: 'x' }],
    ];
    for (const [name, method, path, body] of cases) {
      const answer = await request(sandbox().url, method, path, { body });
      expect(answer.body.error?.code, `${name} ${JSON.stringify(body)}`).toBe('INVALID_REQUEST');
      expect(validate(body, { $ref: `#/components/schemas/${name}` }), `${name} ${JSON.stringify(body)}`).not.toEqual([]);
    }
  });

  it('resolves every $ref', () => {
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(document.components.schemas).toHaveProperty(ref.slice(8, -1).replace('#/components/schemas/', ''));
  });
});

describe('the schema check used on every response in these tests', () => {
  const item = {
    bookingItemId: 'itm_1',
    bookingId: 'bkg_1',
    status: 'booked',
    activityId: 9,
    availabilityId: '9-20261121-0900',
    startsAt: '2026-11-21T09:00:00+01:00',
    endsAt: null,
    isAllDay: false,
    numGuests: 1,
    service: { activity: null },
    relatedIds: { activity_id: 9, activity_id_capi: 'act-9', offer_id: 9 },
    reservations: [{ reservationId: 'rsv_1' }],
    totalPrice: { amount: '1.00', currency: 'CHF', formatted: 'CHF 1.00' },
    cancelledAt: null,
    cancellationReason: null,
  };
  const schema = { $ref: '#/components/schemas/BookingItem' };

  it('accepts a valid value', () => {
    expect(validate(item, schema)).toEqual([]);
  });

  it('reports a missing, extra, mistyped, null or out-of-enum field', () => {
    const { numGuests: _, ...missing } = item;
    expect(validate(missing, schema)).toEqual(['$.numGuests: required']);
    expect(validate({ ...item, extra: 1 }, schema)).toEqual(['$.extra: not in the schema']);
    expect(validate({ ...item, activityId: '9' }, schema)).toEqual(['$.activityId: expected integer, got string']);
    expect(validate({ ...item, availabilityId: null }, schema)).toEqual(['$.availabilityId: expected string, got null']);
    expect(validate({ ...item, status: 'gone' }, schema)).toEqual(['$.status: "gone" not in enum']);
    expect(validate({ ...item, totalPrice: { ...item.totalPrice, amount: 'free' } }, schema)).toEqual(['$.totalPrice.amount: "free" does not match ^\\d+(\\.\\d+)?$']);
  });
});
