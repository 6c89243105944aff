/**
 * A writer of JSON as UTF-8 bytes: `JSON.stringify(value)`'s bytes, written straight into bytes,
 * and the pieces answerWriter.ts writes an answer of.
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
 * A writer holds its scratch buffer: writing is synchronous, so one answer at a time uses it, and
 * one writer serves every answer of its owner (the engine, server/execution/engine.ts).
 *
 * An answer may be given a largest size: writing stops with {@link AnswerTooLargeError} once
 * past it, so that an answer larger than allowed costs no more than the allowed bytes and one
 * value beyond (a long string is checked once written).
 */

import { utf8Bytes } from './utf8Bytes.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, DOT, MINUS, OPEN_BRACE, OPEN_BRACKET, QUOTE, ZERO } from '../../util/jsonBytes.ts';

/** Size of the scratch buffer answers are written into, before one larger needs it to grow. */
const SCRATCH_BYTES = 64 * 1024;
/** Grown for a large answer, the scratch buffer goes back to SCRATCH_BYTES past this size. */
const MAX_KEPT_SCRATCH_BYTES = 1024 * 1024;
/**
 * Deeper than this, a value is left to JSON.stringify: a result is never so deep (limits.ts caps
 * the depth of a query), and a cycle then gets JSON.stringify's TypeError, not a stack overflow.
 */
const MAX_DEPTH = 100;

/** The escape JSON.stringify writes for each ASCII character it escapes (", \ and controls); else undefined. */
const ESCAPES: (Uint8Array | undefined)[] = Array.from({ length: 0x80 }, (_, code) => {
  const char = String.fromCharCode(code);
  const quoted = JSON.stringify(char);
  return quoted.length > 3 ? Buffer.from(quoted.slice(1, -1), 'latin1') : undefined;
});

const LITERALS = { true: Buffer.from('true'), false: Buffer.from('false'), null: Buffer.from('null') };

/** An answer that grew past the largest size it was given; what was written is thrown away. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${maxBytes} bytes`);
  }
}

/**
 * Writes JSON as UTF-8 bytes into a scratch buffer of its own, grown for a large answer and
 * shrunk back after it.
 */
export class JsonWriter {
  private out = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  private pos = 0;
  /** The largest size of the answer being written. */
  private maxBytes = Infinity;
  /**
   * Where {@link ensure} must look further: the end of the scratch buffer, or the largest size when
   * that comes first, so that writing within both costs one comparison.
   */
  private room = SCRATCH_BYTES;

  /**
   * The bytes `Buffer.from(JSON.stringify(value))` gives, in a Buffer of their own.
   * @param limit the largest size allowed, in bytes
   * @throws TypeError as JSON.stringify throws it (a bigint, a cycle)
   * @throws AnswerTooLargeError for bytes longer than `limit`
   */
  bytesOf(value: object, limit = Infinity): Buffer {
    this.begin(limit);
    const bytes = (this.writeValue(value, 0) ? this.end() : null) ?? utf8Bytes(JSON.stringify(value));
    if (bytes.length > limit) throw new AnswerTooLargeError(limit);
    return bytes;
  }

  /**
   * Starts writing an answer into the scratch buffer, forgetting what was written before.
   * @param limit the largest size of the answer in bytes: a write past it throws
   *   {@link AnswerTooLargeError}, and so does {@link end}
   */
  begin(limit = Infinity): void {
    this.pos = 0;
    this.maxBytes = limit;
    this.room = Math.min(this.out.length, limit);
  }

  /**
   * Ends the answer begun by {@link begin}: its bytes in a Buffer of their own, or null when
   * `written` is false (what was written is thrown away).
   * @throws AnswerTooLargeError when written and longer than its limit
   */
  end(written = true): Buffer | null {
    let bytes: Buffer | null = null;
    const tooLarge = written && this.pos > this.maxBytes;
    if (written && !tooLarge) {
      bytes = Buffer.allocUnsafe(this.pos);
      this.out.copy(bytes, 0, 0, this.pos);
    }
    if (this.out.length > MAX_KEPT_SCRATCH_BYTES) this.out = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
    if (tooLarge) throw new AnswerTooLargeError(this.maxBytes);
    return bytes;
  }

  /** Bytes written since {@link begin}: where the next write starts. */
  written(): number {
    return this.pos;
  }

  /**
   * What was written from `start` (a {@link written}) on, as a view of the answer being
   * written: valid until the answer ends, since the next one is written over it. Keep a copy.
   */
  since(start: number): Uint8Array {
    return this.out.subarray(start, this.pos);
  }

  /** Writes bytes as they are: JSON text written before, a literal, or punctuation and a key. */
  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    // Up to 7 bytes (`null`, `,"id":`) cost less copied one by one than through set(), whose
    // fixed cost only pays from 8 bytes on.
    if (bytes.length < 8) {
      for (let i = 0; i < bytes.length; i++) this.out[this.pos++] = bytes[i]!;
      return;
    }
    this.out.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Writes `[`. */
  openList(): void {
    this.byte(OPEN_BRACKET);
  }

  /** Writes `]`. */
  closeList(): void {
    this.byte(CLOSE_BRACKET);
  }

  /** Writes `{`. */
  openObject(): void {
    this.byte(OPEN_BRACE);
  }

  /** Writes `}`. */
  closeObject(): void {
    this.byte(CLOSE_BRACE);
  }

  /** Writes `,`. */
  comma(): void {
    this.byte(COMMA);
  }

  private byte(byte: number): void {
    this.ensure(1);
    this.out[this.pos++] = byte;
  }

  /** Writes `value` as JSON.stringify would; false, having written part of it, for a value it has to write (see the module comment). */
  json(value: unknown): boolean {
    return this.writeValue(value, 0);
  }

  /**
   * Makes room for `bytes` more bytes past `pos`.
   * @throws AnswerTooLargeError when what was written already passes the answer's limit (`bytes`
   *   is an upper bound of what comes, not a size, so it cannot decide alone)
   */
  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.room) return;
    if (this.pos > this.maxBytes) {
      const limit = this.maxBytes;
      this.end(false);
      throw new AnswerTooLargeError(limit);
    }
    if (this.pos + bytes > this.out.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.out.length * 2, this.pos + bytes));
      this.out.copy(grown, 0, 0, this.pos);
      this.out = grown;
    }
    this.room = Math.min(this.out.length, this.maxBytes);
  }

  /** Writes one value; false, having written part of it, for one JSON.stringify has to write. */
  private writeValue(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case 'string':
        this.writeString(value);
        return true;
      case 'number':
        // As JSON.stringify: the shortest text that reads back as the number; null if not finite.
        if (!this.writeThousandths(value)) this.writeAscii(Number.isFinite(value) ? String(value) : 'null');
        return true;
      case 'boolean':
        this.bytes(value ? LITERALS.true : LITERALS.false);
        return true;
      case 'object':
        if (value === null) {
          this.bytes(LITERALS.null);
          return true;
        }
        if (depth === MAX_DEPTH) return false;
        if (Array.isArray(value)) return this.writeArray(value, depth + 1);
        return this.writeObject(value, depth + 1);
      default:
        // undefined, a function or a symbol alone is no JSON text; JSON.stringify throws on a bigint.
        return false;
    }
  }

  private writeArray(array: unknown[], depth: number): boolean {
    this.ensure(1);
    this.out[this.pos++] = OPEN_BRACKET;
    for (let i = 0; i < array.length; i++) {
      if (i > 0) {
        this.ensure(1);
        this.out[this.pos++] = COMMA;
      }
      const item = array[i];
      // JSON.stringify writes a hole or undefined as null, and leaves out no item.
      if (item === undefined) this.bytes(LITERALS.null);
      else if (!this.writeValue(item, depth)) return false;
    }
    this.ensure(1);
    this.out[this.pos++] = CLOSE_BRACKET;
    return true;
  }

  private writeObject(object: object, depth: number): boolean {
    const prototype = Object.getPrototypeOf(object);
    // A class instance may have toJSON or inherited keys: JSON.stringify knows what to do with it.
    if (prototype !== Object.prototype && prototype !== null) return false;
    this.ensure(1);
    this.out[this.pos++] = OPEN_BRACE;
    let first = true;
    // for…in lists own enumerable string keys in JSON.stringify's order; of Object.prototype, nothing.
    for (const key in object) {
      const value = (object as Record<string, unknown>)[key];
      // JSON.stringify leaves out a key whose value is undefined; a function or symbol value too,
      // which is no part of a result and left to it.
      if (value === undefined) continue;
      if (!first) {
        this.ensure(1);
        this.out[this.pos++] = COMMA;
      }
      first = false;
      this.writeString(key);
      this.ensure(1);
      this.out[this.pos++] = COLON;
      if (!this.writeValue(value, depth)) return false;
    }
    this.ensure(1);
    this.out[this.pos++] = CLOSE_BRACE;
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
  private writeThousandths(value: number): boolean {
    const thousandths = Math.round(value * 1000);
    if (!(thousandths / 1000 === value && Math.abs(thousandths) < 2 ** 31)) return false;
    this.ensure(16);
    // -0 too is written as 0.
    if (thousandths < 0) this.out[this.pos++] = MINUS;
    const magnitude = Math.abs(thousandths);
    // Below 2^31, `| 0` truncates a quotient as Math.floor would.
    const whole = (magnitude / 1000) | 0;
    const fraction = magnitude - whole * 1000;
    let digits = 1;
    for (let power = 10; power <= whole; power *= 10) digits++;
    this.pos += digits;
    // The whole part's digits, last first.
    for (let at = this.pos, rest = whole; at > this.pos - digits; rest = (rest / 10) | 0) this.out[--at] = ZERO + (rest % 10);
    if (fraction === 0) return true;
    this.out[this.pos++] = DOT;
    this.out[this.pos++] = ZERO + ((fraction / 100) | 0);
    if (fraction % 100 === 0) return true;
    this.out[this.pos++] = ZERO + (((fraction / 10) | 0) % 10);
    if (fraction % 10 !== 0) this.out[this.pos++] = ZERO + (fraction % 10);
    return true;
  }

  private writeAscii(text: string): void {
    this.ensure(text.length);
    for (let i = 0; i < text.length; i++) this.out[this.pos++] = text.charCodeAt(i);
  }

  /** Writes a string as JSON.stringify quotes it, in UTF-8. */
  private writeString(text: string): void {
    // A UTF-16 code unit takes at most 6 bytes (an escape such as \u001f or a lone \ud800).
    this.ensure(text.length * 6 + 2);
    // Locals rather than the writer's fields, which the loop would load again for every byte.
    const bytes = this.out;
    let at = this.pos;
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
    this.pos = at;
  }
}
