/**
 * `Buffer.from(JSON.stringify(value))` in one pass: the UTF-8 bytes of the JSON text of a
 * GraphQL result, the same bytes, without the string in between.
 *
 * Why by hand: on Node 20 (V8 11) the default activities list (4.8 KB) takes ~13 µs to
 * stringify and, since one "–" in a title makes the whole text two-byte, ~6 µs more to encode;
 * written straight into bytes it takes ~16 µs in all. Over the answers to the 15 sample queries
 * (27 KB) it is 149 µs against 119 µs; an answer of mostly keys and numbers (a full station)
 * gains nothing (`npm run bench`, In-process). V8's JSON.stringify is much faster from V8 13 on
 * (Node 24): measure again there, and drop this module if it no longer pays.
 *
 * It writes what GraphQL execution produces: plain objects and arrays of strings, numbers,
 * booleans and null. Anything else (a `toJSON` method, a class instance, a boxed primitive, a
 * BigInt) makes it give up and return `Buffer.from(JSON.stringify(value))`, so the bytes (or the
 * error) are JSON.stringify's in every case. The tests compare the two on every sample query
 * and on generated values that cover every escape, surrogate and number form.
 */

/** Size of the scratch buffer answers are written into, and the size it returns to after a larger answer. */
const SCRATCH_BYTES = 64 * 1024;

let scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
let at = 0;

/** Thrown inside to give up on a value that only JSON.stringify writes exactly. */
const GIVE_UP = Symbol('give up');

const HEX = '0123456789abcdef';
/** The two-character escapes of JSON.stringify (QuoteJSONString), by code unit; 0 for `\u00XX`. */
const SHORT_ESCAPES = new Uint8Array(0x60);
for (const [unit, letter] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r'], [0x22, '"'], [0x5c, '\\']] as const) {
  SHORT_ESCAPES[unit] = letter.charCodeAt(0);
}

/**
 * The UTF-8 bytes of `JSON.stringify(value)`; throws what JSON.stringify throws (a BigInt, a
 * cycle), and a TypeError for a value that has no JSON text (undefined, a function, a symbol).
 */
export function jsonBytes(value: unknown): Buffer {
  at = 0;
  let written: boolean;
  try {
    written = writeValue(value);
  } catch {
    // GIVE_UP, or a cycle or nesting too deep for the stack: JSON.stringify answers, or throws its own error.
    return Buffer.from(JSON.stringify(value));
  }
  if (!written) throw new TypeError(`${typeof value} has no JSON text`);
  const bytes = Buffer.allocUnsafe(at);
  scratch.copy(bytes, 0, 0, at);
  // A rare large answer should not keep its scratch space for the life of the process.
  if (scratch.length > SCRATCH_BYTES) scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return bytes;
}

/** Makes room for `bytes` more. */
function reserve(bytes: number): void {
  if (at + bytes <= scratch.length) return;
  let size = scratch.length * 2;
  while (size < at + bytes) size *= 2;
  const larger = Buffer.allocUnsafeSlow(size);
  scratch.copy(larger, 0, 0, at);
  scratch = larger;
}

/** Writes a value; false for one JSON.stringify leaves out (undefined, a function, a symbol). */
function writeValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      writeString(value);
      return true;
    case 'number':
      writeNumber(value);
      return true;
    case 'boolean':
      writeAscii(value ? 'true' : 'false');
      return true;
    case 'object':
      if (value === null) writeAscii('null');
      else if (Array.isArray(value)) writeArray(value);
      else writeObject(value as Record<string, unknown>);
      return true;
    case 'bigint':
      throw GIVE_UP;
    default:
      return false;
  }
}

function writeArray(array: readonly unknown[]): void {
  if (Object.getPrototypeOf(array) !== Array.prototype || typeof (array as { toJSON?: unknown }).toJSON === 'function') throw GIVE_UP;
  reserve(1);
  scratch[at++] = 0x5b; // [
  for (let i = 0; i < array.length; i++) {
    if (i > 0) {
      reserve(1);
      scratch[at++] = 0x2c; // ,
    }
    if (!writeValue(array[i])) writeAscii('null');
  }
  reserve(1);
  scratch[at++] = 0x5d; // ]
}

function writeObject(object: Record<string, unknown>): void {
  const prototype = Object.getPrototypeOf(object);
  if ((prototype !== Object.prototype && prototype !== null) || typeof object.toJSON === 'function') throw GIVE_UP;
  reserve(1);
  scratch[at++] = 0x7b; // {
  let first = true;
  // Object.keys is JSON.stringify's order and set: own enumerable string keys.
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = object[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (!first) {
      reserve(1);
      scratch[at++] = 0x2c; // ,
    }
    first = false;
    writeString(key);
    reserve(1);
    scratch[at++] = 0x3a; // :
    writeValue(value);
  }
  reserve(1);
  scratch[at++] = 0x7d; // }
}

/** A number as JSON.stringify writes it: integers digit by digit, others as String() does, non-finite as null. */
function writeNumber(value: number): void {
  if ((value | 0) !== value) {
    writeAscii(Number.isFinite(value) ? String(value) : 'null');
    return;
  }
  reserve(11);
  let rest = value;
  if (rest < 0) {
    scratch[at++] = 0x2d; // -
    rest = -rest;
  }
  let digits = 1;
  for (let left = rest; left >= 10; left = (left / 10) | 0) digits++;
  at += digits;
  let p = at;
  do {
    const quotient = (rest / 10) | 0;
    scratch[--p] = 0x30 + rest - quotient * 10;
    rest = quotient;
  } while (rest > 0);
}

/** Characters below U+0080 that need no escape. */
function writeAscii(text: string): void {
  reserve(text.length);
  for (let i = 0; i < text.length; i++) scratch[at++] = text.charCodeAt(i);
}

/** A string in quotes, escaped as JSON.stringify escapes (well-formed: lone surrogates as `\uXXXX`), in UTF-8. */
function writeString(text: string): void {
  const length = text.length;
  // At most 6 bytes per code unit (`\u001f`, a lone surrogate), and the quotes.
  reserve(6 * length + 2);
  const bytes = scratch;
  let p = at;
  bytes[p++] = 0x22;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (unit >= 0x20 && unit !== 0x22 && unit !== 0x5c) {
        bytes[p++] = unit;
        continue;
      }
      bytes[p++] = 0x5c; // \
      const letter = SHORT_ESCAPES[unit]!;
      if (letter !== 0) {
        bytes[p++] = letter;
      } else {
        bytes[p++] = 0x75; // u
        bytes[p++] = 0x30;
        bytes[p++] = 0x30;
        bytes[p++] = HEX.charCodeAt(unit >> 4);
        bytes[p++] = HEX.charCodeAt(unit & 15);
      }
    } else if (unit < 0x800) {
      bytes[p++] = 0xc0 | (unit >> 6);
      bytes[p++] = 0x80 | (unit & 63);
    } else if (unit < 0xd800 || unit > 0xdfff) {
      bytes[p++] = 0xe0 | (unit >> 12);
      bytes[p++] = 0x80 | ((unit >> 6) & 63);
      bytes[p++] = 0x80 | (unit & 63);
    } else {
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (unit < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
        const codePoint = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        bytes[p++] = 0xf0 | (codePoint >> 18);
        bytes[p++] = 0x80 | ((codePoint >> 12) & 63);
        bytes[p++] = 0x80 | ((codePoint >> 6) & 63);
        bytes[p++] = 0x80 | (codePoint & 63);
        i++;
      } else {
        bytes[p++] = 0x5c;
        bytes[p++] = 0x75;
        bytes[p++] = HEX.charCodeAt(unit >> 12);
        bytes[p++] = HEX.charCodeAt((unit >> 8) & 15);
        bytes[p++] = HEX.charCodeAt((unit >> 4) & 15);
        bytes[p++] = HEX.charCodeAt(unit & 15);
      }
    }
  }
  bytes[p++] = 0x22;
  at = p;
}
