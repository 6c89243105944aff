/**
 * Settings as schemas: each environment variable is declared once (TypeBox, so plain JSON
 * Schema) with its type, range, default and description, and read against that declaration.
 * The declarations are data that the documentation is tested against
 * (test/server/config/settingsDocs.test.ts).
 *
 * An environment value is a string: it is trimmed, a blank one gives the default, and its
 * text is checked for its form here before the value is checked against the schema. The form
 * is stricter than TypeBox's own conversion, which would read `1e3` as 1000 and `-0` as 0.
 */

import { type TBoolean, type TInteger, type TLiteral, type TString, type TUnion, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './configError.ts';

/** An integer setting from `minimum` to `maximum`. */
export function integer(minimum: number, maximum: number, fallback: number | undefined, description: string): TInteger {
  return Type.Integer({ minimum, maximum, ...(fallback === undefined ? {} : { default: fallback }), description });
}

/** A boolean setting, written true or false (or 1 or 0). */
export function boolean(fallback: boolean, description: string): TBoolean {
  return Type.Boolean({ default: fallback, description });
}

/** A setting listing file paths, comma-separated; unset, none. */
export function paths(description: string): TString {
  return Type.String({ minLength: 1, description });
}

/** A setting taking one of `values`. */
export function oneOf<T extends string>(values: readonly T[], fallback: T | undefined, description: string): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { ...(fallback === undefined ? {} : { default: fallback }), description },
  );
}

/**
 * Reads an integer setting; blank or unset gives `fallback`.
 *
 * @param fallback default the schema's `default` (given here when it is known only at start, as the CPU count)
 * @throws ConfigError naming the variable, its value and the allowed range
 */
export function readInteger(env: NodeJS.ProcessEnv, name: string, schema: TInteger, fallback: number = schema.default as number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Value.Check(schema, value)) throw new ConfigError(`${name}="${raw}": expected an integer from ${schema.minimum} to ${schema.maximum}`);
  return value;
}

/**
 * Reads a boolean setting (true, false, 1 or 0, in any case); blank or unset gives the schema's default.
 *
 * @throws ConfigError naming the variable and its value
 */
export function readBoolean(env: NodeJS.ProcessEnv, name: string, schema: TBoolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return schema.default as boolean;
  const value = raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : undefined;
  if (value === undefined) throw new ConfigError(`${name}="${env[name]}": expected true or false (or 1 or 0)`);
  return value;
}

/**
 * Reads a {@link paths} setting: the paths it lists, each trimmed; blank or unset gives none.
 *
 * @throws ConfigError naming the variable when the list has an empty entry (`a.json,,b.json`)
 */
export function readPaths(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  const list = raw.split(',').map((item) => item.trim());
  if (list.some((item) => item === '')) throw new ConfigError(`${name}="${env[name]}": expected file paths separated by commas, without an empty one`);
  return list;
}

/**
 * Reads a setting taking one of a list of values, in lower case; blank or unset gives the schema's default.
 *
 * @throws ConfigError naming the variable, its value and the allowed values
 */
export function readOneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, schema: TUnion<TLiteral<T>[]>): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return schema.default as T;
  if (!Value.Check(schema, raw)) throw new ConfigError(`${name}="${env[name]}": expected one of ${valuesOf(schema).join(', ')}`);
  return raw as T;
}

/** The values a {@link oneOf} setting takes, in their order. */
export function valuesOf<T extends string>(schema: TUnion<TLiteral<T>[]>): T[] {
  return schema.anyOf.map((literal) => literal.const);
}
