/**
 * Argument checks shared by the resolvers. Each failure is a GraphQLError with
 * extensions.code BAD_USER_INPUT whose message names the argument and what is allowed.
 */

import { GraphQLError } from 'graphql';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '../snapshot/locales.ts';

/**
 * Checks the arguments of one Query field and returns them as its resolver uses them. The
 * checker (server/execution/limits.ts) runs it on every root field before anything executes,
 * so that one bad argument refuses the request before any field costs anything.
 *
 * @throws GraphQLError BAD_USER_INPUT naming the argument and what is allowed
 */
export type ArgumentReader = (args: Record<string, unknown>) => unknown;

/** The arguments of a lookup by id: its locale. */
export function readLookupArgs(args: { locale?: string | null }): Locale {
  return checkLocale(args.locale);
}

export function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

export function checkLocale(value: string | null | undefined): Locale {
  if (value === null || value === undefined) return DEFAULT_LOCALE;
  if (!isLocale(value)) throw badInput(`locale: "${value}" is not supported; allowed: ${LOCALES.join(', ')}`);
  return value;
}

/** `limit` between 0 and `max` (inclusive); null means the default. */
export function checkLimit(value: number | null | undefined, defaultValue: number, max: number): number {
  const limit = value ?? defaultValue;
  if (limit < 0 || limit > max) throw badInput(`limit: ${limit} is out of range; allowed: 0 to ${max}`);
  return limit;
}

export function checkOffset(value: number | null | undefined): number {
  const offset = value ?? 0;
  if (offset < 0) throw badInput(`offset: ${offset} is out of range; allowed: 0 or more`);
  return offset;
}

/** An optional argument restricted to a closed set of values. */
export function checkOneOf<T extends string>(name: string, value: string | null | undefined, allowed: readonly T[]): T | null {
  if (value === null || value === undefined) return null;
  if (!(allowed as readonly string[]).includes(value)) throw badInput(`${name}: "${value}" is not allowed; allowed: ${allowed.join(', ')}`);
  return value as T;
}

export interface NearMe {
  lng: number;
  lat: number;
  radiusKm: number;
}

/** The near-me filter: both coordinates or neither; null when not used. */
export function checkNearMe(args: { nearLat?: number | null; nearLng?: number | null; radiusKm?: number | null }): NearMe | null {
  const { nearLat, nearLng } = args;
  const radiusKm = args.radiusKm ?? 50;
  if (!(radiusKm > 0)) throw badInput(`radiusKm: ${radiusKm} is out of range; allowed: a number of kilometres greater than 0`);
  const hasLat = nearLat !== null && nearLat !== undefined;
  const hasLng = nearLng !== null && nearLng !== undefined;
  if (hasLat !== hasLng) throw badInput(`nearLat and nearLng must be given together; got only ${hasLat ? 'nearLat' : 'nearLng'}`);
  if (!hasLat || !hasLng) return null;
  if (nearLat < -90 || nearLat > 90) throw badInput(`nearLat: ${nearLat} is out of range; allowed: -90 to 90`);
  if (nearLng < -180 || nearLng > 180) throw badInput(`nearLng: ${nearLng} is out of range; allowed: -180 to 180`);
  return { lng: nearLng, lat: nearLat, radiusKm };
}

/** A text query; blank means no text filter. */
export function checkQuery(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const q = value.trim();
  if (q.length > 200) throw badInput(`q: ${q.length} characters is too long; allowed: at most 200`);
  return q === '' ? null : q;
}
