/** The command `PATCH /booking_items/{id}/cancel`: cancels one booking item, freeing its places. */

import { type BookingCall, type BookingReply, jsonReply } from '../operations.ts';
import { readCancelRequest } from '../partnerRequests.ts';
import type { Decision } from './commit.ts';
import type { SandboxContext } from './context.ts';
import { notFound } from './refusals.ts';
import { itemView } from './views.ts';

/**
 * Decides a cancellation; cancelling again changes nothing and answers as the first time did.
 *
 * @throws BookingError INVALID_REQUEST or NOT_FOUND
 */
export function cancelBookingItem(context: SandboxContext, call: BookingCall, now: number): Decision | BookingReply {
  const { reason } = readCancelRequest(call.body);
  const item = context.state.items.get(call.id!);
  if (item === undefined) throw notFound('booking item', call.id!);
  if (item.cancelledAt !== null) return jsonReply(200, itemView(context, item));
  return { event: { type: 'booking_item_cancelled', at: now, itemId: item.id, reason }, status: 200, view: () => itemView(context, item) };
}
