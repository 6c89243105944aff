import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ticketCategoryIdOf } from '../../../server/booking/partnerViews.ts';
import { CHECK_OUT, hold, request, sandboxForFile, START, startBooking, tempStateDir } from './helpers.ts';

const sandbox = sandboxForFile();

const reserve = (body: unknown, headers?: Record<string, string>) => request(sandbox().url, 'POST', '/v1/reservations', { body, headers });

describe('400 INVALID_REQUEST', () => {
  it('names the allowed locales for an unknown one', async () => {
    const { status, body } = await request(sandbox().url, 'GET', '/v1/activities?locale=rm_CH');
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: 'Unknown locale "rm_CH" in query parameter locale; allowed: de_CH, en_CH, fr_CH, it_CH (or written with "-", e.g. de-CH)',
        details: { field: 'query parameter locale', allowed: ['de_CH', 'en_CH', 'fr_CH', 'it_CH'] },
      },
    });
  });

  it('refuses a body that is not a JSON object', async () => {
    expect((await reserve('{"activityId":')).body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'body' } });
    expect((await reserve('[1]')).body.error.message).toBe('The body must be a JSON object');
    expect((await request(sandbox().url, 'POST', '/v1/reservations')).body.error.message).toBe('The request needs a JSON object body');
  });

  it('refuses a body nested deeper than 64 levels with a 400, on a POST and on a PATCH', async () => {
    const nested = (depth: number) => `{"activityId":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const refused = { code: 'INVALID_REQUEST', message: 'The body nests arrays and objects more than 64 levels deep, the limit', details: { field: 'body' } };
    expect((await reserve(nested(5_000))).body.error).toEqual(refused);
    const patch = await request(sandbox().url, 'PATCH', '/v1/booking_items/itm_x/cancel', { body: nested(5_000), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toEqual(refused);
    expect((await reserve(nested(65))).body.error).toEqual(refused);
    // 64 levels are read, and refused for what they hold.
    expect((await reserve(nested(64))).body.error.message).not.toBe(refused.message);
  });

  it('names a missing, mistyped, out-of-range or unknown field of a reservation', async () => {
    const valid = hold('9-20261121-0900', 1);
    const category = ticketCategoryIdOf(9);
    const cases: [unknown, string, string][] = [
      [{ ...valid, activityId: undefined }, 'activityId', 'activityId must be an integer from 1 to 2147483647'],
      [{ ...valid, availabilityId: undefined }, 'availabilityId', 'availabilityId is required'],
      [{ ...valid, availabilityId: 9 }, 'availabilityId', 'availabilityId must be a string'],
      [{ ...valid, availabilityId: 'tomorrow' }, 'availabilityId', 'availabilityId must be an availabilityId from the availabilities, e.g. 4711-20261122-0900'],
      [{ ...valid, selection: [] }, 'selection', 'selection must be an array of 1 to 20 objects'],
      [{ ...valid, selection: [1] }, 'selection[0]', 'selection[0] must be an object'],
      [{ ...valid, selection: [{ ticketCategoryId: category, numGuests: 0 }] }, 'selection[0].numGuests', 'selection[0].numGuests must be an integer from 1 to 50'],
      [{ ...valid, selection: [{ ticketCategoryId: category, numGuests: 1.5 }] }, 'selection[0].numGuests', 'selection[0].numGuests must be an integer from 1 to 50'],
      [{ ...valid, selection: [{ ticketCategoryId: category, numGuests: 1, guests: 1 }] }, 'selection[0].guests', 'Unknown field selection[0].guests; allowed: selection[0].ticketCategoryId, selection[0].numGuests'],
      [
        { ...valid, selection: [{ ticketCategoryId: category, numGuests: 1 }, { ticketCategoryId: category, numGuests: 2 }] },
        'selection[1].ticketCategoryId',
        `selection names ticket category ${category} twice; give each category once with its numGuests`,
      ],
      [{ ...valid, selection: [{ ticketCategoryId: 1, numGuests: 1 }] }, 'selection[0].ticketCategoryId', `selection[0].ticketCategoryId 1 is not a ticket category of availability 9-20261121-0900; allowed: ${category}`],
      [{ ...valid, doCreateCart: 'yes' }, 'doCreateCart', 'doCreateCart must be true or false'],
      [{ ...valid, doCreateCart: true, cartId: 'cart_1' }, 'doCreateCart', 'doCreateCart must not be true together with cartId: either add to that cart or create one'],
      [{ ...valid, doCreateCart: false }, 'cartId', 'cartId is required when doCreateCart is false'],
      [{ ...valid, cart: 'x' }, 'cart', 'Unknown field cart; allowed: activityId, availabilityId, selection, locale, doCreateCart, cartId'],
    ];
    for (const [body, field, message] of cases) {
      const answer = await reserve(body);
      expect(answer.status, field).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'INVALID_REQUEST', message, details: { field } });
    }
  });

  it('names the nested field of a bad check-out and of a bad payment', async () => {
    const { body: reservation } = await reserve(hold('9-20261121-0900', 1));
    const checkOut = (body: unknown) => request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body });
    expect((await checkOut({ ...CHECK_OUT, user: { ...CHECK_OUT.user, email: 'anna' } })).body.error).toMatchObject({
      message: 'user.email must be an e-mail address',
      details: { field: 'user.email' },
    });
    expect((await checkOut({ ...CHECK_OUT, user: { ...CHECK_OUT.user, countryCode: 'ch' } })).body.error).toMatchObject({
      message: 'user.countryCode must be an ISO 3166-1 alpha-2 country code, e.g. CH',
      details: { field: 'user.countryCode' },
    });
    expect((await checkOut({ ...CHECK_OUT, user: { ...CHECK_OUT.user, birthday: '1990-01-01' } })).body.error.details).toMatchObject({ field: 'user.birthday' });
    expect((await checkOut({ partnerReference: 'x' })).body.error.message).toBe('user must be an object');
    expect((await checkOut({ ...CHECK_OUT, locale: 'de_CH' })).body.error.details).toMatchObject({ field: 'locale' });

    const booking = await checkOut(CHECK_OUT);
    const pay = (body: unknown) => request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, { body });
    expect((await pay({ paymentMethod: 'cash' })).body.error).toMatchObject({
      message: 'paymentMethod "cash" is not one the sandbox takes; allowed: invoice, card, twint, apple_pay, ideal (sandbox_declined is always declined)',
      details: { field: 'paymentMethod' },
    });
    expect((await pay({})).body.error).toMatchObject({ message: 'paymentMethod is required', details: { field: 'paymentMethod' } });
    expect((await pay({ paymentMethod: 'card', successReturnUrl: '/paid' })).body.error).toMatchObject({ message: 'successReturnUrl must be an absolute http(s) URL', details: { field: 'successReturnUrl' } });
    expect((await pay({ paymentMethod: 'card', language: 'de_DE' })).body.error.details).toMatchObject({ field: 'language' });
    expect((await pay({ method: 'invoice' })).body.error.details).toMatchObject({ field: 'method' });
  });

  it('refuses a date that is not a calendar date, and a range that ends before it starts', async () => {
    const bad = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Query parameter startsAfter must be a date written YYYY-MM-DD, got "2026-02-30"');
    const reversed = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-22&untilEndOfDay=2026-11-21');
    expect(reversed.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'untilEndOfDay' } });
    for (const limit of ['0', '501', 'ten']) {
      const answer = await request(sandbox().url, 'GET', `/v1/activities/9/availabilities?limit=${limit}`);
      expect(answer.body.error, limit).toMatchObject({ code: 'INVALID_REQUEST', message: `Query parameter limit must be an integer from 1 to 500, got "${limit}"`, details: { field: 'limit' } });
    }
  });

  it('refuses a query parameter given twice, one the operation does not take, and one that is not UTF-8', async () => {
    const twice = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?limit=1&limit=500');
    expect(twice).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: 'Query parameter limit is given more than once; give each at most once', details: { field: 'limit' } } },
    });
    const unknown = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?lmit=3');
    expect(unknown).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'INVALID_REQUEST',
          message: 'Unknown query parameter "lmit" for GET /v1/activities/{id}/availabilities; allowed: locale, startsAfter, untilEndOfDay, limit',
          details: { field: 'lmit', allowed: ['locale', 'startsAfter', 'untilEndOfDay', 'limit'] },
        },
      },
    });
    expect((await request(sandbox().url, 'GET', '/v1/activities?limit=3')).body.error).toMatchObject({ details: { field: 'limit', allowed: ['locale'] } });
    expect((await request(sandbox().url, 'GET', '/v1/bookings/bkg_missing?locale=de_CH&locale=fr_CH')).body.error).toMatchObject({ details: { field: 'locale' } });
    const misencoded = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=%E2%82');
    expect(misencoded).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: 'Parameter "startsAfter" is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX', details: { field: 'startsAfter' } } },
    });
  });
});

describe('404 NOT_FOUND', () => {
  it('answers a path that is none of the seven', async () => {
    for (const target of ['/v1', '/v1/', '/v1/admin', '/v1/bookings', '/v1/bookings/a/b', '/v1/bookings/..%2Fadmin', '/v1/bookings/a.b', `/v1/bookings/${'x'.repeat(129)}`]) {
      const answer = await request(sandbox().url, 'GET', target);
      expect(answer.status, target).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'path' } });
    }
  });

  it('answers an id that names nothing, saying what was looked for', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/v1/activities/999/availabilities', undefined, 'activity'],
      ['GET', '/v1/activities/abc/availabilities', undefined, 'activity'],
      ['GET', '/v1/bookings/bkg_missing', undefined, 'booking'],
      ['PATCH', '/v1/carts/cart_missing/check_out', CHECK_OUT, 'cart'],
      ['POST', '/v1/bookings/bkg_missing/payment_attempts', { paymentMethod: 'invoice' }, 'booking'],
      ['PATCH', '/v1/booking_items/itm_missing/cancel', undefined, 'booking_item'],
      ['POST', '/v1/reservations', hold('9-20261121-0900', 1, { cartId: 'cart_missing' }), 'cart'],
    ];
    for (const [method, target, body, resource] of cases) {
      const answer = await request(sandbox().url, method, target, { body });
      expect(answer.status, `${method} ${target}`).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'NOT_FOUND', details: { resource } });
    }
  });
});

describe('405 METHOD_NOT_ALLOWED', () => {
  it('lists the methods the path answers', async () => {
    const answer = await request(sandbox().url, 'DELETE', '/v1/bookings/bkg_1');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, OPTIONS');
    expect(answer.body.error).toEqual({ code: 'METHOD_NOT_ALLOWED', message: '/v1/bookings/bkg_1 answers GET, OPTIONS, not DELETE', details: { allowed: ['GET', 'OPTIONS'] } });
    expect((await request(sandbox().url, 'POST', '/v1/activities')).headers.get('allow')).toBe('GET, OPTIONS');
    expect((await request(sandbox().url, 'POST', '/v1/openapi.json')).status).toBe(405);
  });

  it('answers OPTIONS without an origin with the methods', async () => {
    const response = await fetch(`${sandbox().url}/v1/carts/cart_1/check_out`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('PATCH, OPTIONS');
  });
});

describe('409 conflicts', () => {
  it('SOLD_OUT: more places requested than are left', async () => {
    const answer = await reserve(hold('9-20261128-0900', 5));
    expect(answer.status).toBe(409);
    expect(answer.body.error).toEqual({
      code: 'SOLD_OUT',
      message: 'Availability 9-20261128-0900 has 4 places left, 5 requested',
      details: { availabilityId: '9-20261128-0900', requested: 5, available: 4 },
    });
  });

  it('CART_CHECKED_OUT: a reservation into, or a check-out of, a checked-out cart', async () => {
    const { body: reservation } = await reserve(hold('9-20261128-1300', 1));
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body: CHECK_OUT });
    const details = { cartId: reservation.cart.cartId, bookingId: booking.body.bookingId };
    const add = await reserve(hold('9-20261128-1300', 1, { cartId: reservation.cart.cartId }));
    expect(add.status).toBe(409);
    expect(add.body.error).toMatchObject({ code: 'CART_CHECKED_OUT', details });
    const again = await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body: CHECK_OUT });
    expect(again.body.error).toMatchObject({ code: 'CART_CHECKED_OUT', details });
  });

  it('BOOKING_CANCELLED: paying a booking whose items are all cancelled', async () => {
    const { body: reservation } = await reserve(hold('4711-20261128-1300', 1));
    const booking = (await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body: CHECK_OUT })).body;
    await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.items[0].bookingItemId}/cancel`);
    const answer = await request(sandbox().url, 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { body: { paymentMethod: 'invoice' } });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'BOOKING_CANCELLED', details: { bookingId: booking.bookingId } });
  });
});

describe('413, 415', () => {
  it('refuses a body over 64 KiB, declared or streamed, and closes the connection', async () => {
    const declared = await reserve(JSON.stringify({ pad: 'x'.repeat(70_000) }));
    expect(declared.status).toBe(413);
    expect(declared.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The body is over 65536 bytes', details: { limitBytes: 65536 } });
    expect(declared.headers.get('connection')).toBe('close');

    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${sandbox().url}/v1/reservations`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      // No Content-Length: the body arrives chunked and is counted while it is read.
      req.write('x'.repeat(40_000));
      req.end('x'.repeat(40_000));
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a body over 64 KiB on any path and method, as a cluster worker does before passing it on', async () => {
    const padded = JSON.stringify({ pad: 'x'.repeat(70_000) });
    for (const [method, target] of [['PUT', '/v1/activities'], ['POST', '/v1/nowhere']] as const) {
      const answer = await request(sandbox().url, method, target, { body: padded, unchecked: true });
      expect(answer.status, `${method} ${target}`).toBe(413);
      expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('refuses a body that is not sent as JSON, taking merge-patch JSON on a PATCH only', async () => {
    const answer = await reserve(JSON.stringify(hold('9-20261129-0900', 1)), { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.body.error).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'The body must be JSON sent as Content-Type: application/json, not "text/plain"',
      details: { contentType: 'text/plain', allowed: ['application/json'] },
    });
    expect((await reserve(hold('9-20261129-0900', 1), { 'content-type': 'application/merge-patch+json' })).status).toBe(415);
    const patch = await request(sandbox().url, 'PATCH', '/v1/booking_items/itm_x/cancel', { body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(patch.body.error.message).toBe('The body must be JSON sent as Content-Type: application/merge-patch+json or application/json, not "text/plain"');
    const charset = await reserve(hold('9-20261129-0900', 1), { 'content-type': 'application/json; charset=utf-8' });
    expect(charset.status).toBe(201);
  });
});

describe('422 SLOT_UNAVAILABLE, CURRENCY_MISMATCH', () => {
  it('says why an availability cannot be reserved', async () => {
    const cases: [string, string][] = [
      ['20-20261120-0900', 'no such availability (closed day, unknown date or start time)'],
      ['9-20261121-1000', 'no such availability (closed day, unknown date or start time)'],
      ['9-20261131-0900', 'no such availability (closed day, unknown date or start time)'],
      ['999-20261122-0900', 'no activity 999'],
      ['12-20261122-0900', 'activity 12 is not bookable'],
      ['13-20261122-0900', 'activity 13 is not bookable'],
      ['9-20261119-0900', 'the availability has started or lies outside the booking window'],
      ['9-20261220-0900', 'the availability has started or lies outside the booking window'],
    ];
    for (const [availabilityId, reason] of cases) {
      const answer = await reserve(hold(availabilityId, 1));
      expect(answer.status, availabilityId).toBe(422);
      expect(answer.body.error).toEqual({ code: 'SLOT_UNAVAILABLE', message: `Availability ${availabilityId} cannot be reserved: ${reason}`, details: { availabilityId, reason } });
    }
    const otherActivity = await reserve(hold('9-20261122-0900', 1, { activityId: 4711 }));
    expect(otherActivity.body.error.details).toEqual({ availabilityId: '9-20261122-0900', reason: 'availability 9-20261122-0900 belongs to activity 9, not 4711' });
  });

  it('stops offering a slot once it has started', async () => {
    sandbox().now = Date.parse('2026-11-20T08:00:00Z');
    try {
      const { body } = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-20&untilEndOfDay=2026-11-20');
      expect(body[0].availabilities.map((a: { availabilityId: string }) => a.availabilityId)).toEqual(['9-20261120-1300']);
      expect((await reserve(hold('9-20261120-0900', 1))).status).toBe(422);
    } finally {
      sandbox().now = START;
    }
  });

  it('refuses to check out a hold whose slot has started meanwhile', async () => {
    // Held at 08:55 for the 09:00 slot (Zurich), checked out at 09:00, within the 15 minutes.
    sandbox().now = Date.parse('2026-11-20T07:55:00Z');
    try {
      const { body: reservation } = await reserve(hold('9-20261120-0900', 1));
      sandbox().now = Date.parse('2026-11-20T08:00:00Z');
      const answer = await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.cart.cartId}/check_out`, { body: CHECK_OUT });
      expect(answer.status).toBe(422);
      expect(answer.body.error).toEqual({
        code: 'SLOT_UNAVAILABLE',
        message: `Cart ${reservation.cart.cartId} cannot be checked out: availability 9-20261120-0900 has started`,
        details: { availabilityId: '9-20261120-0900', reason: 'the availability has started' },
      });
    } finally {
      sandbox().now = START;
    }
  });

  it('keeps one currency per cart', async () => {
    const { body: reservation } = await reserve(hold('9-20261129-1300', 1));
    const answer = await reserve(hold('20-20261129-1300', 1, { cartId: reservation.cart.cartId }));
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'CURRENCY_MISMATCH', details: { cartId: reservation.cart.cartId, cartCurrency: 'CHF', availabilityCurrency: 'EUR' } });
  });
});

describe('429 RATE_LIMITED', () => {
  it('limits POST and PATCH per client, says when to retry, and leaves GET alone', async () => {
    const dir = await tempStateDir();
    const limited = await startBooking({ mode: 'sandbox', stateDir: dir.dir, rateLimitPerMinute: 2 });
    try {
      const post = () => request(limited.url, 'POST', '/v1/reservations', { body: hold('9-20261130-0900', 1) });
      expect((await post()).status).toBe(201);
      expect((await request(limited.url, 'PATCH', '/v1/booking_items/itm_x/cancel')).status).toBe(404);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body.error).toEqual({
        code: 'RATE_LIMITED',
        message: 'Too many requests; at most 2 POST/PATCH per minute per client. Retry in 30 s',
        details: { retryAfterSeconds: 30 },
      });
      expect((await request(limited.url, 'GET', '/v1/activities')).status).toBe(200);
      limited.now += 30_000;
      expect((await post()).status).toBe(201);
    } finally {
      await limited.stop();
      await dir.remove();
    }
  });

  it('tells clients behind a trusted proxy apart by X-Forwarded-For, and ignores the header when no proxy is trusted', async () => {
    const dirs = [await tempStateDir(), await tempStateDir()];
    const behindProxy = await startBooking({ mode: 'sandbox', stateDir: dirs[0]!.dir, rateLimitPerMinute: 1, trustedProxies: 1 });
    const direct = await startBooking({ mode: 'sandbox', stateDir: dirs[1]!.dir, rateLimitPerMinute: 1, trustedProxies: 0 });
    try {
      // As the proxy passes them on: what the client sent, then the address the proxy saw.
      const post = (base: string, forwardedFor: string) =>
        request(base, 'POST', '/v1/reservations', { body: hold('9-20261130-0900', 1), headers: { 'x-forwarded-for': forwardedFor } });
      expect((await post(behindProxy.url, '198.51.100.1')).status).toBe(201);
      expect((await post(behindProxy.url, '198.51.100.2')).status).toBe(201);
      // A client cannot pass for another by writing the header itself.
      expect((await post(behindProxy.url, '203.0.113.99, 198.51.100.1')).status).toBe(429);

      expect((await post(direct.url, '198.51.100.1')).status).toBe(201);
      expect((await post(direct.url, '198.51.100.2')).status).toBe(429);
    } finally {
      await behindProxy.stop();
      await direct.stop();
      for (const dir of dirs) await dir.remove();
    }
  });
});

describe('500 INTERNAL_SERVER_ERROR', () => {
  it('hides an unexpected error from the client and logs it in full', async () => {
    const dir = await tempStateDir();
    const broken = await startBooking({
      mode: 'sandbox',
      stateDir: dir.dir,
      activities: () => {
        throw new Error('store unavailable at /srv/data/secret');
      },
    });
    try {
      const answer = await request(broken.url, 'GET', '/v1/activities');
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', details: {} } });
      expect(broken.logs.at(-1)).toMatch(/^booking: internal error answering GET \/v1\/activities: Error: store unavailable at \/srv\/data\/secret\n\s+at /);
    } finally {
      await broken.stop();
      await dir.remove();
    }
  });
});
