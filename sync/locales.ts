/** The locales of the snapshot format, in the order the API lists them. */
export const LOCALES = ['de-CH', 'en-CH', 'fr-CH', 'it-CH'] as const;
export type Locale = (typeof LOCALES)[number];
