/** STnet texts (`textArray`, every language in one answer) to the one text of a locale. */

import type { Locale } from '../../format.ts';
import { list, text } from '../read.ts';
import type { StnetTexts } from './shapes.ts';

/** The language of the texts published in each locale; a text missing in it falls back to {@link FALLBACK_LANGUAGE}. */
export const TEXT_LANGUAGE = { 'de-CH': 'de', 'en-CH': 'en', 'fr-CH': 'fr', 'it-CH': 'it' } as const satisfies Record<Locale, string>;
/** Every text the service's clients read has a German version. */
export const FALLBACK_LANGUAGE = 'de';

/** The text in `lang`, else the German one, else null. */
export function translate(texts: StnetTexts | null | undefined, lang: string): string | null {
  const all = list(texts?.textArray);
  const pick = (l: string) => text(all.find((t) => t.lang === l)?.content);
  return pick(lang) ?? pick(FALLBACK_LANGUAGE);
}
