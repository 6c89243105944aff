import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_OUT, type Harness, hold, placesLeft, request, START, startBooking, tempStateDir } from './helpers.ts';

const HOLD_MS = 15 * 60_000;
/** Activity 9 has 4 places per slot. */
const SLOT = '9-20261121-0900';

let h: Harness;
let state: Awaited<ReturnType<typeof tempStateDir>>;

beforeEach(async () => {
  state = await tempStateDir();
  h = await startBooking({ mode: 'sandbox', stateDir: state.dir });
});

afterEach(async () => {
  await h.stop();
  await state.remove();
});

const available = () => placesLeft(h.url, SLOT);

function reserve(quantity: number, cartId?: string) {
  return request(h.url, 'POST', '/v1/reservations', { body: hold(SLOT, quantity, cartId ? { cartId } : {}) });
}

describe('reservation holds', () => {
  it('hold places for exactly 15 minutes, then release them', async () => {
    const { body } = await reserve(3);
    expect(body.expiresAt).toBe(new Date(START + HOLD_MS).toISOString());
    h.now = START + HOLD_MS - 1;
    expect(await available()).toBe(1);
    h.now = START + HOLD_MS;
    expect(await available()).toBe(4);
  });

  it('can be checked out up to the last millisecond of the hold', async () => {
    const { body } = await reserve(2);
    h.now = START + HOLD_MS - 1;
    const checkOut = await request(h.url, 'PATCH', `/v1/carts/${body.cart.cartId}/check_out`, { body: CHECK_OUT });
    expect(checkOut.status).toBe(200);
    // Checked out, the places are booked: the hold's expiry no longer frees them.
    h.now = START + 2 * HOLD_MS;
    expect(await available()).toBe(2);
  });

  it('answer 410 when a hold of the cart has expired, and the places go to someone else', async () => {
    const first = await reserve(1);
    h.now = START + 5 * 60_000;
    const second = await reserve(3, first.body.cart.cartId);
    h.now = START + HOLD_MS;
    // The first hold expired, the second is still held: the cart cannot be checked out.
    const checkOut = await request(h.url, 'PATCH', `/v1/carts/${first.body.cart.cartId}/check_out`, { body: CHECK_OUT });
    expect(checkOut.status).toBe(410);
    expect(checkOut.body.error).toEqual({
      code: 'HOLD_EXPIRED',
      message: `A hold of cart ${first.body.cart.cartId} expired at ${new Date(START + HOLD_MS).toISOString()} (holds last 15 minutes); reserve again in a new cart`,
      details: { cartId: first.body.cart.cartId, reservationIds: [first.body.reservationId], expiredAt: new Date(START + HOLD_MS).toISOString() },
    });
    expect(second.status).toBe(201);
    expect(await available()).toBe(1);
    expect((await reserve(1)).status).toBe(201);
    expect((await reserve(1)).status).toBe(409);
  });
});

describe('the race for the last place', () => {
  it('gives the last place to exactly one of many simultaneous clients; the others get 409', async () => {
    await reserve(3);
    const answers = await Promise.all(Array.from({ length: 8 }, () => reserve(1)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body.error).toMatchObject({ code: 'SOLD_OUT', details: { availabilityId: SLOT, requested: 1, available: 0 } });
    }
    expect(await available()).toBe(0);
  });

  it('keeps places held by two carts from a third client while both carts check out', async () => {
    // Two carts each hold 2 of the 4 places; a third client wants 1 while both check out.
    const a = await reserve(2);
    const b = await reserve(2);
    const [checkA, checkB, late] = await Promise.all([
      request(h.url, 'PATCH', `/v1/carts/${a.body.cart.cartId}/check_out`, { body: CHECK_OUT }),
      request(h.url, 'PATCH', `/v1/carts/${b.body.cart.cartId}/check_out`, { body: CHECK_OUT }),
      reserve(1),
    ]);
    expect([checkA.status, checkB.status, late.status]).toEqual([200, 200, 409]);
  });
});
