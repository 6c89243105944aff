/**
 * Sandbox mode: a complete offline implementation of the seven booking paths over the loaded
 * snapshot's activities, so a booking flow can be built and tested without the partner.
 *
 * State is event-sourced. Every change is one event, applied to memory and appended to the
 * journal (`<stateDir>/booking-journal.jsonl`, fsynced) before the client is answered; on start
 * the journal is replayed. A command checks and applies its event synchronously, with no await
 * in between, so two requests can never both take the last place; the journal gets the events in
 * the order they were applied. If a journal write fails, memory holds a change the disk does
 * not: that request gets a 500, and every later one 503 BOOKING_UNAVAILABLE until the sandbox is
 * restarted from the journal.
 *
 * Rules (docs/booking.md): slots as in availability.ts; a reservation holds its places for
 * {@link HOLD_MS} and belongs to a cart; checking out a cart turns its holds into a booking; a
 * payment attempt settles the booking at once by any of {@link PAYMENT_METHODS}
 * ({@link DECLINED_PAYMENT_METHOD} is declined); a paid booking has one ticket per booked item;
 * cancelling an item frees its places. Request and response bodies are the partner's
 * (partnerRequests.ts, partnerViews.ts).
 */

import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import type { ActivityRecord } from '../../sync/format.ts';
import { LOCALES, type Locale } from '../snapshot/locales.ts';
import { addDays, bookingWindow, isDate, isOffered, parseSlotId, slotsOn, type Slot, zurichDate } from './availability.ts';
import { DEFAULT_BOOKING_LOCALE, parseBookingLocale } from './bookingLocale.ts';
import { BookingError } from './errors.ts';
import type { IdempotencyStore } from './idempotency.ts';
import { invalid } from './input.ts';
import { openJournal } from './journal.ts';
import { type BookingBackend, type BookingCall, type BookingLogger, type BookingReply, JSON_CONTENT_TYPE, jsonReply } from './operations.ts';
import { readCancelRequest, readCheckOutRequest, readPaymentAttemptRequest, readReservationRequest } from './partnerRequests.ts';
import {
  activitySummaryView,
  bookingItemView,
  bookingView,
  offersView,
  paymentAttemptView,
  reservationView,
  ticketCategoryIdOf,
  titleOf,
} from './partnerViews.ts';
import { TICKET_FILE_TYPES, ticketFilePath, type TicketFileKind } from './ticketFiles.ts';
import { barcodeValue, BARCODE_FORMAT, qrCodePng, ticketPdf, warmUpTicketRendering } from './tickets.ts';

/** How long a reservation holds its places: 15 minutes, in ms. */
export const HOLD_MS = 15 * 60 * 1000;

/**
 * The payment methods the sandbox settles: those of the partner's website, and invoice (bookings
 * can be settled on invoice).
 */
export const PAYMENT_METHODS = ['invoice', 'card', 'twint', 'apple_pay', 'ideal'] as const;

/** The payment method the sandbox always declines, to try the unhappy path. */
export const DECLINED_PAYMENT_METHOD = 'sandbox_declined';

/** How many availabilities one answer lists unless `limit` says otherwise, and at most. */
export const DEFAULT_AVAILABILITY_LIMIT = 50;
export const MAX_AVAILABILITY_LIMIT = 500;

/** The journal's file name inside the state directory. */
export const JOURNAL_FILE = 'booking-journal.jsonl';

/** Days after payment an invoice is due. */
const INVOICE_DUE_DAYS = 30;

/** Rendered ticket files kept in memory (each a few KiB); the least recently used goes first. */
const TICKET_FILES_KEPT = 2000;

export interface SandboxOptions {
  /** Directory of the journal; created when missing. */
  stateDir: string;
  /** The caps that keep one client from holding the sandbox's places, or one cart from growing without end. */
  limits: CartLimits;
  /** The current snapshot's activities of a locale; called per request, so the snapshot may change. */
  activities: (locale: Locale) => readonly ActivityRecord[];
  /** Where responses stored under an Idempotency-Key are put back on start. */
  idempotency: IdempotencyStore;
  /** Milliseconds since the epoch. */
  clock: () => number;
  logger: BookingLogger;
}

/** The caps on carts and holds (settings BOOKING_MAX_CART_ITEMS and BOOKING_MAX_HELD_PLACES). */
export interface CartLimits {
  /** Most reservations one cart takes. */
  readonly maxCartItems: number;
  /** Most places one client may hold at once in reservations not yet checked out. */
  readonly maxHeldPlaces: number;
}

/** An amount in the currency's hundredths. */
export interface Money {
  cents: number;
  currency: string;
}
/** A hold: what the journal records of a reservation. */
export interface Reservation {
  id: string;
  cartId: string;
  /** The client that made it (BookingCall.client), whose held places it counts against. */
  client: string;
  slotId: string;
  activityId: number;
  date: string;
  startTime: string;
  startsAt: string;
  quantity: number;
  unitPrice: Money;
  createdAt: number;
  expiresAt: number;
  /** The language asked for; a journal may hold reservations without it, which read as de-CH. */
  locale?: Locale;
}
interface Cart {
  id: string;
  createdAt: number;
  reservationIds: string[];
  bookingId: string | null;
}
/** The booking form's user; the partner's givenName and familyName are first and last name. */
export interface Customer {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  countryCode?: string | null;
}
export interface Payment {
  id: string;
  /** One of {@link PAYMENT_METHODS}. */
  method: string;
  amount: Money;
  createdAt: number;
  invoice: { number: string; dueDate: string } | null;
  /** Where the payer is sent on, and in which language; a journal may hold payments without them. */
  successReturnUrl?: string | null;
  language?: Locale;
}
export interface Booking {
  id: string;
  cartId: string;
  partnerReference: string | null;
  locale: Locale;
  customer: Customer;
  createdAt: number;
  itemIds: string[];
  payment: Payment | null;
}
export interface BookingItem {
  id: string;
  bookingId: string;
  reservationId: string;
  activityId: number;
  title: string | null;
  slotId: string;
  date: string;
  startTime: string;
  startsAt: string;
  quantity: number;
  unitPrice: Money;
  cancelledAt: number | null;
  cancellationReason: string | null;
}

/** A change of state: what the journal records, one per line. */
type Event =
  | { type: 'reservation_created'; at: number; reservation: Reservation; newCart: boolean }
  | { type: 'cart_checked_out'; at: number; booking: Omit<Booking, 'itemIds' | 'payment'>; items: BookingItem[] }
  | { type: 'payment_succeeded'; at: number; bookingId: string; payment: Payment }
  | { type: 'booking_item_cancelled'; at: number; itemId: string; reason: string | null };

/** One journal line: an event, and the response stored under the request's Idempotency-Key. */
type JournalEntry = Event & {
  v: 1;
  idempotency?: { client: string; key: string; fingerprint: string; status: number; body: string };
};

/** What a command decided: the event to commit, and the response, built once it is applied. */
interface Decision {
  event: Event;
  status: number;
  view: () => unknown;
}

/**
 * Opens the journal under `options.stateDir`, replays it (holds that expired meanwhile are
 * released) and returns the sandbox.
 *
 * @throws Error when the journal cannot be read or has a corrupt line (naming file and line)
 */
export async function createSandbox(options: SandboxOptions): Promise<BookingBackend> {
  const { clock, logger } = options;
  const file = path.join(options.stateDir, JOURNAL_FILE);
  const opened = await openJournal(file);
  const { journal } = opened;
  if (opened.truncatedBytes > 0) logger.warn(`booking sandbox: cut a torn last line (${opened.truncatedBytes} bytes) off ${file}; its request was never answered`);

  const reservations = new Map<string, Reservation>();
  const carts = new Map<string, Cart>();
  const bookings = new Map<string, Booking>();
  const items = new Map<string, BookingItem>();
  /** Per slot id: places taken by booked (not cancelled) items. */
  const booked = new Map<string, number>();
  /** Per slot id: reservations not checked out, expired ones until they are swept. */
  const holds = new Map<string, Set<Reservation>>();
  /** Per client: its reservations not checked out, expired ones until they are counted. */
  const holdsByClient = new Map<string, Set<Reservation>>();
  let failed = false;

  function apply(event: Event): void {
    switch (event.type) {
      case 'reservation_created': {
        const { reservation } = event;
        if (event.newCart) carts.set(reservation.cartId, { id: reservation.cartId, createdAt: event.at, reservationIds: [], bookingId: null });
        carts.get(reservation.cartId)!.reservationIds.push(reservation.id);
        reservations.set(reservation.id, reservation);
        let slotHolds = holds.get(reservation.slotId);
        if (slotHolds === undefined) holds.set(reservation.slotId, (slotHolds = new Set()));
        slotHolds.add(reservation);
        let clientHolds = holdsByClient.get(reservation.client);
        if (clientHolds === undefined) holdsByClient.set(reservation.client, (clientHolds = new Set()));
        clientHolds.add(reservation);
        break;
      }
      case 'cart_checked_out': {
        bookings.set(event.booking.id, { ...event.booking, itemIds: event.items.map((item) => item.id), payment: null });
        carts.get(event.booking.cartId)!.bookingId = event.booking.id;
        for (const item of event.items) {
          items.set(item.id, item);
          const reservation = reservations.get(item.reservationId)!;
          holds.get(item.slotId)?.delete(reservation);
          const clientHolds = holdsByClient.get(reservation.client);
          clientHolds?.delete(reservation);
          if (clientHolds?.size === 0) holdsByClient.delete(reservation.client);
          booked.set(item.slotId, (booked.get(item.slotId) ?? 0) + item.quantity);
        }
        break;
      }
      case 'payment_succeeded':
        bookings.get(event.bookingId)!.payment = event.payment;
        break;
      case 'booking_item_cancelled': {
        const item = items.get(event.itemId)!;
        item.cancelledAt = event.at;
        item.cancellationReason = event.reason;
        booked.set(item.slotId, booked.get(item.slotId)! - item.quantity);
        break;
      }
    }
  }

  /**
   * Why a journal entry cannot be applied to the state replayed so far (an unknown event type,
   * or a cart, reservation, booking or item no earlier line created), or undefined when it can.
   */
  function replayProblem(event: Event): string | undefined {
    const unknown = (what: string, id: unknown) => `${event.type} names ${what} ${JSON.stringify(id)}, which no earlier line created`;
    switch (event.type) {
      case 'reservation_created':
        if (!event.newCart && !carts.has(event.reservation?.cartId)) return unknown('cart', event.reservation?.cartId);
        return undefined;
      case 'cart_checked_out': {
        if (!carts.has(event.booking?.cartId)) return unknown('cart', event.booking?.cartId);
        const missing = event.items?.find((item) => !reservations.has(item.reservationId));
        return missing === undefined ? undefined : unknown('reservation', missing.reservationId);
      }
      case 'payment_succeeded':
        return bookings.has(event.bookingId) ? undefined : unknown('booking', event.bookingId);
      case 'booking_item_cancelled':
        return items.has(event.itemId) ? undefined : unknown('booking item', event.itemId);
      default:
        return `unknown event type ${JSON.stringify((event as { type?: unknown }).type)}`;
    }
  }

  try {
    for (const [index, entry] of (opened.entries as (JournalEntry | null)[]).entries()) {
      if (entry?.v !== 1) throw new Error(`${file}:${index + 1}: journal entry version ${JSON.stringify(entry?.v)}, expected 1`);
      const problem = replayProblem(entry);
      if (problem !== undefined) throw new Error(`${file}:${index + 1}: ${problem}; the journal is corrupt`);
      apply(entry);
      if (entry.idempotency) {
        const { client, key, fingerprint, status, body } = entry.idempotency;
        const reply = { status, headers: { 'content-type': JSON_CONTENT_TYPE }, body: Buffer.from(body) };
        options.idempotency.restore(client, key, { fingerprint, storedAt: entry.at, reply }, clock());
      }
    }
  } catch (error) {
    await journal.close();
    throw error;
  }
  await warmUpTicketRendering();
  const released = sweepExpiredHolds(clock());
  logger.info(
    `booking sandbox: ${opened.entries.length} journal entries replayed from ${file} (${bookings.size} bookings, ${released} expired holds released)`,
  );

  /** Drops expired holds; returns how many. */
  function sweepExpiredHolds(now: number): number {
    let count = 0;
    for (const slotHolds of holds.values()) {
      for (const reservation of slotHolds) {
        if (reservation.expiresAt <= now) {
          slotHolds.delete(reservation);
          count++;
        }
      }
    }
    return count;
  }

  function available(slot: Slot, now: number): number {
    let held = 0;
    const slotHolds = holds.get(slot.id);
    for (const reservation of slotHolds ?? []) {
      if (reservation.expiresAt <= now) slotHolds!.delete(reservation);
      else held += reservation.quantity;
    }
    return slot.capacity - (booked.get(slot.id) ?? 0) - held;
  }

  // ------------------------------------------------------------------
  // Activities of the snapshot

  const byBookingId = new WeakMap<readonly ActivityRecord[], Map<number, ActivityRecord>>();

  function activityIn(locale: Locale, id: number): ActivityRecord | undefined {
    const records = options.activities(locale);
    let index = byBookingId.get(records);
    if (index === undefined) {
      index = new Map(records.map((record) => [record.bookingId, record]));
      byBookingId.set(records, index);
    }
    return index.get(id);
  }

  /** The activity in the preferred locale, else in the first locale that has it. */
  function findActivity(id: number, preferred: Locale): ActivityRecord | undefined {
    for (const locale of [preferred, ...LOCALES]) {
      const record = activityIn(locale, id);
      if (record) return record;
    }
    return undefined;
  }

  /** The price of one place, or null when the activity has no price the sandbox can charge. */
  function unitPrice(record: ActivityRecord): Money | null {
    const price = record.summary.startingPrice;
    if (price === null || !/^\d{1,7}(\.\d{1,2})?$/.test(price.amount)) return null;
    return { cents: Math.round(Number(price.amount) * 100), currency: price.currency };
  }

  function isBookable(record: ActivityRecord): boolean {
    return record.isBookable && unitPrice(record) !== null;
  }

  function offeredSlots(record: ActivityRecord, first: string, last: string, now: number): Slot[] {
    const slots: Slot[] = [];
    if (!isBookable(record)) return slots;
    for (let date = first; date <= last; date = addDays(date, 1)) {
      for (const slot of slotsOn(record.bookingId, date)) if (isOffered(slot, now)) slots.push(slot);
    }
    return slots;
  }

  // ------------------------------------------------------------------
  // Views: the partner's response bodies (partnerViews.ts) from the state above

  const iso = (ms: number) => new Date(ms).toISOString();

  function bookedItems(booking: Booking): BookingItem[] {
    return booking.itemIds.map((id) => items.get(id)!).filter((item) => item.cancelledAt === null);
  }

  function amountDue(booking: Booking): Money {
    const active = bookedItems(booking);
    const currency = items.get(booking.itemIds[0]!)!.unitPrice.currency;
    return { cents: active.reduce((sum, item) => sum + item.unitPrice.cents * item.quantity, 0), currency };
  }

  function bookingStatus(booking: Booking): 'pending_payment' | 'confirmed' | 'cancelled' {
    if (bookedItems(booking).length === 0) return 'cancelled';
    return booking.payment === null ? 'pending_payment' : 'confirmed';
  }

  /** The content id (GraphQL Activity.id) of an activity, while the snapshot has it. */
  function contentIdOf(activityId: number): string | null {
    return findActivity(activityId, 'de-CH')?.id ?? null;
  }

  function itemView(item: BookingItem) {
    return bookingItemView(item, contentIdOf(item.activityId));
  }

  function fullBookingView(booking: Booking, tickets: unknown[]) {
    return bookingView(booking, {
      items: booking.itemIds.map((id) => ({ item: items.get(id)!, contentApiActivityId: contentIdOf(items.get(id)!.activityId) })),
      status: bookingStatus(booking),
      total: amountDue(booking),
      tickets,
    });
  }

  /**
   * One ticket per booked item of a confirmed booking (a shape of ours: the partner's is not
   * known); its files are linked, not rendered here.
   */
  function ticketsOf(booking: Booking): unknown[] {
    if (bookingStatus(booking) !== 'confirmed') return [];
    return bookedItems(booking).map((item) => {
      const id = ticketId(item.id);
      return {
        ticketId: id,
        bookingItemId: item.id,
        numGuests: item.quantity,
        barcode: { format: BARCODE_FORMAT, value: barcodeValue(item.id) },
        qrCode: ticketFilePath(id, 'qr_code'),
        pdf: ticketFilePath(id, 'pdf'),
      };
    });
  }

  // ------------------------------------------------------------------
  // Ticket files: rendered when first asked for, then kept

  /** Rendered files by `<ticketId>/<kind>`, least recently used first; a render in flight is shared. */
  const ticketFiles = new Map<string, Promise<{ body: Buffer; etag: string }>>();

  /**
   * The file of a ticket of a confirmed booking whose item is not cancelled. A ticket's content
   * never changes once paid, so each file is rendered once and then answered from memory (with
   * an ETag; `If-None-Match` gets a 304).
   *
   * @throws BookingError NOT_FOUND when there is no such ticket (unknown, unpaid or cancelled)
   */
  async function ticketFile(id: string, kind: TicketFileKind, headers: IncomingHttpHeaders): Promise<BookingReply> {
    if (failed) throw journalFailed();
    const item = items.get(`itm_${id.slice('tkt_'.length)}`);
    const booking = item === undefined ? undefined : bookings.get(item.bookingId)!;
    if (item === undefined || item.cancelledAt !== null || bookingStatus(booking!) !== 'confirmed') throw notFound('ticket', id);

    const key = `${id}/${kind}`;
    let file = ticketFiles.get(key);
    if (file === undefined) {
      file = renderTicketFile(booking!, item, kind).then((body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }));
      // A failed render is not kept: the next request tries again.
      file.catch(() => ticketFiles.delete(key));
      if (ticketFiles.size >= TICKET_FILES_KEPT) ticketFiles.delete(ticketFiles.keys().next().value!);
    } else {
      ticketFiles.delete(key);
    }
    ticketFiles.set(key, file);
    const { body, etag } = await file;

    // The ticket names its holder: only the client may keep it, and must check it is still valid.
    const cacheHeaders = { etag, 'cache-control': 'private, no-cache' };
    if (headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) return { status: 304, headers: cacheHeaders, body: Buffer.alloc(0) };
    return { status: 200, headers: { ...cacheHeaders, 'content-type': TICKET_FILE_TYPES[kind] }, body };
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

  // ------------------------------------------------------------------
  // Commands

  /** The built activity list per snapshot (its records array) and locale. */
  const activityLists = new WeakMap<readonly ActivityRecord[], Map<Locale, BookingReply>>();

  /**
   * The activity list, built once per snapshot and locale: it depends on nothing else, and
   * sorting, viewing and serialising every activity again on each request would be wasted.
   */
  function listActivities(call: BookingCall): BookingReply {
    const locale = localeOf(call.query.get('locale'));
    const records = options.activities(locale);
    let lists = activityLists.get(records);
    if (lists === undefined) activityLists.set(records, (lists = new Map()));
    let reply = lists.get(locale);
    if (reply === undefined) {
      const sorted = [...records].sort((a, b) => a.bookingId - b.bookingId);
      reply = jsonReply(200, sorted.map((record) => activitySummaryView(record, unitPrice(record), isBookable(record))));
      lists.set(locale, reply);
    }
    return reply;
  }

  function listAvailabilities(call: BookingCall, now: number): BookingReply {
    const locale = localeOf(call.query.get('locale'));
    const record = /^\d{1,9}$/.test(call.id!) ? findActivity(Number(call.id), locale) : undefined;
    if (record === undefined) throw notFound('activity', call.id!);
    const window = bookingWindow(now);
    const from = dateParameter(call.query, 'startsAfter') ?? window.first;
    const to = dateParameter(call.query, 'untilEndOfDay') ?? window.last;
    if (from > to) throw invalid('untilEndOfDay', `untilEndOfDay (${to}) must not be before startsAfter (${from})`);
    const limit = limitParameter(call.query);
    const slots = offeredSlots(record, from > window.first ? from : window.first, to < window.last ? to : window.last, now).slice(0, limit);
    return jsonReply(200, offersView(record, isBookable(record) ? unitPrice(record) : null, slots, (slot) => available(slot, now), locale));
  }

  function createReservation(call: BookingCall, now: number): Decision {
    const request = readReservationRequest(call.body);
    const { availabilityId, cartId } = request;
    const quantity = request.selection.reduce((sum, entry) => sum + entry.numGuests, 0);

    const slot = parseSlotId(availabilityId);
    const record = slot === null ? undefined : findActivity(slot.activityId, request.locale ?? 'de-CH');
    const price = record === undefined ? null : unitPrice(record);
    if (slot === null || slot.activityId !== request.activityId || record === undefined || price === null || !record.isBookable || !isOffered(slot, now)) {
      const reason =
        slot === null ? 'no such availability (closed day, unknown date or start time)'
        : slot.activityId !== request.activityId ? `availability ${availabilityId} belongs to activity ${slot.activityId}, not ${request.activityId}`
        : record === undefined ? `no activity ${slot.activityId}`
        : price === null || !record.isBookable ? `activity ${slot.activityId} is not bookable`
        : 'the availability has started or lies outside the booking window';
      throw new BookingError('SLOT_UNAVAILABLE', `Availability ${availabilityId} cannot be reserved: ${reason}`, { availabilityId, reason });
    }
    const categoryId = ticketCategoryIdOf(slot.activityId);
    request.selection.forEach(({ ticketCategoryId }, index) => {
      if (ticketCategoryId !== categoryId) {
        throw new BookingError('INVALID_REQUEST', `selection[${index}].ticketCategoryId ${ticketCategoryId} is not a ticket category of availability ${availabilityId}; allowed: ${categoryId}`, {
          field: `selection[${index}].ticketCategoryId`,
          allowed: [categoryId],
        });
      }
    });

    let cart: Cart | undefined;
    if (cartId !== undefined) {
      cart = carts.get(cartId);
      if (cart === undefined) throw notFound('cart', cartId);
      if (cart.bookingId !== null) throw checkedOut(cart);
      refuseExpiredHolds(cart, now);
      refuseFullCart(cart);
      const other = cart.reservationIds.map((id) => reservations.get(id)!).find((held) => held.unitPrice.currency !== price.currency);
      if (other) {
        throw new BookingError('CURRENCY_MISMATCH', `Cart ${cartId} holds places priced in ${other.unitPrice.currency}; availability ${availabilityId} is priced in ${price.currency}`, {
          cartId,
          cartCurrency: other.unitPrice.currency,
          availabilityCurrency: price.currency,
        });
      }
    }
    refuseOverHoldLimit(call.client, quantity, now);
    const left = available(slot, now);
    if (left < quantity) {
      throw new BookingError('SOLD_OUT', `Availability ${availabilityId} has ${left} place${left === 1 ? '' : 's'} left, ${quantity} requested`, {
        availabilityId,
        requested: quantity,
        available: left,
      });
    }

    const reservation: Reservation = {
      id: newId('rsv'),
      cartId: cart?.id ?? newId('cart'),
      client: call.client,
      slotId: availabilityId,
      activityId: slot.activityId,
      date: slot.date,
      startTime: slot.startTime,
      startsAt: slot.startsAt,
      quantity,
      unitPrice: price,
      createdAt: now,
      expiresAt: now + HOLD_MS,
      locale: request.locale ?? 'de-CH',
    };
    const offerLabel = titleOf(record) ?? `Activity ${slot.activityId}`;
    return {
      event: { type: 'reservation_created', at: now, reservation, newCart: cart === undefined },
      status: 201,
      view: () => reservationView(reservation, offerLabel),
    };
  }

  /**
   * A cart with an expired hold can never be checked out, so it takes nothing more either.
   *
   * @throws BookingError HOLD_EXPIRED (410) naming the expired reservations
   */
  function refuseExpiredHolds(cart: Cart, now: number): void {
    const expired = cart.reservationIds.map((id) => reservations.get(id)!).filter((reservation) => reservation.expiresAt <= now);
    if (expired.length === 0) return;
    const expiredAt = iso(Math.min(...expired.map((reservation) => reservation.expiresAt)));
    throw new BookingError('HOLD_EXPIRED', `A hold of cart ${cart.id} expired at ${expiredAt} (holds last 15 minutes); reserve again in a new cart`, {
      cartId: cart.id,
      reservationIds: expired.map((reservation) => reservation.id),
      expiredAt,
    });
  }

  /**
   * Every item of a cart becomes a booking item, listed and answered whole on each read of the
   * booking: the cap keeps that answer small.
   *
   * @throws BookingError CART_FULL (409) when the cart holds {@link CartLimits.maxCartItems} reservations
   */
  function refuseFullCart(cart: Cart): void {
    const limit = options.limits.maxCartItems;
    if (cart.reservationIds.length < limit) return;
    throw new BookingError('CART_FULL', `Cart ${cart.id} holds ${limit} reservations, the most one cart takes; check it out and reserve the rest in a new cart`, {
      cartId: cart.id,
      limit,
    });
  }

  /**
   * Held places are taken from everyone else for 15 minutes without a booking: one client may
   * hold only so many at once.
   *
   * @throws BookingError HOLD_LIMIT_REACHED (429, Retry-After until its first hold expires)
   */
  function refuseOverHoldLimit(client: string, quantity: number, now: number): void {
    const limit = options.limits.maxHeldPlaces;
    const clientHolds = holdsByClient.get(client);
    let held = 0;
    let firstExpiry = Infinity;
    for (const reservation of clientHolds ?? []) {
      if (reservation.expiresAt <= now) {
        clientHolds!.delete(reservation);
        continue;
      }
      held += reservation.quantity;
      firstExpiry = Math.min(firstExpiry, reservation.expiresAt);
    }
    if (clientHolds?.size === 0) holdsByClient.delete(client);
    if (held + quantity <= limit) return;
    const retryAfterS = Number.isFinite(firstExpiry) ? Math.max(1, Math.ceil((firstExpiry - now) / 1000)) : Math.ceil(HOLD_MS / 1000);
    throw new BookingError(
      'HOLD_LIMIT_REACHED',
      `This client holds ${held} place${held === 1 ? '' : 's'}; ${quantity} more would exceed the ${limit} one client may hold at once. Check out or let holds expire (the first in ${retryAfterS} s)`,
      { limit, held, requested: quantity },
      { 'Retry-After': String(retryAfterS) },
    );
  }

  function checkOutCart(call: BookingCall, now: number): Decision {
    const { user, partnerReference } = readCheckOutRequest(call.body);
    const customer: Customer = { firstName: user.givenName, lastName: user.familyName, email: user.email, phone: user.phone, countryCode: user.countryCode };

    const cart = carts.get(call.id!);
    if (cart === undefined) throw notFound('cart', call.id!);
    if (cart.bookingId !== null) throw checkedOut(cart);
    refuseExpiredHolds(cart, now);
    const held = cart.reservationIds.map((id) => reservations.get(id)!);
    // The booking speaks the language its cart was filled in.
    const locale = held[0]?.locale ?? 'de-CH';
    const started = held.find((reservation) => Date.parse(reservation.startsAt) <= now);
    if (started) {
      throw new BookingError('SLOT_UNAVAILABLE', `Cart ${cart.id} cannot be checked out: availability ${started.slotId} has started`, {
        availabilityId: started.slotId,
        reason: 'the availability has started',
      });
    }

    const bookingId = newId('bkg');
    const bookingItems: BookingItem[] = held.map((reservation) => {
      const record = findActivity(reservation.activityId, locale);
      return {
        id: newId('itm'),
        bookingId,
        reservationId: reservation.id,
        activityId: reservation.activityId,
        title: record ? titleOf(record) : null,
        slotId: reservation.slotId,
        date: reservation.date,
        startTime: reservation.startTime,
        startsAt: reservation.startsAt,
        quantity: reservation.quantity,
        unitPrice: reservation.unitPrice,
        cancelledAt: null,
        cancellationReason: null,
      };
    });
    const booking = { id: bookingId, cartId: cart.id, partnerReference, locale, customer, createdAt: now };
    return {
      event: { type: 'cart_checked_out', at: now, booking, items: bookingItems },
      status: 200,
      // A booking fresh from check-out is unpaid, so it has no tickets yet.
      view: () => fullBookingView(bookings.get(bookingId)!, []),
    };
  }

  function createPaymentAttempt(call: BookingCall, now: number): Decision {
    const request = readPaymentAttemptRequest(call.body);
    const method = request.paymentMethod;
    if (method !== DECLINED_PAYMENT_METHOD && !(PAYMENT_METHODS as readonly string[]).includes(method)) {
      throw new BookingError('INVALID_REQUEST', `paymentMethod ${JSON.stringify(method)} is not one the sandbox takes; allowed: ${PAYMENT_METHODS.join(', ')} (${DECLINED_PAYMENT_METHOD} is always declined)`, {
        field: 'paymentMethod',
        allowed: [...PAYMENT_METHODS, DECLINED_PAYMENT_METHOD],
      });
    }

    const booking = bookings.get(call.id!);
    if (booking === undefined) throw notFound('booking', call.id!);
    if (bookingStatus(booking) === 'cancelled') {
      throw new BookingError('BOOKING_CANCELLED', `Booking ${booking.id} is cancelled; there is nothing to pay`, { bookingId: booking.id });
    }
    if (booking.payment !== null) {
      throw new BookingError('BOOKING_ALREADY_PAID', `Booking ${booking.id} is already paid`, { bookingId: booking.id, paymentAttemptId: booking.payment.id });
    }
    if (method === DECLINED_PAYMENT_METHOD) {
      throw new BookingError('PAYMENT_DECLINED', `The payment was declined; booking ${booking.id} stays unpaid`, {
        bookingId: booking.id,
        reason: 'declined',
        failureReturnUrl: request.failureReturnUrl,
      });
    }

    const paymentId = newId('pay');
    const payment: Payment = {
      id: paymentId,
      method,
      amount: amountDue(booking),
      createdAt: now,
      invoice: method === 'invoice' ? { number: `SBX-${paymentId.slice(4).toUpperCase()}`, dueDate: addDays(zurichDate(now), INVOICE_DUE_DAYS) } : null,
      successReturnUrl: request.successReturnUrl,
      language: request.language ?? booking.locale,
    };
    return { event: { type: 'payment_succeeded', at: now, bookingId: booking.id, payment }, status: 201, view: () => paymentAttemptView(booking.id, payment) };
  }

  function cancelBookingItem(call: BookingCall, now: number): Decision | BookingReply {
    const { reason } = readCancelRequest(call.body);
    const item = items.get(call.id!);
    if (item === undefined) throw notFound('booking item', call.id!);
    // Cancelling again changes nothing and answers as the first time did.
    if (item.cancelledAt !== null) return jsonReply(200, itemView(item));
    return { event: { type: 'booking_item_cancelled', at: now, itemId: item.id, reason }, status: 200, view: () => itemView(item) };
  }

  function getBooking(call: BookingCall): BookingReply {
    const booking = bookings.get(call.id!);
    if (booking === undefined) throw notFound('booking', call.id!);
    return jsonReply(200, fullBookingView(booking, ticketsOf(booking)));
  }

  /** Applies a decision, journals it with the idempotent response, and answers once it is on disk. */
  async function commit(call: BookingCall, decision: Decision | BookingReply): Promise<BookingReply> {
    if (!('event' in decision)) return decision;
    apply(decision.event);
    const reply = jsonReply(decision.status, decision.view());
    const entry: JournalEntry = { v: 1, ...decision.event };
    if (call.idempotency) entry.idempotency = { client: call.client, ...call.idempotency, status: reply.status, body: reply.body.toString('utf8') };
    try {
      await journal.append(entry);
    } catch (error) {
      failed = true;
      logger.error(`booking sandbox: journal write to ${file} failed; answering 503 until restarted: ${(error as Error).message}`);
      throw error;
    }
    return reply;
  }

  return {
    async execute(call) {
      if (failed) throw journalFailed();
      const now = clock();
      switch (call.operation.id) {
        case 'listActivities':
          return listActivities(call);
        case 'listAvailabilities':
          return listAvailabilities(call, now);
        case 'getBooking':
          return getBooking(call);
        case 'createReservation':
          return commit(call, createReservation(call, now));
        case 'checkOutCart':
          return commit(call, checkOutCart(call, now));
        case 'createPaymentAttempt':
          return commit(call, createPaymentAttempt(call, now));
        case 'cancelBookingItem':
          return commit(call, cancelBookingItem(call, now));
      }
    },
    ticketFile,
    close: () => journal.close(),
  };
}

function localeOf(value: string | null): Locale {
  return parseBookingLocale(value ?? DEFAULT_BOOKING_LOCALE, 'query parameter locale');
}

function dateParameter(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!isDate(value)) throw invalid(name, `Query parameter ${name} must be a date written YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return value;
}

function limitParameter(query: URLSearchParams): number {
  const value = query.get('limit');
  if (value === null) return DEFAULT_AVAILABILITY_LIMIT;
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : 0;
  if (limit < 1 || limit > MAX_AVAILABILITY_LIMIT) throw invalid('limit', `Query parameter limit must be an integer from 1 to ${MAX_AVAILABILITY_LIMIT}, got ${JSON.stringify(value)}`);
  return limit;
}

function notFound(resource: string, id: string): BookingError {
  return new BookingError('NOT_FOUND', `No ${resource} with id ${JSON.stringify(id)}`, { resource: resource.replace(' ', '_'), id });
}

/** The refusal of every call once a journal write has failed (the log names the file and cause). */
function journalFailed(): BookingError {
  return new BookingError('BOOKING_UNAVAILABLE', 'Booking is unavailable: its journal could not be written; it comes back when the operator has restarted the server', {
    reason: 'journal_write_failed',
  });
}

function checkedOut(cart: Cart): BookingError {
  return new BookingError('CART_CHECKED_OUT', `Cart ${cart.id} is already checked out as booking ${cart.bookingId}`, { cartId: cart.id, bookingId: cart.bookingId });
}

/** The id of the ticket of a booking item: `tkt_` and the item id's hex digits. */
function ticketId(itemId: string): string {
  return `tkt_${itemId.slice(itemId.indexOf('_') + 1)}`;
}

/** A new id: a type prefix and 16 random hex digits, e.g. `bkg_3f9a0c2e1b7d4a65`. */
function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
