import { BookingError } from './errors.ts';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../snapshot/locales.ts';

/** The booking interface's locale per locale of ours: language and region joined by `_`, as the partner writes them. */
export const BOOKING_LOCALES = { 'de-CH': 'de_CH', 'en-CH': 'en_CH', 'fr-CH': 'fr_CH', 'it-CH': 'it_CH' } as const satisfies Record<Locale, string>;
export type BookingLocale = (typeof BOOKING_LOCALES)[Locale];

/** The booking locale used when a request names none: de_CH. */
export const DEFAULT_BOOKING_LOCALE: BookingLocale = BOOKING_LOCALES[DEFAULT_LOCALE];

const BY_NAME = new Map<string, Locale>();
for (const locale of LOCALES) {
  BY_NAME.set(BOOKING_LOCALES[locale], locale);
  BY_NAME.set(locale, locale);
}

/**
 * Reads a locale written either way (`de_CH` as the booking interface writes it, or `de-CH` as
 * the query interface does).
 *
 * @param where what carried the value, for the error, e.g. `query parameter locale`
 * @returns our locale
 * @throws BookingError INVALID_REQUEST naming the allowed values when the locale is not one of our four
 */
export function parseBookingLocale(value: string, where: string): Locale {
  const locale = BY_NAME.get(value);
  if (locale === undefined) throw unknownLocale(value, where);
  return locale;
}

/**
 * The refusal of a locale that is not one of our four, naming the allowed values.
 *
 * @param where what carried the value, e.g. `query parameter locale` or the body field
 */
export function unknownLocale(value: string, where: string): BookingError {
  const allowed = Object.values(BOOKING_LOCALES);
  return new BookingError('INVALID_REQUEST', `Unknown locale ${JSON.stringify(value)} in ${where}; allowed: ${allowed.join(', ')} (or written with "-", e.g. de-CH)`, {
    field: where,
    allowed,
  });
}
