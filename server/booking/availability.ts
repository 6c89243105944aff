/**
 * The sandbox's timetable: deterministic time slots per activity and date, so the same
 * activity shows the same slots on every machine, in Swiss local time.
 *
 * - Slots start at {@link SLOT_TIMES} (Europe/Zurich) every day from today for
 *   {@link BOOKING_WINDOW_DAYS} days, except one closed weekday per activity ({@link isClosedOn}).
 * - A slot of activity `id` has {@link slotCapacity} places: 4 + (id mod 9), so 4 to 12.
 * - A slot whose start has passed is no longer offered.
 */

/** The time zone of slot times and of "today". */
export const TIME_ZONE = 'Europe/Zurich';

/** Local start times of the daily slots. */
export const SLOT_TIMES = ['09:00', '13:00'] as const;

/** Days offered for booking, today included. */
export const BOOKING_WINDOW_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** One bookable time slot (capacity only; what is left depends on holds and bookings). */
export interface Slot {
  /** `<activityId>-<YYYYMMDD>-<HHMM>`, e.g. `4711-20261122-0900`. */
  readonly id: string;
  readonly activityId: number;
  /** Local date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Local start time, `HH:MM`. */
  readonly startTime: string;
  /** Start as ISO 8601 with the Swiss offset, e.g. `2026-11-22T09:00:00+01:00`. */
  readonly startsAt: string;
  /** Start in ms since the epoch. */
  readonly startsAtMs: number;
  /** Places in the slot. */
  readonly capacity: number;
}

/** Places per slot of an activity: 4 + (id mod 9). */
export function slotCapacity(activityId: number): number {
  return 4 + (activityId % 9);
}

/** Whether an activity is closed on a date: on the weekday where (days since 1970-01-01 + id) mod 7 = 0. */
export function isClosedOn(activityId: number, date: string): boolean {
  return (epochDay(date) + activityId) % 7 === 0;
}

/** The slots an activity has on a date (whether or not still offered, see {@link isOffered}). */
export function slotsOn(activityId: number, date: string): Slot[] {
  if (isClosedOn(activityId, date)) return [];
  return SLOT_TIMES.map((startTime) => {
    const { ms, iso } = zurichInstant(date, startTime);
    return {
      id: `${activityId}-${date.replaceAll('-', '')}-${startTime.replace(':', '')}`,
      activityId,
      date,
      startTime,
      startsAt: iso,
      startsAtMs: ms,
      capacity: slotCapacity(activityId),
    };
  });
}

/**
 * Reads a slot id.
 *
 * @returns the slot, or null when the id is malformed or names no slot of that activity and date
 *   (a real calendar date, one of the slot times, not the closed weekday)
 */
export function parseSlotId(value: string): Slot | null {
  const match = /^(\d{1,9})-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})$/.exec(value);
  if (!match) return null;
  const [, id, year, month, day, hour, minute] = match as unknown as [string, string, string, string, string, string, string];
  const date = `${year}-${month}-${day}`;
  if (!isDate(date)) return null;
  return slotsOn(Number(id), date).find((slot) => slot.startTime === `${hour}:${minute}`) ?? null;
}

/** The dates open for booking at `now`: today (in Zurich) and the following days, `YYYY-MM-DD`. */
export function bookingWindow(now: number): { first: string; last: string } {
  const first = zurichDate(now);
  return { first, last: addDays(first, BOOKING_WINDOW_DAYS - 1) };
}

/** Whether a slot may be booked at `now`: inside the booking window and not yet started. */
export function isOffered(slot: Slot, now: number): boolean {
  const { first, last } = bookingWindow(now);
  return slot.date >= first && slot.date <= last && slot.startsAtMs > now;
}

/** Whether a string is a real calendar date written `YYYY-MM-DD`. */
export function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  // Date rolls 2026-02-30 over to March and rejects day 32 as NaN; both are not dates.
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}

/** `date` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  return new Date(epochDay(date) * DAY_MS + days * DAY_MS).toISOString().slice(0, 10);
}

/** The date in Zurich at an instant, `YYYY-MM-DD`. */
export function zurichDate(ms: number): string {
  const parts = Object.fromEntries(DATE_FORMAT.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

const DATE_FORMAT = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const OFFSET_FORMAT = new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, timeZoneName: 'longOffset' });

function epochDay(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

// Listing activities asks for the same few dates thousands of times; Intl is slow enough to matter.
const instants = new Map<string, { ms: number; iso: string }>();

/**
 * The instant of a local Zurich wall time, in ms and as ISO 8601 with the offset. Slot times are
 * far from the 02:00–03:00 switch to and from summer time, so one correction suffices.
 */
function zurichInstant(date: string, time: string): { ms: number; iso: string } {
  const key = `${date}T${time}`;
  let instant = instants.get(key);
  if (instant === undefined) {
    const asUtc = Date.parse(`${key}:00Z`);
    const offset = offsetMinutes(asUtc);
    instant = { ms: asUtc - offset * 60_000, iso: `${key}:00${formatOffset(offset)}` };
    if (instants.size >= 10_000) instants.clear();
    instants.set(key, instant);
  }
  return instant;
}

/** Zurich's offset from UTC at an instant, in minutes (60 in winter, 120 in summer). */
function offsetMinutes(ms: number): number {
  const name = OFFSET_FORMAT.formatToParts(new Date(ms)).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
