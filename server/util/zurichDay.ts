/**
 * Calendar days in Europe/Zurich, where the content's dates are local: the day a request is
 * answered on, the instant that day ends, and ISO dates as day numbers.
 */

const TIME_ZONE = 'Europe/Zurich';
const DAY_MS = 86_400_000;
const DATE_FORMAT = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** The date in Zurich at an instant (ms since the epoch), `YYYY-MM-DD`. */
export function zurichDay(ms: number): string {
  const parts = DATE_FORMAT.formatToParts(new Date(ms));
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * The first instant (ms) of the Zurich day after the one at `ms`: local midnight, 23:00 or
 * 22:00 UTC as winter or summer time holds then (the switches happen at 02:00/03:00, never at midnight).
 */
export function nextZurichMidnightMs(ms: number): number {
  return zurichMidnightMs(addDays(zurichDay(ms), 1));
}

/** The first instant (ms) of a Zurich day, `YYYY-MM-DD`. */
export function zurichMidnightMs(day: string): number {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  for (const offsetHours of [1, 2]) {
    const candidate = utcMidnight - offsetHours * 3_600_000;
    if (zurichDay(candidate) === day && zurichDay(candidate - 1) !== day) return candidate;
  }
  throw new Error(`no midnight found in ${TIME_ZONE} on ${day}`);
}

/** Whether `value` is a `YYYY-MM-DD` date that exists (2026-02-30 does not). */
export function isIsoDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

/** The `YYYY-MM-DD` date of a day number ({@link dayNumber}). */
export function dayOfNumber(number: number): string {
  return new Date(number * DAY_MS).toISOString().slice(0, 10);
}

/** `day` plus `days` calendar days. */
export function addDays(day: string, days: number): string {
  return dayOfNumber(dayNumber(day) + days);
}
