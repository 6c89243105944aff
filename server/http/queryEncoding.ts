/**
 * Broken percent-encoding in a query string. URLSearchParams (the WHATWG URL standard's
 * application/x-www-form-urlencoded parser, https://url.spec.whatwg.org/#urlencoded-parsing)
 * decodes bytes that are no UTF-8, such as `%E2%82`, to U+FFFD: a search for that text then
 * reads as one for a blank, and finds everything. Such a parameter is refused instead.
 */

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The first parameter of a query string whose name or value, once percent-decoded, is not UTF-8.
 *
 * @param query the request target past its first `?` (or the part of it a reader reads)
 * @returns that parameter's name, as URLSearchParams reads it, or undefined when every one is well formed
 */
export function misencodedParameter(query: string): string | undefined {
  // Without a `%`, the text is the request target's own, which node:http took as UTF-8 already.
  if (!query.includes('%')) return undefined;
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const plain = pair.replaceAll('+', ' ');
    try {
      decodeURIComponent(plain);
      continue;
    } catch {
      // decodeURIComponent also refuses a `%` that starts no escape, which the standard keeps as it is.
    }
    const equals = plain.indexOf('=');
    const name = equals === -1 ? plain : plain.slice(0, equals);
    const value = equals === -1 ? '' : plain.slice(equals + 1);
    if (!isUtf8(percentDecode(name)) || !isUtf8(percentDecode(value))) return new URLSearchParams(pair).keys().next().value ?? '';
  }
  return undefined;
}

/** The message of a refusal of {@link misencodedParameter}'s parameter. */
export function misencodedMessage(name: string): string {
  return `Parameter ${JSON.stringify(name)} is not UTF-8 once percent-decoded; encode its text as UTF-8, each byte of it as %XX`;
}

/** Percent-decoding as the standard does it (https://url.spec.whatwg.org/#percent-decode): a `%` that starts no escape stays as it is. */
function percentDecode(text: string): Buffer {
  const input = Buffer.from(text, 'utf8');
  const output = Buffer.alloc(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    if (byte === 0x25 && i + 2 < input.length && isHex(input[i + 1]!) && isHex(input[i + 2]!)) {
      output[length++] = parseInt(String.fromCharCode(input[i + 1]!, input[i + 2]!), 16);
      i += 2;
    } else {
      output[length++] = byte;
    }
  }
  return output.subarray(0, length);
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    STRICT_UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
