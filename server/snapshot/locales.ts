import { LOCALES, type Locale } from '../../sync/format.ts';

/** Locales the query interface serves (those of the snapshot format); the first is the default of every `locale` argument. */
export { LOCALES, type Locale };

export const DEFAULT_LOCALE: Locale = 'de-CH';

export function isLocale(value: string): value is Locale {
  return (LOCALES as readonly string[]).includes(value);
}
