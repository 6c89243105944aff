/**
 * The answers about bookings, from the state: partnerViews.ts gives their shapes, this module
 * what the state and the snapshot add (status, totals, content ids, tickets).
 */

import { ticketFilePath } from '../ticketFiles.ts';
import { barcodeValue, BARCODE_FORMAT } from '../tickets.ts';
import { bookingItemView, bookingView } from '../partnerViews.ts';
import type { SandboxContext } from './context.ts';
import { ticketId } from './ids.ts';
import type { Booking, BookingItem } from './records.ts';
import type { SandboxState } from './state.ts';

/** One booking item, as in a booking and as a cancellation answers it. */
export function itemView({ catalog }: SandboxContext, item: BookingItem) {
  return bookingItemView(item, catalog.contentIdOf(item.activityId));
}

/** The answer of `GET /bookings/{id}` and of a check-out, with the tickets given. */
export function fullBookingView({ state, catalog }: SandboxContext, booking: Booking, tickets: unknown[]) {
  return bookingView(booking, {
    items: booking.itemIds.map((id) => ({ item: state.items.get(id)!, contentApiActivityId: catalog.contentIdOf(state.items.get(id)!.activityId) })),
    status: state.bookingStatus(booking),
    total: state.amountDue(booking),
    tickets,
  });
}

/**
 * One ticket per booked item of a confirmed booking (a shape of ours: the partner's is not
 * known); its files are linked, not rendered here.
 */
export function ticketsOf(state: SandboxState, booking: Booking): unknown[] {
  if (state.bookingStatus(booking) !== 'confirmed') return [];
  return state.bookedItems(booking).map((item) => {
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
