/**
 * The UTF-8 bytes of `JSON.stringify(value)`, written straight into bytes.
 *
 * JSON.stringify and encoding its text to UTF-8 are a large share of an uncached answer. Writing
 * the bytes of a result in one walk skips the text in between: a string of the answer's length,
 * held in two bytes per character as soon as one title has a character above U+00FF, allocated
 * and collected for every answer. The gain is in garbage collection, so it shows under load
 * rather than in one call.
 *
 * Only what an execution result is made of is written here: objects whose prototype is
 * Object.prototype or null, arrays, strings, numbers, booleans and null. Anything else (a Date,
 * an object with toJSON, a bigint, a function) hands the whole value to JSON.stringify, so the
 * bytes are always those of `Buffer.from(JSON.stringify(value))`.
 *
 * The same scratch buffer serves server/execution/json/answerWriter.ts, which writes answers piece by piece
 * ({@link beginBytes} … {@link endBytes}): writing is synchronous, so one answer at a time uses it.
 *
 * An answer may be given a largest size: writing stops with {@link AnswerTooLargeError} once
 * past it, so that an answer larger than allowed costs no more than the allowed bytes and one
 * value beyond (a long string is checked once written).
 */

import { utf8Bytes } from './utf8Bytes.ts';

/** Size of the scratch buffer answers are written into, before one larger needs it to grow. */
const SCRATCH_BYTES = 64 * 1024;
/** Grown for a large answer, the scratch buffer goes back to SCRATCH_BYTES past this size. */
const MAX_KEPT_SCRATCH_BYTES = 1024 * 1024;
/**
 * Deeper than this, a value is left to JSON.stringify: a result is never so deep (limits.ts caps
 * the depth of a query), and a cycle then gets JSON.stringify's TypeError, not a stack overflow.
 */
const MAX_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** The escape JSON.stringify writes for each ASCII character it escapes (", \ and controls); else undefined. */
const ESCAPES: (Uint8Array | undefined)[] = Array.from({ length: 0x80 }, (_, code) => {
  const char = String.fromCharCode(code);
  const quoted = JSON.stringify(char);
  return quoted.length > 3 ? Buffer.from(quoted.slice(1, -1), 'latin1') : undefined;
});

const LITERALS = { true: Buffer.from('true'), false: Buffer.from('false'), null: Buffer.from('null') };

// Writing is synchronous, so one scratch buffer serves every call.
let out = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
let pos = 0;
/** The largest size of the answer being written. */
let maxBytes = Infinity;
/**
 * Where {@link ensure} must look further: the end of the scratch buffer, or the largest size when
 * that comes first, so that writing within both costs one comparison.
 */
let room = out.length;

/** An answer that grew past the largest size it was given; what was written is thrown away. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${maxBytes} bytes`);
  }
}

/**
 * The bytes `Buffer.from(JSON.stringify(value))` gives, in a Buffer of their own.
 * @param limit the largest size allowed, in bytes
 * @throws TypeError as JSON.stringify throws it (a bigint, a cycle)
 * @throws AnswerTooLargeError for bytes longer than `limit`
 */
export function jsonBytes(value: object, limit = Infinity): Buffer {
  beginBytes(limit);
  const bytes = (writeValue(value, 0) ? endBytes() : null) ?? utf8Bytes(JSON.stringify(value));
  if (bytes.length > limit) throw new AnswerTooLargeError(limit);
  return bytes;
}

/**
 * Starts writing an answer into the scratch buffer, forgetting what was written before.
 * @param limit the largest size of the answer in bytes: a write past it throws
 *   {@link AnswerTooLargeError}, and so does {@link endBytes}
 */
export function beginBytes(limit = Infinity): void {
  pos = 0;
  maxBytes = limit;
  room = Math.min(out.length, limit);
}

/**
 * Ends the answer begun by {@link beginBytes}: its bytes in a Buffer of their own, or null when
 * `written` is false (what was written is thrown away).
 * @throws AnswerTooLargeError when written and longer than its limit
 */
export function endBytes(written = true): Buffer | null {
  let bytes: Buffer | null = null;
  const tooLarge = written && pos > maxBytes;
  if (written && !tooLarge) {
    bytes = Buffer.allocUnsafe(pos);
    out.copy(bytes, 0, 0, pos);
  }
  if (out.length > MAX_KEPT_SCRATCH_BYTES) out = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  if (tooLarge) throw new AnswerTooLargeError(maxBytes);
  return bytes;
}

/** Bytes written since {@link beginBytes}: where the next write starts. */
export function bytesWritten(): number {
  return pos;
}

/**
 * What was written from `start` (a {@link bytesWritten}) on, as a view of the answer being
 * written: valid until the answer ends, since the next one is written over it. Keep a copy.
 */
export function writtenSince(start: number): Uint8Array {
  return out.subarray(start, pos);
}

/** Writes bytes as they are: JSON text written before, a literal, or punctuation and a key. */
export function writeBytes(bytes: Uint8Array): void {
  ensure(bytes.length);
  // Up to 7 bytes (`null`, `,"id":`) cost less copied one by one than through set(), whose
  // fixed cost only pays from 8 bytes on.
  if (bytes.length < 8) {
    for (let i = 0; i < bytes.length; i++) out[pos++] = bytes[i]!;
    return;
  }
  out.set(bytes, pos);
  pos += bytes.length;
}

/** Writes one byte: an ASCII character of JSON's punctuation. */
export function writeByte(byte: number): void {
  ensure(1);
  out[pos++] = byte;
}

/** Writes `value` as JSON.stringify would; false, having written part of it, for a value it has to write (see the module comment). */
export function writeJson(value: unknown): boolean {
  return writeValue(value, 0);
}

/**
 * Makes room for `bytes` more bytes past `pos`.
 * @throws AnswerTooLargeError when what was written already passes the answer's limit (`bytes`
 *   is an upper bound of what comes, not a size, so it cannot decide alone)
 */
function ensure(bytes: number): void {
  if (pos + bytes <= room) return;
  if (pos > maxBytes) {
    const limit = maxBytes;
    endBytes(false);
    throw new AnswerTooLargeError(limit);
  }
  if (pos + bytes > out.length) {
    const grown = Buffer.allocUnsafeSlow(Math.max(out.length * 2, pos + bytes));
    out.copy(grown, 0, 0, pos);
    out = grown;
  }
  room = Math.min(out.length, maxBytes);
}

/** Writes one value; false, having written part of it, for one JSON.stringify has to write. */
function writeValue(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      writeString(value);
      return true;
    case 'number':
      // As JSON.stringify: the shortest text that reads back as the number; null if not finite.
      if (!writeThousandths(value)) writeAscii(Number.isFinite(value) ? String(value) : 'null');
      return true;
    case 'boolean':
      writeBytes(value ? LITERALS.true : LITERALS.false);
      return true;
    case 'object':
      if (value === null) {
        writeBytes(LITERALS.null);
        return true;
      }
      if (depth === MAX_DEPTH) return false;
      if (Array.isArray(value)) return writeArray(value, depth + 1);
      return writeObject(value, depth + 1);
    default:
      // undefined, a function or a symbol alone is no JSON text; JSON.stringify throws on a bigint.
      return false;
  }
}

function writeArray(array: unknown[], depth: number): boolean {
  ensure(1);
  out[pos++] = OPEN_BRACKET;
  for (let i = 0; i < array.length; i++) {
    if (i > 0) {
      ensure(1);
      out[pos++] = COMMA;
    }
    const item = array[i];
    // JSON.stringify writes a hole or undefined as null, and leaves out no item.
    if (item === undefined) writeBytes(LITERALS.null);
    else if (!writeValue(item, depth)) return false;
  }
  ensure(1);
  out[pos++] = CLOSE_BRACKET;
  return true;
}

function writeObject(object: object, depth: number): boolean {
  const prototype = Object.getPrototypeOf(object);
  // A class instance may have toJSON or inherited keys: JSON.stringify knows what to do with it.
  if (prototype !== Object.prototype && prototype !== null) return false;
  ensure(1);
  out[pos++] = OPEN_BRACE;
  let first = true;
  // for…in lists own enumerable string keys in JSON.stringify's order; of Object.prototype, nothing.
  for (const key in object) {
    const value = (object as Record<string, unknown>)[key];
    // JSON.stringify leaves out a key whose value is undefined; a function or symbol value too,
    // which is no part of a result and left to it.
    if (value === undefined) continue;
    if (!first) {
      ensure(1);
      out[pos++] = COMMA;
    }
    first = false;
    writeString(key);
    ensure(1);
    out[pos++] = COLON;
    if (!writeValue(value, depth)) return false;
  }
  ensure(1);
  out[pos++] = CLOSE_BRACE;
  return true;
}

/**
 * Writes a number that is a whole number of thousandths below 2^31 in them, as String() would;
 * false, having written nothing, for any other. String() of a fraction is slow, and a near-me page
 * holds a distance of three decimals per item.
 * For such a number, k/1000 is the shortest decimal that reads back as it: it does, being the
 * decimal the number is nearest to, and any other decimal of three places or fewer lies 0.001
 * away, far outside the number's rounding interval (2^-31 wide at most below 2^31 / 1000),
 * while any with more places has more digits.
 */
function writeThousandths(value: number): boolean {
  const thousandths = Math.round(value * 1000);
  if (!(thousandths / 1000 === value && Math.abs(thousandths) < 2 ** 31)) return false;
  ensure(16);
  // -0 too is written as 0.
  if (thousandths < 0) out[pos++] = MINUS;
  const magnitude = Math.abs(thousandths);
  // Below 2^31, `| 0` truncates a quotient as Math.floor would.
  const whole = (magnitude / 1000) | 0;
  const fraction = magnitude - whole * 1000;
  let digits = 1;
  for (let power = 10; power <= whole; power *= 10) digits++;
  pos += digits;
  // The whole part's digits, last first.
  for (let at = pos, rest = whole; at > pos - digits; rest = (rest / 10) | 0) out[--at] = ZERO + (rest % 10);
  if (fraction === 0) return true;
  out[pos++] = DOT;
  out[pos++] = ZERO + ((fraction / 100) | 0);
  if (fraction % 100 === 0) return true;
  out[pos++] = ZERO + (((fraction / 10) | 0) % 10);
  if (fraction % 10 !== 0) out[pos++] = ZERO + (fraction % 10);
  return true;
}

function writeAscii(text: string): void {
  ensure(text.length);
  for (let i = 0; i < text.length; i++) out[pos++] = text.charCodeAt(i);
}

/** Writes a string as JSON.stringify quotes it, in UTF-8. */
function writeString(text: string): void {
  // A UTF-16 code unit takes at most 6 bytes (an escape such as \u001f or a lone \ud800).
  ensure(text.length * 6 + 2);
  // Locals rather than the module's bindings, which the loop would load again for every byte.
  const bytes = out;
  let at = pos;
  bytes[at++] = QUOTE;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code >= 0x20 && code !== QUOTE && code !== BACKSLASH) bytes[at++] = code;
      else {
        const escape = ESCAPES[code]!;
        for (let j = 0; j < escape.length; j++) bytes[at++] = escape[j]!;
      }
    } else if (code < 0x800) {
      bytes[at++] = 0xc0 | (code >> 6);
      bytes[at++] = 0x80 | (code & 0x3f);
    } else if (code < 0xd800 || code > 0xdfff) {
      bytes[at++] = 0xe0 | (code >> 12);
      bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
      bytes[at++] = 0x80 | (code & 0x3f);
    } else {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        bytes[at++] = 0xf0 | (point >> 18);
        bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
        bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
        bytes[at++] = 0x80 | (point & 0x3f);
        i++;
      } else {
        // A lone surrogate: escaped, as JSON.stringify does since ES2019 (well-formed JSON.stringify).
        const escape = `\\u${code.toString(16)}`;
        for (let j = 0; j < escape.length; j++) bytes[at++] = escape.charCodeAt(j);
      }
    }
  }
  bytes[at++] = QUOTE;
  pos = at;
}
