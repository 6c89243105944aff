/** The bytes of JSON's structural characters, for code that writes or scans JSON as UTF-8 bytes. */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
