import { describe, expect, it } from 'vitest';
import { CHECK_OUT, pdfText, request, sandboxForFile, START } from './helpers.ts';

const sandbox = sandboxForFile();

async function available(slotId: string): Promise<number> {
  const [id, day] = slotId.split('-') as [string, string];
  const date = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`;
  const { body } = await request(sandbox().url, 'GET', `/v1/activities/${id}/availabilities?from=${date}&to=${date}`);
  return body.data.find((slot: { slotId: string }) => slot.slotId === slotId).available;
}

describe('the sandbox booking flow', () => {
  it('lists every activity of the default locale by id, with what the sandbox can book', async () => {
    const { status, body } = await request(sandbox().url, 'GET', '/v1/activities');
    expect(status).toBe(200);
    expect(body.total).toBe(5);
    expect(body.data.map((a: { id: number; isBookable: boolean; nextAvailableDate: string | null }) => [a.id, a.isBookable, a.nextAvailableDate])).toEqual([
      [9, true, '2026-11-20'],
      [12, false, null],
      [13, false, null],
      // Activity 20 is closed on Fridays such as 2026-11-20.
      [20, true, '2026-11-21'],
      [4711, true, '2026-11-20'],
    ]);
    expect(body.data[0]).toEqual({
      id: 9,
      contentId: 'act-9',
      locale: 'de_CH',
      title: 'Canyoning im Val Bavona (Tessin)',
      isBookable: true,
      startingPrice: { amount: '129.00', currency: 'CHF' },
      nextAvailableDate: '2026-11-20',
    });
  });

  it('serves a locale written either way, answering in the underscore form', async () => {
    const underscore = await request(sandbox().url, 'GET', '/v1/activities?locale=en_CH');
    const hyphen = await request(sandbox().url, 'GET', '/v1/activities?locale=en-CH');
    expect(underscore.body).toEqual(hyphen.body);
    expect(underscore.body.data).toMatchObject([{ id: 9, locale: 'en_CH', title: 'Canyoning in Val Bavona (Ticino)' }]);
  });

  it('offers two slots a day in Swiss time with the capacity of the activity', async () => {
    const { status, body } = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?from=2026-11-20&to=2026-11-20');
    expect(status).toBe(200);
    expect(body).toEqual({
      activityId: 9,
      timeZone: 'Europe/Zurich',
      from: '2026-11-20',
      to: '2026-11-20',
      data: [
        { slotId: '9-20261120-0900', date: '2026-11-20', startTime: '09:00', startsAt: '2026-11-20T09:00:00+01:00', capacity: 4, available: 4, price: { amount: '129.00', currency: 'CHF' } },
        { slotId: '9-20261120-1300', date: '2026-11-20', startTime: '13:00', startsAt: '2026-11-20T13:00:00+01:00', capacity: 4, available: 4, price: { amount: '129.00', currency: 'CHF' } },
      ],
    });
  });

  it('offers the whole 30-day window by default, without the closed weekday', async () => {
    const { body } = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities');
    const dates = [...new Set(body.data.map((slot: { date: string }) => slot.date))];
    expect(body.from).toBe('2026-11-20');
    expect(body.to).toBe('2026-12-19');
    // 30 days minus the Tuesdays 24 Nov, 1, 8 and 15 Dec.
    expect(dates).toHaveLength(26);
    expect(dates).not.toContain('2026-11-24');
    expect(body.data).toHaveLength(52);
  });

  it('reserves, checks out, pays on invoice, issues tickets and cancels, releasing the places', async () => {
    // Reserve two places of one slot and one of another activity in the same cart.
    const first = await request(sandbox().url, 'POST', '/v1/reservations', { body: { slotId: '9-20261120-1300', quantity: 2 } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      slotId: '9-20261120-1300',
      activityId: 9,
      quantity: 2,
      unitPrice: { amount: '129.00', currency: 'CHF' },
      totalPrice: { amount: '258.00', currency: 'CHF' },
      createdAt: new Date(START).toISOString(),
      expiresAt: new Date(START + 15 * 60_000).toISOString(),
    });
    const cartId = first.body.cartId;
    const second = await request(sandbox().url, 'POST', '/v1/reservations', { body: { slotId: '4711-20261120-0900', quantity: 1, cartId } });
    expect(second.status).toBe(201);
    expect(second.body.cartId).toBe(cartId);
    expect(await available('9-20261120-1300')).toBe(2);

    // Check out, in French: item titles come from that locale where the activity has one.
    const checkOut = await request(sandbox().url, 'PATCH', `/v1/carts/${cartId}/check_out`, { body: { ...CHECK_OUT, locale: 'fr_CH' } });
    expect(checkOut.status).toBe(200);
    const booking = checkOut.body;
    expect(booking).toMatchObject({
      cartId,
      partnerReference: 'ORDER-2026-0042',
      locale: 'fr_CH',
      status: 'pending_payment',
      customer: { firstName: 'Anna', lastName: 'Muster', email: 'anna@example.ch', phone: null },
      totalPrice: { amount: '307.50', currency: 'CHF' },
      payment: null,
      tickets: [],
    });
    expect(booking.items.map((item: { title: string; status: string; quantity: number }) => [item.title, item.status, item.quantity])).toEqual([
      ['Canyoning au Val Bavona (Tessin)', 'booked', 2],
      ['Aktivität 4711', 'booked', 1],
    ]);
    // Booked places stay taken.
    expect(await available('9-20261120-1300')).toBe(2);
    expect((await request(sandbox().url, 'GET', `/v1/bookings/${booking.id}`)).body).toEqual(booking);

    // Pay on invoice: the booking is confirmed and has one ticket per item.
    const payment = await request(sandbox().url, 'POST', `/v1/bookings/${booking.id}/payment_attempts`, { body: { method: 'invoice' } });
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({ bookingId: booking.id, method: 'invoice', status: 'succeeded', amount: { amount: '307.50', currency: 'CHF' } });
    expect(payment.body.invoice).toEqual({ number: expect.stringMatching(/^SBX-[0-9A-F]{16}$/), dueDate: '2026-12-20' });

    const confirmed = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.id}`)).body;
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed.payment).toEqual(payment.body);
    expect(confirmed.tickets).toHaveLength(2);
    const [ticket] = confirmed.tickets;
    expect(ticket).toMatchObject({ bookingItemId: booking.items[0].id, quantity: 2, barcode: { format: 'CODE128', value: expect.stringMatching(/^\d{16}$/) } });
    expect(confirmed.tickets[1].barcode.value).not.toBe(ticket.barcode.value);
    const png = Buffer.from(await (await fetch(sandbox().url + ticket.qrCode)).arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(256);
    const pdf = Buffer.from(await (await fetch(sandbox().url + ticket.pdf)).arrayBuffer());
    expect(pdf.toString('latin1').startsWith('%PDF-')).toBe(true);
    expect(pdfText(pdf)).toEqual(expect.arrayContaining(['Booking reference: ORDER-2026-0042', `Code: ${ticket.barcode.value}`, 'Canyoning au Val Bavona (Tessin)', 'Date: 2026-11-20, 13:00 (Europe/Zurich)']));

    // Cancel the first item: its places are free again, its ticket is gone.
    const itemId = booking.items[0].id;
    const cancel = await request(sandbox().url, 'PATCH', `/v1/booking_items/${itemId}/cancel`, { body: { reason: 'weather' } });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ id: itemId, bookingId: booking.id, status: 'cancelled', cancelledAt: new Date(START).toISOString(), cancellationReason: 'weather' });
    expect(await available('9-20261120-1300')).toBe(4);

    // Cancelling again answers the same and frees nothing more.
    const again = await request(sandbox().url, 'PATCH', `/v1/booking_items/${itemId}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancel.body);
    expect(await available('9-20261120-1300')).toBe(4);

    const after = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.id}`)).body;
    expect(after.status).toBe('confirmed');
    expect(after.totalPrice).toEqual({ amount: '49.50', currency: 'CHF' });
    expect(after.tickets.map((t: { bookingItemId: string }) => t.bookingItemId)).toEqual([booking.items[1].id]);

    // With every item cancelled the booking is cancelled and has no tickets.
    await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.items[1].id}/cancel`);
    const cancelled = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.id}`)).body;
    expect(cancelled).toMatchObject({ status: 'cancelled', tickets: [], totalPrice: { amount: '0.00', currency: 'CHF' } });
  });

  it('settles by card, declines the test card, and refuses a second payment', async () => {
    const reservation = await request(sandbox().url, 'POST', '/v1/reservations', { body: { slotId: '4711-20261121-0900', quantity: 3 } });
    const booking = (await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.body.cartId}/check_out`, { body: CHECK_OUT })).body;

    const declined = await request(sandbox().url, 'POST', `/v1/bookings/${booking.id}/payment_attempts`, { body: { method: 'card', cardToken: 'tok_declined' } });
    expect(declined.status).toBe(422);
    expect(declined.body.error).toMatchObject({ code: 'PAYMENT_DECLINED', details: { bookingId: booking.id, reason: 'card_declined' } });
    expect((await request(sandbox().url, 'GET', `/v1/bookings/${booking.id}`)).body).toMatchObject({ status: 'pending_payment', payment: null });

    const paid = await request(sandbox().url, 'POST', `/v1/bookings/${booking.id}/payment_attempts`, { body: { method: 'card', cardToken: 'tok_visa' } });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ method: 'card', status: 'succeeded', invoice: null, amount: { amount: '148.50', currency: 'CHF' } });

    const twice = await request(sandbox().url, 'POST', `/v1/bookings/${booking.id}/payment_attempts`, { body: { method: 'invoice' } });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'BOOKING_ALREADY_PAID', details: { bookingId: booking.id, paymentId: paid.body.id } });
  });
});
