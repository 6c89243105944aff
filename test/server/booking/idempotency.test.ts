import { describe, expect, it } from 'vitest';
import { createIdempotencyStore, IDEMPOTENCY_TTL_MS } from '../../../server/booking/idempotency.ts';
import { jsonReply } from '../../../server/booking/operations.ts';
import { CHECK_OUT, hold, placesLeft, request, sandboxForFile, START } from './helpers.ts';

const sandbox = sandboxForFile();

const available = (slotId: string) => placesLeft(sandbox().url, slotId);

describe('Idempotency-Key over HTTP', () => {
  it('answers a retried reservation with the stored response and holds the places once', async () => {
    const options = { body: hold('9-20261123-0900', 2), headers: { 'idempotency-key': 'reserve-1' } };
    const first = await request(sandbox().url, 'POST', '/v1/reservations', options);
    const retry = await request(sandbox().url, 'POST', '/v1/reservations', options);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await available('9-20261123-0900')).toBe(2);
  });

  it('answers a retried check-out, payment and cancellation as the first time', async () => {
    const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261123-1300', 1) });
    const checkOut = { body: CHECK_OUT, headers: { 'idempotency-key': 'check-out-1' } };
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, checkOut);
    expect(await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, checkOut)).toMatchObject({ status: 200, body: booking.body });
    // Without the key, a second check-out is refused.
    expect((await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT })).status).toBe(409);

    const pay = { body: { paymentMethod: 'invoice' }, headers: { 'idempotency-key': 'pay-1' } };
    const payment = await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay);
    expect(await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay)).toMatchObject({ status: 201, body: payment.body });

    const cancel = { headers: { 'idempotency-key': 'cancel-1' } };
    const cancelled = await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.body.items[0].bookingItemId}/cancel`, cancel);
    const again = await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.body.items[0].bookingItemId}/cancel`, cancel);
    expect(again).toMatchObject({ status: 200, body: cancelled.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a different request under a used key with 422, changing nothing', async () => {
    const headers = { 'idempotency-key': 'reserve-2' };
    await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261125-0900', 1), headers });
    const other = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261125-0900', 3), headers });
    expect(other.status).toBe(422);
    expect(other.body.error).toEqual({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'Idempotency-Key "reserve-2" was already used for a different request; use a new key for a new request',
      details: { idempotencyKey: 'reserve-2' },
    });
    expect(await available('9-20261125-0900')).toBe(3);
  });

  it('does not store an error: a retry under the same key runs again', async () => {
    const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261126-0900', 1) });
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT });
    const pay = { body: { paymentMethod: 'sandbox_declined' }, headers: { 'idempotency-key': 'pay-declined' } };
    expect((await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay)).status).toBe(422);
    const retry = await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, pay);
    expect(retry.status).toBe(422);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 to a retry sent while the first request is still running', async () => {
    const options = { body: hold('9-20261127-0900', 1), headers: { 'idempotency-key': 'parallel' } };
    const answers = await Promise.all([request(sandbox().url, 'POST', '/v1/reservations', options), request(sandbox().url, 'POST', '/v1/reservations', options)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await available('9-20261127-0900')).toBe(3);
  });

  it('refuses a key that is not one value of visible ASCII', async () => {
    for (const key of ['two words', 'x'.repeat(256)]) {
      const answer = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261127-1300', 1), headers: { 'idempotency-key': key } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toEqual({ field: 'Idempotency-Key' });
    }
  });
});

describe('createIdempotencyStore', () => {
  const reply = jsonReply(201, { id: 'rsv_1' });

  it('forgets a stored response after 24 hours', () => {
    const store = createIdempotencyStore();
    expect(store.begin('k', 'f', START)).toBeUndefined();
    store.release('k', 'f', reply, START);
    expect(store.begin('k', 'f', START + IDEMPOTENCY_TTL_MS - 1)).toBe(reply);
    expect(store.begin('k', 'other', START + IDEMPOTENCY_TTL_MS)).toBeUndefined();
  });

  it('stores only 2xx responses and frees the key after any run', () => {
    const store = createIdempotencyStore();
    store.begin('k', 'f', START);
    store.release('k', 'f', jsonReply(409, {}), START);
    expect(store.begin('k', 'f', START)).toBeUndefined();
    store.release('k', 'f', undefined, START);
    expect(store.begin('k', 'g', START)).toBeUndefined();
  });

  it('ignores a restored response that has already expired', () => {
    const store = createIdempotencyStore();
    store.restore('old', { fingerprint: 'f', storedAt: START - IDEMPOTENCY_TTL_MS, reply }, START);
    store.restore('new', { fingerprint: 'f', storedAt: START - 1, reply }, START);
    expect(store.begin('old', 'f', START)).toBeUndefined();
    expect(store.begin('new', 'f', START)).toBe(reply);
  });
});
