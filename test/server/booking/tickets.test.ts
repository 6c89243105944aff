import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CART_ITEMS } from '../../../server/config/bookingConfig.ts';
import { barcodeValue, qrCodePng, ticketPdf } from '../../../server/booking/tickets.ts';
import { CHECK_OUT, hold, pdfText, request, sandboxForFile } from './helpers.ts';

const TICKET = {
  bookingId: 'bkg_0123456789abcdef',
  partnerReference: 'ORDER (42) \\ Zürich',
  title: 'Gleitschirm-Tandemflug über dem Lauterbrunnental mit Landung in Interlaken und Foto-Paket',
  date: '2026-11-22',
  startTime: '09:00',
  quantity: 2,
  holder: 'Zoë Ćosić',
  barcode: '1234567890123456',
  issuedAt: Date.parse('2026-11-20T06:00:00Z'),
};

function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('ticketPdf', () => {
  it('writes a one-page A4 PDF that a PDF reader opens, dated when the booking was paid', async () => {
    const document = await PDFDocument.load(await ticketPdf(TICKET), { updateMetadata: false });
    expect(document.getPageCount()).toBe(1);
    expect(document.getPage(0).getSize()).toEqual({ width: 595, height: 842 });
    expect(document.getCreationDate()?.getTime()).toBe(TICKET.issuedAt);
    expect(document.getTitle()).toBe('Ticket 1234567890123456');
  });

  it('shows the title on at most three lines, then date, participants, holder, references and code, writing letters outside WinAnsi as ?', async () => {
    expect(pdfText(await ticketPdf(TICKET))).toEqual([
      'Gleitschirm-Tandemflug über dem',
      'Lauterbrunnental mit Landung in',
      'Interlaken und Foto-Paket',
      'Date: 2026-11-22, 09:00 (Europe/Zurich)',
      'Participants: 2',
      'Name: Zoë ?osi?',
      'Booking reference: ORDER (42) \\ Zürich',
      'Booking: bkg_0123456789abcdef',
      'Code: 1234567890123456',
      'SANDBOX TICKET - NOT VALID FOR ADMISSION',
    ]);
  });

  it('is the same bytes for the same ticket', async () => {
    expect((await ticketPdf(TICKET)).equals(await ticketPdf(TICKET))).toBe(true);
  });
});

describe('barcodeValue and qrCodePng', () => {
  it('give an item the same 16 digits every time, and another item other digits', () => {
    expect(barcodeValue('itm_1')).toMatch(/^\d{16}$/);
    expect(barcodeValue('itm_1')).toBe(barcodeValue('itm_1'));
    expect(barcodeValue('itm_2')).not.toBe(barcodeValue('itm_1'));
  });

  it('render the code as a 256-pixel PNG in 8-bit greyscale, a quarter of the bytes of RGBA to encode', async () => {
    const png = await qrCodePng('1234567890123456');
    expect(pngSize(png)).toEqual([256, 256]);
    // IHDR: bit depth, then colour type (0: greyscale; https://www.w3.org/TR/png/#11IHDR).
    expect([png[24], png[25]]).toEqual([8, 0]);
  });
});

describe('ticket files over HTTP', () => {
  const sandbox = sandboxForFile();

  /** A paid booking of `count` items, one place each, on the slots of activity 4711. */
  async function paidBooking(count: number): Promise<any> {
    const { body: offers } = await request(sandbox().url, 'GET', '/v1/activities/4711/availabilities?limit=500');
    const availabilities: { availabilityId: string }[] = offers[0].availabilities;
    let cartId: string | undefined;
    for (let index = 0; index < count; index++) {
      const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold(availabilities[index]!.availabilityId, 1, cartId ? { cartId } : {}) });
      expect(reserved.status).toBe(201);
      cartId = reserved.body.cart.cartId;
    }
    const booking = await request(sandbox().url, 'PATCH', `/v1/carts/${cartId}/check_out`, { body: CHECK_OUT });
    expect((await request(sandbox().url, 'POST', `/v1/bookings/${booking.body.bookingId}/payment_attempts`, { body: { paymentMethod: 'invoice' } })).status).toBe(201);
    return (await request(sandbox().url, 'GET', `/v1/bookings/${booking.body.bookingId}`)).body;
  }

  it('lists each ticket with the paths of its files, rendering nothing into the booking', async () => {
    const booking = await paidBooking(2);
    expect(booking.tickets).toEqual(
      booking.items.map((item: { bookingItemId: string }) => {
        const ticketId = `tkt_${item.bookingItemId.slice(4)}`;
        return {
          ticketId,
          bookingItemId: item.bookingItemId,
          numGuests: 1,
          barcode: { format: 'CODE128', value: barcodeValue(item.bookingItemId) },
          qrCode: `/v1/tickets/${ticketId}/qr_code`,
          pdf: `/v1/tickets/${ticketId}/pdf`,
        };
      }),
    );
  });

  it('serves the PDF and the QR code at their paths, the same bytes and ETag every time, 304 to If-None-Match', async () => {
    const [ticket] = (await paidBooking(1)).tickets;
    const first = await fetch(sandbox().url + ticket.pdf);
    const pdf = Buffer.from(await first.arrayBuffer());
    expect([first.status, first.headers.get('content-type'), first.headers.get('cache-control')]).toEqual([200, 'application/pdf', 'private, no-cache']);
    expect(pdfText(pdf)).toContain(`Code: ${ticket.barcode.value}`);
    expect(pdfText(pdf)).toContain(`Booking reference: ${CHECK_OUT.partnerReference}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await fetch(sandbox().url + ticket.pdf);
    expect(Buffer.from(await again.arrayBuffer()).equals(pdf)).toBe(true);
    expect(again.headers.get('etag')).toBe(etag);
    const revalidated = await fetch(sandbox().url + ticket.pdf, { headers: { 'if-none-match': etag } });
    expect([revalidated.status, await revalidated.text()]).toEqual([304, '']);

    const qrCode = await fetch(sandbox().url + ticket.qrCode);
    expect([qrCode.status, qrCode.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(pngSize(Buffer.from(await qrCode.arrayBuffer()))).toEqual([256, 256]);
    expect(qrCode.headers.get('etag')).not.toBe(etag);
  });

  it('keeps the answer of a booking with the most items a cart takes small: under 1 KiB per item', async () => {
    const response = await fetch(`${sandbox().url}/v1/bookings/${(await paidBooking(DEFAULT_MAX_CART_ITEMS)).bookingId}`);
    const text = await response.text();
    expect(text).not.toContain('data:');
    expect(Buffer.byteLength(text) / DEFAULT_MAX_CART_ITEMS).toBeLessThan(1024);
  });

  it('renders the files of a large booking fetched at once one by one, answering a request sent after them in between', async () => {
    const { tickets } = await paidBooking(DEFAULT_MAX_CART_ITEMS);
    const finished: string[] = [];
    const files = tickets.flatMap((ticket: { pdf: string; qrCode: string }) => [ticket.pdf, ticket.qrCode]);
    const fetched = files.map((file: string) => fetch(sandbox().url + file).then(async (response) => {
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      finished.push('file');
    }));
    // Outside /v1 the test server answers at once: it waits only for the renders ahead of it.
    const other = fetch(`${sandbox().url}/elsewhere`).then(async (response) => {
      await response.text();
      finished.push('other');
    });
    await Promise.all([...fetched, other]);
    // In between: before the last file. Where exactly depends on the machine's load, not on the server.
    expect(finished.indexOf('other')).toBeLessThan(files.length);
  });

  it('answers 404 for the ticket of a cancelled item, an unpaid booking or an unknown id, and 405 to other methods', async () => {
    const booking = await paidBooking(1);
    const [ticket] = booking.tickets;
    expect((await fetch(sandbox().url + ticket.pdf)).status).toBe(200);
    await request(sandbox().url, 'PATCH', `/v1/booking_items/${booking.items[0].bookingItemId}/cancel`);
    const cancelled = await request(sandbox().url, 'GET', ticket.pdf);
    expect([cancelled.status, cancelled.body.error.code, cancelled.body.error.details]).toEqual([404, 'NOT_FOUND', { resource: 'ticket', id: ticket.ticketId }]);

    const reserved = await request(sandbox().url, 'POST', '/v1/reservations', { body: hold('9-20261121-0900', 1) });
    const unpaid = await request(sandbox().url, 'PATCH', `/v1/carts/${reserved.body.cart.cartId}/check_out`, { body: CHECK_OUT });
    expect((await request(sandbox().url, 'GET', `/v1/tickets/tkt_${unpaid.body.items[0].bookingItemId.slice(4)}/qr_code`)).status).toBe(404);
    expect((await request(sandbox().url, 'GET', '/v1/tickets/tkt_0000000000000000/pdf')).status).toBe(404);
    const posted = await request(sandbox().url, 'POST', ticket.qrCode, { body: {} });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });
});
