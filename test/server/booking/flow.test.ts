import { describe, expect, it } from 'vitest';
import { ticketCategoryIdOf } from '../../../server/booking/partnerViews.ts';
import { CHECK_OUT, hold, pdfText, placesLeft, request, sandboxForFile, START } from './helpers.ts';

const sandbox = sandboxForFile();

const available = (slotId: string) => placesLeft(sandbox().url, slotId);

const CHF = (amount: string) => ({ amount, currency: 'CHF', formatted: `CHF ${amount}` });

describe('the sandbox booking flow', () => {
  it("lists every activity of the default locale by activityId, as the partner's summaries", async () => {
    const { status, body } = await request(sandbox().url, 'GET', '/v1/activities');
    expect(status).toBe(200);
    expect(body.map((a: { activityId: number; numOffers: number }) => [a.activityId, a.numOffers])).toEqual([
      [9, 1],
      [12, 0],
      [13, 0],
      [20, 1],
      [4711, 1],
    ]);
    expect(body[0]).toEqual({
      activityId: 9,
      contentApiActivityId: 'act-9',
      startingPrice: CHF('129.00'),
      minPrice: CHF('129.00'),
      maxPrice: CHF('129.00'),
      popularity: 230,
      durations: [],
      discount: null,
      cancellation: null,
      numOffers: 1,
    });
    expect(body[2].startingPrice).toBeNull();
  });

  it('serves a locale written either way', async () => {
    const underscore = await request(sandbox().url, 'GET', '/v1/activities?locale=fr_CH');
    const hyphen = await request(sandbox().url, 'GET', '/v1/activities?locale=fr-CH');
    expect(underscore.body).toEqual(hyphen.body);
    expect(underscore.body.map((a: { activityId: number }) => a.activityId)).toEqual([9, 30]);
  });

  it('offers one offer per activity, two availabilities a day in Swiss time, and one ticket category', async () => {
    const { status, body } = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-20&untilEndOfDay=2026-11-20&locale=en_CH');
    expect(status).toBe(200);
    const category = ticketCategoryIdOf(9);
    const availability = (time: string) => ({
      availabilityId: `9-20261120-${time.replace(':', '')}`,
      startsAt: `2026-11-20T${time}:00+01:00`,
      isAllDay: false,
      cancellableUntil: null,
      ticketCategoryIds: [category],
      capacity: 4,
      numAvailable: 4,
    });
    expect(body).toEqual([
      {
        offerId: 9,
        contentApiOfferId: null,
        offerLabel: 'Canyoning in Val Bavona (Ticino)',
        availabilities: [availability('09:00'), availability('13:00')],
        ticketCategories: [
          {
            ticketCategoryId: category,
            label: { formatted: 'Adult', audience: 'Adult', discount: null },
            audience: 'adult',
            description: null,
            price: CHF('129.00'),
            occupancyType: 'fixed',
            occupancy: 1,
            maxOccupancy: null,
            minAge: null,
            maxAge: null,
          },
        ],
      },
    ]);
  });

  it('offers the whole 30-day window by default, without the closed weekday, up to limit availabilities', async () => {
    const { body } = await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?limit=500');
    const starts: string[] = body[0].availabilities.map((a: { startsAt: string }) => a.startsAt);
    const dates = [...new Set(starts.map((start) => start.slice(0, 10)))];
    expect(dates[0]).toBe('2026-11-20');
    expect(dates.at(-1)).toBe('2026-12-19');
    // 30 days minus the Tuesdays 24 Nov, 1, 8 and 15 Dec.
    expect(dates).toHaveLength(26);
    expect(dates).not.toContain('2026-11-24');
    expect(starts).toHaveLength(52);
    expect((await request(sandbox().url, 'GET', '/v1/activities/9/availabilities')).body[0].availabilities).toHaveLength(50);
    const three = (await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?limit=3')).body[0].availabilities;
    expect(three.map((a: { availabilityId: string }) => a.availabilityId)).toEqual(['9-20261120-0900', '9-20261120-1300', '9-20261121-0900']);
  });

  it('answers an empty list for an activity that cannot be booked or a range without availabilities', async () => {
    expect((await request(sandbox().url, 'GET', '/v1/activities/12/availabilities')).body).toEqual([]);
    expect((await request(sandbox().url, 'GET', '/v1/activities/9/availabilities?startsAfter=2026-11-24&untilEndOfDay=2026-11-24')).body).toEqual([]);
  });

  it('reserves, checks out, pays on invoice, issues tickets and cancels, releasing the places', async () => {
    // Reserve two places of one availability and one of another activity in the same cart.
    const first = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261120-1300', 2, { locale: 'fr_CH', doCreateCart: true }) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      activityId: 9,
      offerId: 9,
      availabilityId: '9-20261120-1300',
      locale: 'fr_CH',
      startsAt: '2026-11-20T13:00:00+01:00',
      endsAt: null,
      totalPrice: CHF('258.00'),
      createdAt: new Date(START).toISOString(),
      expiresAt: new Date(START + 15 * 60_000).toISOString(),
    });
    expect(first.body.ticketReservations).toEqual([
      {
        ticketReservationId: expect.stringMatching(/^tres_[0-9a-f]{16}$/),
        ticketCategory: expect.objectContaining({ ticketCategoryId: ticketCategoryIdOf(9), label: { formatted: 'Adulte', audience: 'Adulte', discount: null } }),
        ticketCategoryLabel: 'Adulte',
        offer: { label: 'Canyoning au Val Bavona (Tessin)' },
        seatPrice: CHF('129.00'),
        totalPrice: CHF('258.00'),
        guests: [{ occupancy: 1 }, { occupancy: 1 }],
      },
    ]);
    const cartId = first.body.cart.cartId;
    const second = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('4711-20261120-0900', 1, { cartId }) });
    expect(second.status).toBe(201);
    expect(second.body.cart).toEqual({ cartId });
    expect(await available('9-20261120-1300')).toBe(2);

    // Check out, as the partner's booking form sends it (merge-patch JSON): the booking speaks the
    // cart's language, so item titles come from that locale where the activity has one.
    const checkOut = await request(sandbox().url, 'PATCH', `/v1/carts/${cartId}/check_out`, {
      body: { ...CHECK_OUT, user: { ...CHECK_OUT.user, phone: '+41 79 123 45 67', countryCode: 'CH' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(checkOut.status).toBe(200);
    const booking = checkOut.body;
    expect(booking).toMatchObject({
      bookingId: expect.stringMatching(/^bkg_/),
      cartId,
      partnerReference: 'ORDER-2026-0042',
      locale: 'fr_CH',
      status: 'pending_payment',
      paymentStatus: 'unpaid',
      user: { givenName: 'Anna', familyName: 'Muster', email: 'anna@example.ch', phone: '+41 79 123 45 67', countryCode: 'CH' },
      totalGross: CHF('307.50'),
      totalNet: CHF('307.50'),
      vat: CHF('0.00'),
      totalPayments: CHF('0.00'),
      paymentAttempts: [],
      tickets: [],
    });
    expect(booking.items.map((item: { service: { activity: string }; status: string; numGuests: number }) => [item.service.activity, item.status, item.numGuests])).toEqual([
      ['Canyoning au Val Bavona (Tessin)', 'booked', 2],
      ['Aktivität 4711', 'booked', 1],
    ]);
    expect(booking.items[0]).toMatchObject({
      activityId: 9,
      availabilityId: '9-20261120-1300',
      relatedIds: { activity_id: 9, activity_id_capi: 'act-9', offer_id: 9 },
      reservations: [{ reservationId: first.body.reservationId }],
      totalPrice: CHF('258.00'),
    });
    // Booked places stay taken.
    expect(await available('9-20261120-1300')).toBe(2);
    expect((await request(sandbox().url, 'GET', `/v1/bookings/${booking.bookingId}`)).body).toEqual(booking);

    // Pay on invoice: the booking is paid, confirmed and has one ticket per item.
    const payment = await request(sandbox().url, 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, {
      body: { paymentMethod: 'invoice', successReturnUrl: 'https://shop.example/paid', failureReturnUrl: 'https://shop.example/failed', language: 'fr_CH' },
    });
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({
      paymentAttemptId: expect.stringMatching(/^pay_/),
      bookingId: booking.bookingId,
      paymentMethod: 'invoice',
      status: 'used',
      amount: CHF('307.50'),
      redirectUrl: 'https://shop.example/paid',
      language: 'fr_CH',
    });
    expect(payment.body.invoice).toEqual({ number: expect.stringMatching(/^SBX-[0-9A-F]{16}$/), dueDate: '2026-12-20' });

    const confirmed = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.bookingId}`)).body;
    expect(confirmed).toMatchObject({ status: 'confirmed', paymentStatus: 'paid', totalPayments: CHF('307.50') });
    expect(confirmed.paymentAttempts).toEqual([payment.body]);
    expect(confirmed.tickets).toHaveLength(2);
    const [ticket] = confirmed.tickets;
    expect(ticket).toMatchObject({ bookingItemId: booking.items[0].bookingItemId, numGuests: 2, barcode: { format: 'CODE128', value: expect.stringMatching(/^\d{16}$/) } });
    expect(confirmed.tickets[1].barcode.value).not.toBe(ticket.barcode.value);
    const png = Buffer.from(await (await fetch(sandbox().url + ticket.qrCode)).arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(256);
    const pdf = Buffer.from(await (await fetch(sandbox().url + ticket.pdf)).arrayBuffer());
    expect(pdf.toString('latin1').startsWith('%PDF-')).toBe(true);
    expect(pdfText(pdf)).toEqual(expect.arrayContaining(['Booking reference: ORDER-2026-0042', `Code: ${ticket.barcode.value}`, 'Canyoning au Val Bavona (Tessin)', 'Date: 2026-11-20, 13:00 (Europe/Zurich)']));

    // Cancel the first item: its places are free again, its ticket is gone.
    const itemId = booking.items[0].bookingItemId;
    const cancel = await request(sandbox().url, 'PATCH', `/v1/booking_items/${itemId}/cancel`, { body: { reason: 'weather' } });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ bookingItemId: itemId, bookingId: booking.bookingId, status: 'cancelled', cancelledAt: new Date(START).toISOString(), cancellationReason: 'weather' });
    expect(await available('9-20261120-1300')).toBe(4);

    // Cancelling again answers the same and frees nothing more.
    const again = await request(sandbox().url, 'PATCH', `/v1/booking_items/${itemId}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancel.body);
    expect(await available('9-20261120-1300')).toBe(4);

    const after = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.bookingId}`)).body;
    expect(after.status).toBe('confirmed');
    expect(after.totalGross).toEqual(CHF('49.50'));
    expect(after.tickets.map((t: { bookingItemId: string }) => t.bookingItemId)).toEqual([booking.items[1].bookingItemId]);

    // With every item cancelled the booking is cancelled and has no tickets.
    await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.items[1].bookingItemId}/cancel`);
    const cancelled = (await request(sandbox().url, 'GET', `/v1/bookings/${booking.bookingId}`)).body;
    expect(cancelled).toMatchObject({ status: 'cancelled', tickets: [], totalGross: CHF('0.00') });
  });

  it('settles by any payment method, declines the sandbox test method, and refuses a second payment', async () => {
    const reservation = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('4711-20261121-0900', 3) });
    const booking = (await request(sandbox().url, 'PATCH', `/v1/carts/${reservation.body.cart.cartId}/check_out`, { body: { user: CHECK_OUT.user } })).body;
    expect(booking.partnerReference).toBeNull();
    const pay = (body: unknown) => request(sandbox().url, 'POST', `/v1/bookings/${booking.bookingId}/payment_attempts`, { body });

    const declined = await pay({ paymentMethod: 'sandbox_declined', failureReturnUrl: 'https://shop.example/failed' });
    expect(declined.status).toBe(422);
    expect(declined.body.error).toMatchObject({ code: 'PAYMENT_DECLINED', details: { bookingId: booking.bookingId, reason: 'declined', failureReturnUrl: 'https://shop.example/failed' } });
    expect((await request(sandbox().url, 'GET', `/v1/bookings/${booking.bookingId}`)).body).toMatchObject({ status: 'pending_payment', paymentStatus: 'unpaid', paymentAttempts: [] });

    const paid = await pay({ paymentMethod: 'twint' });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ paymentMethod: 'twint', status: 'used', invoice: null, redirectUrl: null, language: 'de_CH', amount: CHF('148.50') });

    const twice = await pay({ paymentMethod: 'invoice' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'BOOKING_ALREADY_PAID', details: { bookingId: booking.bookingId, paymentAttemptId: paid.body.paymentAttemptId } });
  });
});
