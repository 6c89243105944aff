/**
 * Repairs text whose UTF-8 bytes were read as Latin-1 or Windows-1252 on the way ("Vierwald-
 * stÃ¤ttersee" for "Vierwaldstättersee"), and says when the marks of that stay after repair.
 *
 * A mark is a lead character of a UTF-8 sequence of Latin text (`Â`, `Ã` and `Å` for accented
 * letters and Latin-1 signs, `â` for punctuation such as `–`, `’` and `€`) followed by the
 * continuation characters the sequence needs. A mark is replaced only when its characters, as
 * bytes, are one whole valid UTF-8 sequence: that is what makes the repair unambiguous, since
 * correct text in the four locales never holds such a pair. Text read wrongly twice is repaired
 * in as many rounds.
 */

/** Windows-1252's characters at 0x80–0x9F, which Latin-1 leaves as C1 controls, to their byte. */
const CP1252_BYTES = new Map<string, number>(
  [...'€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ'].map((char, i) => [char, 0x80 + i]),
);
const CONTINUATION = '[\\u0080-\\u00BF€‚ƒ„…†‡ˆ‰Š‹Œ‘’“”•–—˜™š›œžŸŽ]';
/** A lead with one continuation (Â Ã Å: U+0080–U+00FF and U+0140–U+017F), or â with two (U+2000–U+2FFF). */
const MARK = new RegExp(`[\\u00C2\\u00C3\\u00C5]${CONTINUATION}|\\u00E2${CONTINUATION}{2}`, 'g');
/**
 * A mark or, where the text's whitespace was trimmed or collapsed before it arrived, the lead of
 * a no-break space's sequence left on its own: `Ã` of `à` (C3 A0) and `Â` of the no-break space
 * itself (C2 A0). Neither stands alone before white space in correct text of the four locales.
 */
const REPAIRABLE = new RegExp(`${MARK.source}|[\\u00C2\\u00C3](?=\\s|$)`, 'g');
/** The character a lone lead before white space stood for (its no-break space is the white space now). */
const LONE_LEAD: Readonly<Record<string, string>> = { '\u00C3': 'à', '\u00C2': '' };
/** What remains of a mark whose continuation was lost on the way (replaced by `?` or U+FFFD), besides marks themselves. */
const DAMAGE = new RegExp(`${MARK.source}|[\\u00C2\\u00C3][?\\uFFFD]|\\u00E2€`);
/** Rounds of repair at most: text read wrongly more often than this is left as damaged. */
const MAX_ROUNDS = 3;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What {@link repairEncoding} found. */
export interface EncodingRepair {
  text: string;
  /** Some marks were replaced. */
  repaired: boolean;
  /** Marks remain after repair: a sequence that is not valid UTF-8, one whose bytes were lost, or too many rounds. */
  damaged: boolean;
}

/** Repairs the marks of double encoding in `text` where each decodes to one valid UTF-8 sequence. */
export function repairEncoding(text: string): EncodingRepair {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    REPAIRABLE.lastIndex = 0;
    if (!REPAIRABLE.test(current)) break;
    const next = current.replace(REPAIRABLE, (mark) => LONE_LEAD[mark] ?? decodeMark(mark) ?? mark);
    if (next === current) break;
    current = next;
  }
  return { text: current, repaired: current !== text, damaged: DAMAGE.test(current) };
}

/** The character a mark stands for, or null when its bytes are not one valid UTF-8 sequence. */
function decodeMark(mark: string): string | null {
  const bytes = [...mark].map((char) => CP1252_BYTES.get(char) ?? char.charCodeAt(0));
  if (bytes.some((byte) => byte > 0xff)) return null;
  try {
    const decoded = UTF8.decode(new Uint8Array(bytes));
    return [...decoded].length === 1 ? decoded : null;
  } catch {
    return null;
  }
}
