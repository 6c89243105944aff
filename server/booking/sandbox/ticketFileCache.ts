/**
 * The sandbox's ticket files (tickets.ts renders them): rendered when first asked for, then kept
 * in memory, since a ticket's content never changes once paid. A render holds the event loop for
 * milliseconds, so renders take turns, one at a time with a turn of the event loop before each:
 * a client fetching the files of a booking of many items at once delays other requests by one
 * render, not by all of them.
 */

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { BookingReply } from '../operations.ts';
import { TICKET_FILE_TYPES, type TicketFileKind } from '../ticketFiles.ts';
import { barcodeValue, qrCodePng, ticketPdf } from '../tickets.ts';
import { itemIdOfTicket } from './ids.ts';
import type { Booking, BookingItem } from './records.ts';
import { notFound } from './refusals.ts';
import type { SandboxState } from './state.ts';
import { TurnTaking } from '../../util/turnTaking.ts';

/** Rendered ticket files kept in memory (each a few KiB); the least recently used goes first. */
const TICKET_FILES_KEPT = 2000;

/** Rendered files by `<ticketId>/<kind>`, in an LRU cache; a render in flight is shared. */
export class TicketFileCache {
  private readonly files = new LRUCache<string, Promise<{ body: Buffer; etag: string }>>({ max: TICKET_FILES_KEPT });
  private readonly renders = new TurnTaking();

  constructor(private readonly state: SandboxState) {}

  /**
   * The file of a ticket of a confirmed booking whose item is not cancelled, with an ETag;
   * `If-None-Match` gets a 304.
   *
   * @throws BookingError NOT_FOUND when there is no such ticket (unknown, unpaid or cancelled)
   */
  async reply(id: string, kind: TicketFileKind, headers: IncomingHttpHeaders): Promise<BookingReply> {
    const item = this.state.items.get(itemIdOfTicket(id));
    const booking = item === undefined ? undefined : this.state.bookings.get(item.bookingId)!;
    if (item === undefined || item.cancelledAt !== null || this.state.bookingStatus(booking!) !== 'confirmed') throw notFound('ticket', id);
    const { body, etag } = await this.file(`${id}/${kind}`, () => renderTicketFile(booking!, item, kind));

    // The ticket names its holder: only the client may keep it, and must check it is still valid.
    const cacheHeaders = { etag, 'cache-control': 'private, no-cache' };
    if (headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) return { status: 304, headers: cacheHeaders, body: Buffer.alloc(0) };
    return { status: 200, headers: { ...cacheHeaders, 'content-type': TICKET_FILE_TYPES[kind] }, body };
  }

  /** The file kept under `key`, rendered by `render` when it is not; marks it most recently used. */
  private file(key: string, render: () => Promise<Buffer>): Promise<{ body: Buffer; etag: string }> {
    let file = this.files.get(key);
    if (file === undefined) {
      file = this.renders.run(render).then((body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }));
      // A failed render is not kept: the next request tries again.
      file.catch(() => this.files.delete(key));
      this.files.set(key, file);
    }
    return file;
  }
}

function renderTicketFile(booking: Booking, item: BookingItem, kind: TicketFileKind): Promise<Buffer> {
  const barcode = barcodeValue(item.id);
  if (kind === 'qr_code') return qrCodePng(barcode);
  return ticketPdf({
    bookingId: booking.id,
    partnerReference: booking.partnerReference ?? booking.id,
    title: item.title ?? `Activity ${item.activityId}`,
    date: item.date,
    startTime: item.startTime,
    quantity: item.quantity,
    holder: `${booking.customer.firstName} ${booking.customer.lastName}`,
    barcode,
    issuedAt: booking.payment!.createdAt,
  });
}
