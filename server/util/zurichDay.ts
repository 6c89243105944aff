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
  return dayNumberOf(value) !== null;
}

/**
 * Days since 1970-01-01 of a `YYYY-MM-DD` date, or null when it is not one that exists. In
 * arithmetic (the proleptic Gregorian calendar) rather than through Date: a snapshot's bookable
 * days are read by the ten thousand.
 */
export function dayNumberOf(value: string): number | null {
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return null;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 7);
  const day = digits(value, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // Days from the civil date (H. Hinnant's algorithm): years start in March, so leap days come last.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The number written by the decimal digits from `start` to `end`, or -1 when one is not a digit. */
function digits(value: string, start: number, end: number): number {
  let number = 0;
  for (let i = start; i < end; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days since 1970-01-01 of a `YYYY-MM-DD` date.
 * @throws Error when `day` is not a date that exists
 */
export function dayNumber(day: string): number {
  const number = dayNumberOf(day);
  if (number === null) throw new Error(`not a YYYY-MM-DD date: ${JSON.stringify(day)}`);
  return number;
}

/** The `YYYY-MM-DD` date of a day number ({@link dayNumber}). */
export function dayOfNumber(number: number): string {
  return new Date(number * DAY_MS).toISOString().slice(0, 10);
}

/** `day` plus `days` calendar days. */
export function addDays(day: string, days: number): string {
  return dayOfNumber(dayNumber(day) + days);
}
