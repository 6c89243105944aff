/**
 * Settings as schemas, the way server/config/settings.ts declares the server's: each variable a
 * source reads is declared once as a TypeBox schema (plain JSON Schema) with its type, range or
 * form, default and description, and read against that declaration. The sync mirrors the
 * server's helper rather than importing it: `sync/` and `server/` never import each other's
 * runtime code.
 *
 * An environment value is text: it is trimmed, a blank one gives the default, and its form is
 * checked before its value is checked against the schema.
 */

import { type TInteger, type TString, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** One environment variable a source reads. */
export interface Setting {
  name: string;
  /** Type, range or form, `default` (none: required) and `description` (one line for `--help`). */
  schema: TString | TInteger;
  /** A key: redacted wherever it might appear. */
  secret?: boolean;
}

/** An HTTP field name: a token (RFC 9110, section 5.1). */
const HEADER_NAME = '^[!#$%&\'*+\\-.^_`|~0-9A-Za-z]+$';

/** An http(s) URL setting. */
export function url(fallback: string, description: string): TString {
  return Type.String({ format: 'http-url', default: fallback, description });
}

/** A required text setting (an account name); a key when `secret`. */
export function text(description: string): TString {
  return Type.String({ minLength: 1, description });
}

/** An HTTP header name setting. */
export function headerName(fallback: string, description: string): TString {
  return Type.String({ pattern: HEADER_NAME, default: fallback, description });
}

/** A duration in whole milliseconds, from `minimum` to `maximum`. */
export function milliseconds(minimum: number, maximum: number, fallback: number, description: string): TInteger {
  return Type.Integer({ minimum, maximum, default: fallback, description });
}

/** The default of a setting as `--help` shows it; null when it is required. */
export function defaultOf(setting: Setting): string | null {
  return setting.schema.default === undefined ? null : String(setting.schema.default);
}

/**
 * Reads one setting from the environment: its value as text (what `configure` gets), or why it
 * cannot be used.
 */
export function readSetting(env: NodeJS.ProcessEnv, setting: Setting): { value: string } | { problem: string } {
  const raw = env[setting.name]?.trim() || defaultOf(setting);
  if (!raw) return { problem: 'is not set' };
  const { schema } = setting;
  if (schema.type === 'integer') {
    if (!/^\d+$/.test(raw)) return { problem: `="${raw}" is not a whole number of milliseconds` };
    if (!Value.Check(schema, Number(raw))) return { problem: `="${raw}" is out of range (${schema.minimum} to ${schema.maximum} ms)` };
    return { value: raw };
  }
  if (schema.format === 'http-url' && !isHttpUrl(raw)) return { problem: `="${raw}" is not an http(s) URL` };
  if (schema.pattern === HEADER_NAME && !new RegExp(HEADER_NAME).test(raw)) return { problem: `="${raw}" is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~)` };
  return { value: raw };
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
