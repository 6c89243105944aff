/** Locales the query interface serves; the first is the default of every `locale` argument. */
export const LOCALES = ['de-CH', 'en-CH', 'fr-CH', 'it-CH'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'de-CH';

export function isLocale(value: string): value is Locale {
  return (LOCALES as readonly string[]).includes(value);
}
