/**
 * The command `POST /bookings/{id}/payment_attempts`: settles a booking at once by any of
 * the methods requestSchemas.ts lists; {@link DECLINED_PAYMENT_METHOD} is declined.
 */

import { addDays, zurichDate } from '../availability.ts';
import { BookingError } from '../errors.ts';
import type { BookingCall } from '../operations.ts';
import { readPaymentAttemptRequest } from '../partnerRequests.ts';
import { DECLINED_PAYMENT_METHOD } from '../requestSchemas.ts';
import { paymentAttemptView } from '../partnerViews.ts';
import type { Decision } from './commit.ts';
import type { SandboxContext } from './context.ts';
import { newId } from './ids.ts';
import type { Booking, Payment } from './records.ts';
import { notFound } from './refusals.ts';
import type { SandboxState } from './state.ts';

/** Days after payment an invoice is due. */
const INVOICE_DUE_DAYS = 30;

/**
 * Decides a payment attempt: the amount due over the items not cancelled, paid at once.
 *
 * @throws BookingError INVALID_REQUEST (a body that is not a PaymentAttemptRequest, e.g. a method not taken), NOT_FOUND, BOOKING_CANCELLED,
 *   BOOKING_ALREADY_PAID or PAYMENT_DECLINED
 */
export function createPaymentAttempt({ state }: SandboxContext, call: BookingCall, now: number): Decision {
  const request = readPaymentAttemptRequest(call.body);
  const method = request.paymentMethod;
  const booking = payableBooking(state, call.id!);
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
    amount: state.amountDue(booking),
    createdAt: now,
    invoice: method === 'invoice' ? { number: `SBX-${paymentId.slice(4).toUpperCase()}`, dueDate: addDays(zurichDate(now), INVOICE_DUE_DAYS) } : null,
    successReturnUrl: request.successReturnUrl,
    language: request.language ?? booking.locale,
  };
  return { event: { type: 'payment_succeeded', at: now, bookingId: booking.id, payment }, status: 201, view: () => paymentAttemptView(booking.id, payment) };
}

/** @throws BookingError NOT_FOUND, BOOKING_CANCELLED or BOOKING_ALREADY_PAID when the booking cannot be paid */
function payableBooking(state: SandboxState, id: string): Booking {
  const booking = state.bookings.get(id);
  if (booking === undefined) throw notFound('booking', id);
  if (state.bookingStatus(booking) === 'cancelled') {
    throw new BookingError('BOOKING_CANCELLED', `Booking ${booking.id} is cancelled; there is nothing to pay`, { bookingId: booking.id });
  }
  if (booking.payment !== null) {
    throw new BookingError('BOOKING_ALREADY_PAID', `Booking ${booking.id} is already paid`, { bookingId: booking.id, paymentAttemptId: booking.payment.id });
  }
  return booking;
}
