/**
 * The UTF-8 bytes of an answer's text, as `Buffer.from(text)` gives them, sooner.
 *
 * Buffer.from counts a string's UTF-8 bytes (Buffer.byteLength) before it writes them. For a
 * string V8 holds in two bytes per character, counting costs as much as writing: any character
 * above U+00FF makes a whole text so (one "–" in a title is enough), and JSON.stringify's output
 * inherits it from any of its strings. Written into a scratch buffer large enough for any text of
 * its length, then copied out, a text is counted by the writing: two-byte answers gain, large
 * one-byte ones lose a little, and the sample answers as a whole gain.
 */

/** Longest text (in UTF-16 code units) written through the scratch buffer; longer ones take Buffer.from. */
const MAX_SCRATCH_CHARS = 64 * 1024;

// A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair, two units, takes 4).
const scratch = Buffer.allocUnsafeSlow(MAX_SCRATCH_CHARS * 3);
const encoder = new TextEncoder();

/**
 * The UTF-8 encoding of `text` in a Buffer of its own; a lone surrogate becomes U+FFFD, as with
 * Buffer.from (JSON.stringify never leaves one: it escapes them).
 */
export function utf8Bytes(text: string): Buffer {
  if (text.length > MAX_SCRATCH_CHARS) return Buffer.from(text);
  const { written } = encoder.encodeInto(text, scratch);
  const bytes = Buffer.allocUnsafe(written);
  scratch.copy(bytes, 0, 0, written);
  return bytes;
}
