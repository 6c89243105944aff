import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CART_ITEMS, DEFAULT_MAX_HELD_PLACES } from '../../../server/config/bookingConfig.ts';
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

  it('answer 410 to a reservation into a cart whose hold has expired, and hold nothing for it', async () => {
    const first = await reserve(1);
    h.now = START + HOLD_MS;
    const late = await reserve(2, first.body.cart.cartId);
    expect(late.status).toBe(410);
    expect(late.body.error).toMatchObject({ code: 'HOLD_EXPIRED', details: { cartId: first.body.cart.cartId, reservationIds: [first.body.reservationId] } });
    expect(await available()).toBe(4);
  });
});

/** Every slot of activity 4711 (8 places each) in the booking window, as the API lists them. */
async function slotsOf4711(): Promise<string[]> {
  const { body } = await request(h.url, 'GET', '/v1/activities/4711/availabilities?limit=500');
  return body[0].availabilities.map((availability: { availabilityId: string }) => availability.availabilityId);
}

describe('the caps on carts and held places', () => {
  it(`refuse reservation ${DEFAULT_MAX_CART_ITEMS + 1} of one cart with 409 CART_FULL, holding nothing for it`, async () => {
    const slots = await slotsOf4711();
    const first = await request(h.url, 'POST', '/v1/reservations', { body: hold(slots[0]!, 1) });
    const { cartId } = first.body.cart;
    for (let index = 1; index < DEFAULT_MAX_CART_ITEMS; index++) {
      const answer = await request(h.url, 'POST', '/v1/reservations', { body: hold(slots[index % slots.length]!, 1, { cartId }) });
      expect(answer.status).toBe(201);
    }
    const over = await request(h.url, 'POST', '/v1/reservations', { body: hold(SLOT, 1, { cartId }) });
    expect(over.status).toBe(409);
    expect(over.body.error).toEqual({
      code: 'CART_FULL',
      message: `Cart ${cartId} holds ${DEFAULT_MAX_CART_ITEMS} reservations, the most one cart takes; check it out and reserve the rest in a new cart`,
      details: { cartId, limit: DEFAULT_MAX_CART_ITEMS },
    });
    expect(await available()).toBe(4);
    // A new cart takes it.
    expect((await reserve(1)).status).toBe(201);
  });

  it(`let one client hold at most ${DEFAULT_MAX_HELD_PLACES} places at once; checking out or expiry frees its allowance`, async () => {
    const slots = await slotsOf4711();
    const carts: string[] = [];
    for (let index = 0; index < DEFAULT_MAX_HELD_PLACES / 8; index++) {
      const answer = await request(h.url, 'POST', '/v1/reservations', { body: hold(slots[index]!, 8) });
      expect(answer.status).toBe(201);
      carts.push(answer.body.cart.cartId);
    }
    h.now = START + 60_000;
    const over = await reserve(1);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe(String((HOLD_MS - 60_000) / 1000));
    expect(over.body.error).toMatchObject({ code: 'HOLD_LIMIT_REACHED', details: { limit: DEFAULT_MAX_HELD_PLACES, held: DEFAULT_MAX_HELD_PLACES, requested: 1 } });
    expect(await available()).toBe(4);

    expect((await request(h.url, 'PATCH', `/v1/carts/${carts[0]}/check_out`, { body: CHECK_OUT })).status).toBe(200);
    const spare = slots[DEFAULT_MAX_HELD_PLACES / 8]!;
    expect((await request(h.url, 'POST', '/v1/reservations', { body: hold(spare, 8) })).status).toBe(201);
    expect((await reserve(1)).status).toBe(429);
    // The holds made at START expire; the one made a minute later still counts.
    h.now = START + HOLD_MS;
    expect((await reserve(4)).status).toBe(201);
  });

  it('count the places of each client on its own', async () => {
    await h.stop();
    h = await startBooking({ mode: 'sandbox', stateDir: state.dir, trustedProxies: 1, maxHeldPlaces: 4 });
    const as = (client: string, quantity: number) =>
      request(h.url, 'POST', '/v1/reservations', { body: hold('4711-20261121-0900', quantity), headers: { 'x-forwarded-for': client } });
    expect((await as('203.0.113.1', 4)).status).toBe(201);
    expect((await as('203.0.113.1', 1)).status).toBe(429);
    expect((await as('203.0.113.2', 4)).status).toBe(201);
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
