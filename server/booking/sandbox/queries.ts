/** The sandbox's three reads: the activity list, an activity's availabilities and a booking. */

import type { ActivityRecord } from '../../../sync/format.ts';
import type { Locale } from '../../snapshot/locales.ts';
import { Value } from '@sinclair/typebox/value';
import { bookingWindow } from '../availability.ts';
import { DEFAULT_BOOKING_LOCALE, parseBookingLocale } from '../bookingLocale.ts';
import { invalid } from '../input.ts';
import { type BookingCall, type BookingReply, jsonReply } from '../operations.ts';
import { activitySummaryView, offersView } from '../partnerViews.ts';
import { AVAILABILITY_PARAMETERS } from '../requestSchemas.ts';
import { type Catalog, isBookable, offeredSlots, unitPrice } from './catalog.ts';
import type { SandboxContext } from './context.ts';
import { notFound } from './refusals.ts';
import { fullBookingView, ticketsOf } from './views.ts';

/**
 * Answers `GET /activities`, building each list once per snapshot and locale: it depends on
 * nothing else, and sorting, viewing and serialising every activity again on each request would
 * be wasted.
 */
export class ActivityList {
  /** The built list per snapshot (its records array) and locale. */
  private readonly lists = new WeakMap<readonly ActivityRecord[], Map<Locale, BookingReply>>();

  constructor(private readonly catalog: Catalog) {}

  /** @throws BookingError INVALID_REQUEST for a `locale` not served */
  reply(call: BookingCall): BookingReply {
    const locale = localeOf(call.query.get('locale'));
    const records = this.catalog.activities(locale);
    let lists = this.lists.get(records);
    if (lists === undefined) this.lists.set(records, (lists = new Map()));
    let reply = lists.get(locale);
    if (reply === undefined) {
      const sorted = [...records].sort((a, b) => a.bookingId - b.bookingId);
      reply = jsonReply(200, sorted.map((record) => activitySummaryView(record, unitPrice(record), isBookable(record))));
      lists.set(locale, reply);
    }
    return reply;
  }
}

/**
 * Answers `GET /activities/{id}/availabilities`: the offered slots between `startsAfter` and
 * `untilEndOfDay` (both clipped to the booking window), at most `limit`.
 *
 * @throws BookingError NOT_FOUND for an unknown activity, INVALID_REQUEST for a bad query parameter
 */
export function listAvailabilities({ state, catalog }: SandboxContext, call: BookingCall, now: number): BookingReply {
  const locale = localeOf(call.query.get('locale'));
  const record = /^\d{1,9}$/.test(call.id!) ? catalog.findActivity(Number(call.id), locale) : undefined;
  if (record === undefined) throw notFound('activity', call.id!);
  const window = bookingWindow(now);
  const from = dateParameter(call.query, 'startsAfter') ?? window.first;
  const to = dateParameter(call.query, 'untilEndOfDay') ?? window.last;
  if (from > to) throw invalid('untilEndOfDay', `untilEndOfDay (${to}) must not be before startsAfter (${from})`);
  const limit = limitParameter(call.query);
  const slots = offeredSlots(record, from > window.first ? from : window.first, to < window.last ? to : window.last, now).slice(0, limit);
  return jsonReply(200, offersView(record, isBookable(record) ? unitPrice(record) : null, slots, (slot) => state.available(slot, now), locale));
}

/**
 * Answers `GET /bookings/{id}`, with its tickets once paid.
 *
 * @throws BookingError NOT_FOUND for an unknown booking
 */
export function getBooking(context: SandboxContext, call: BookingCall): BookingReply {
  const booking = context.state.bookings.get(call.id!);
  if (booking === undefined) throw notFound('booking', call.id!);
  return jsonReply(200, fullBookingView(context, booking, ticketsOf(context.state, booking)));
}

function localeOf(value: string | null): Locale {
  return parseBookingLocale(value ?? DEFAULT_BOOKING_LOCALE, 'query parameter locale');
}

function dateParameter(query: URLSearchParams, name: 'startsAfter' | 'untilEndOfDay'): string | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!Value.Check(AVAILABILITY_PARAMETERS[name], value)) throw invalid(name, `Query parameter ${name} must be a date written YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return value;
}

/** A query parameter is text: only digits are read as a number (not `1e2`, `0x10` or ` 5`), then checked against the schema. */
function limitParameter(query: URLSearchParams): number {
  const schema = AVAILABILITY_PARAMETERS.limit;
  const value = query.get('limit');
  if (value === null) return schema.default as number;
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : undefined;
  if (!Value.Check(schema, limit)) throw invalid('limit', `Query parameter limit must be an integer from ${schema.minimum} to ${schema.maximum}, got ${JSON.stringify(value)}`);
  return limit as number;
}
