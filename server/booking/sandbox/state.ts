/**
 * The sandbox's state in memory: carts, reservations, holds, bookings and their items, changed
 * only by applying events (records.ts), so that replaying the journal rebuilds it exactly.
 */

import type { Slot } from '../availability.ts';
import type { Booking, BookingItem, Cart, Money, Reservation, SandboxEvent } from './records.ts';

/** What a booking's status is, from its items and payment. */
export type BookingStatus = 'pending_payment' | 'confirmed' | 'cancelled';

/** The places a client holds now, and when the first of those holds expires (ms since the epoch; Infinity when none). */
export interface ClientHolds {
  held: number;
  firstExpiry: number;
}

/** Every record of the sandbox, and the derived counts its commands check against. */
export class SandboxState {
  /** Every reservation by id, checked out or not, expired or not. */
  readonly reservations = new Map<string, Reservation>();
  /** Every cart by id. */
  readonly carts = new Map<string, Cart>();
  /** Every booking by id. */
  readonly bookings = new Map<string, Booking>();
  /** Every booking item by id, cancelled or not. */
  readonly items = new Map<string, BookingItem>();
  /** Per slot id: places taken by booked (not cancelled) items. */
  private readonly booked = new Map<string, number>();
  /** Per slot id: reservations not checked out, expired ones until they are swept. */
  private readonly holds = new Map<string, Set<Reservation>>();
  /** Per client: its reservations not checked out, expired ones until they are counted. */
  private readonly holdsByClient = new Map<string, Set<Reservation>>();

  /** Applies one event; the caller has checked it (a command) or {@link replayProblem} has (a replay). */
  apply(event: SandboxEvent): void {
    switch (event.type) {
      case 'reservation_created':
        return this.addReservation(event.reservation, event.newCart, event.at);
      case 'cart_checked_out':
        return this.checkOut(event.booking, event.items);
      case 'payment_succeeded':
        this.bookings.get(event.bookingId)!.payment = event.payment;
        return;
      case 'booking_item_cancelled': {
        const item = this.items.get(event.itemId)!;
        item.cancelledAt = event.at;
        item.cancellationReason = event.reason;
        this.booked.set(item.slotId, this.booked.get(item.slotId)! - item.quantity);
        return;
      }
    }
  }

  private addReservation(reservation: Reservation, newCart: boolean, at: number): void {
    if (newCart) this.carts.set(reservation.cartId, { id: reservation.cartId, createdAt: at, reservationIds: [], bookingId: null });
    this.carts.get(reservation.cartId)!.reservationIds.push(reservation.id);
    this.reservations.set(reservation.id, reservation);
    let slotHolds = this.holds.get(reservation.slotId);
    if (slotHolds === undefined) this.holds.set(reservation.slotId, (slotHolds = new Set()));
    slotHolds.add(reservation);
    let clientHolds = this.holdsByClient.get(reservation.client);
    if (clientHolds === undefined) this.holdsByClient.set(reservation.client, (clientHolds = new Set()));
    clientHolds.add(reservation);
  }

  private checkOut(booking: Omit<Booking, 'itemIds' | 'payment'>, items: BookingItem[]): void {
    this.bookings.set(booking.id, { ...booking, itemIds: items.map((item) => item.id), payment: null });
    this.carts.get(booking.cartId)!.bookingId = booking.id;
    for (const item of items) {
      this.items.set(item.id, item);
      const reservation = this.reservations.get(item.reservationId)!;
      this.holds.get(item.slotId)?.delete(reservation);
      const clientHolds = this.holdsByClient.get(reservation.client);
      clientHolds?.delete(reservation);
      if (clientHolds?.size === 0) this.holdsByClient.delete(reservation.client);
      this.booked.set(item.slotId, (this.booked.get(item.slotId) ?? 0) + item.quantity);
    }
  }

  /**
   * Why a journal entry cannot be applied to the state replayed so far (an unknown event type,
   * or a cart, reservation, booking or item no earlier line created), or undefined when it can.
   */
  replayProblem(event: SandboxEvent): string | undefined {
    const unknown = (what: string, id: unknown) => `${event.type} names ${what} ${JSON.stringify(id)}, which no earlier line created`;
    switch (event.type) {
      case 'reservation_created':
        if (!event.newCart && !this.carts.has(event.reservation?.cartId)) return unknown('cart', event.reservation?.cartId);
        return undefined;
      case 'cart_checked_out': {
        if (!this.carts.has(event.booking?.cartId)) return unknown('cart', event.booking?.cartId);
        const missing = event.items?.find((item) => !this.reservations.has(item.reservationId));
        return missing === undefined ? undefined : unknown('reservation', missing.reservationId);
      }
      case 'payment_succeeded':
        return this.bookings.has(event.bookingId) ? undefined : unknown('booking', event.bookingId);
      case 'booking_item_cancelled':
        return this.items.has(event.itemId) ? undefined : unknown('booking item', event.itemId);
      default:
        return `unknown event type ${JSON.stringify((event as { type?: unknown }).type)}`;
    }
  }

  /** Drops expired holds of every slot; returns how many. */
  sweepExpiredHolds(now: number): number {
    let count = 0;
    for (const slotHolds of this.holds.values()) {
      for (const reservation of slotHolds) {
        if (reservation.expiresAt <= now) {
          slotHolds.delete(reservation);
          count++;
        }
      }
    }
    return count;
  }

  /** Places of a slot neither booked nor held at `now` (dropping the slot's expired holds). */
  available(slot: Slot, now: number): number {
    let held = 0;
    const slotHolds = this.holds.get(slot.id);
    for (const reservation of slotHolds ?? []) {
      if (reservation.expiresAt <= now) slotHolds!.delete(reservation);
      else held += reservation.quantity;
    }
    return slot.capacity - (this.booked.get(slot.id) ?? 0) - held;
  }

  /** The places a client holds at `now` (dropping its expired holds). */
  clientHolds(client: string, now: number): ClientHolds {
    const clientHolds = this.holdsByClient.get(client);
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
    if (clientHolds?.size === 0) this.holdsByClient.delete(client);
    return { held, firstExpiry };
  }

  /** The reservations of a cart, in the order they were made. */
  reservationsOf(cart: Cart): Reservation[] {
    return cart.reservationIds.map((id) => this.reservations.get(id)!);
  }

  /** The items of a booking not cancelled. */
  bookedItems(booking: Booking): BookingItem[] {
    return booking.itemIds.map((id) => this.items.get(id)!).filter((item) => item.cancelledAt === null);
  }

  /** The sum over a booking's items not cancelled, in the currency its cart was priced in. */
  amountDue(booking: Booking): Money {
    const active = this.bookedItems(booking);
    const currency = this.items.get(booking.itemIds[0]!)!.unitPrice.currency;
    return { cents: active.reduce((sum, item) => sum + item.unitPrice.cents * item.quantity, 0), currency };
  }

  /** Cancelled once every item is; otherwise confirmed once paid. */
  bookingStatus(booking: Booking): BookingStatus {
    if (this.bookedItems(booking).length === 0) return 'cancelled';
    return booking.payment === null ? 'pending_payment' : 'confirmed';
  }
}
