/** The query parameters of a GeoJSON request, read into the variables of its list operation. */

import type { ErrorCode } from '../formatError.ts';
import { misencodedMessage, misencodedParameter } from '../queryEncoding.ts';
import { parameterValue, type ListOperation } from './listOperation.ts';

/** Most records a GeoJSON answer holds: the largest `limit` a request may give, and its default. */
export const MAX_FEATURES = 5000;

/**
 * Most positions of the lines of one answer with `geometry=line`, every feature's counted: a
 * map draws them all at once, and more matching is refused, as more records than `limit` are.
 */
export const MAX_LINE_POSITIONS = 100_000;

/** The GeoJSON route's own parameter: the most records the answer may hold. */
const LIMIT = 'limit';

/** The GeoJSON route's own parameter of an area with lines: `point` (the default) or `line`. */
const GEOMETRY = 'geometry';
const GEOMETRIES = ['point', 'line'];

/** What a GeoJSON request asks for. */
export interface GeojsonParams {
  /** The list's arguments given, as its operation's variables. */
  variables: Record<string, unknown>;
  /** The most records the answer may hold; more matching ones are refused, not cut. */
  maxFeatures: number;
  /** The locale asked for (the list's default when none is given). */
  locale: string;
  /** Whether the records with a line are answered as it (`geometry=line`) rather than as their point. */
  withLine: boolean;
}

/** A request refused before the list runs. */
export interface ParamsRefusal {
  refusal: { code: ErrorCode; message: string };
}

/**
 * Reads the query string of a GeoJSON request: each of the list's arguments but its paging (a list
 * argument as comma-separated values), and `limit`, 1 to {@link MAX_FEATURES}, default
 * {@link MAX_FEATURES}; for an area with lines, `geometry`, `point` or `line`. Values are not
 * checked here: the list checks them when it runs.
 *
 * @param query the request target past its first `?`
 * @returns the parameters, or the refusal of an unknown, repeated or misencoded (no UTF-8) parameter
 *   (BAD_REQUEST) or of a bad `limit` or `geometry` (BAD_USER_INPUT)
 */
export function readGeojsonParams(operation: ListOperation, query: string): GeojsonParams | ParamsRefusal {
  const misencoded = misencodedParameter(query);
  if (misencoded !== undefined) return refuse('BAD_REQUEST', misencodedMessage(misencoded));
  const variables: Record<string, unknown> = {};
  let maxFeatures = MAX_FEATURES;
  let withLine = false;
  const hasLines = operation.area.line !== undefined;
  const seen = new Set<string>();
  for (const [name, text] of new URLSearchParams(query)) {
    if (seen.has(name)) return refuse('BAD_REQUEST', `Parameter ${name} is given more than once; give each at most once`);
    seen.add(name);
    if (name === GEOMETRY && hasLines) {
      if (!GEOMETRIES.includes(text)) return refuse('BAD_USER_INPUT', `geometry must be one of ${GEOMETRIES.join(', ')}, got ${JSON.stringify(text)}`);
      withLine = text === 'line';
      continue;
    }
    if (name === LIMIT) {
      maxFeatures = Number(text);
      if (!/^\d+$/.test(text) || maxFeatures < 1 || maxFeatures > MAX_FEATURES) {
        return refuse('BAD_USER_INPUT', `limit must be an integer from 1 to ${MAX_FEATURES}, got ${JSON.stringify(text)}`);
      }
      continue;
    }
    const type = operation.parameters.get(name);
    if (type === undefined) {
      const allowed = [...operation.parameters.keys(), LIMIT, ...(hasLines ? [GEOMETRY] : [])].join(', ');
      return refuse('BAD_REQUEST', `Unknown parameter ${JSON.stringify(name)} for ${operation.area.list}; allowed: ${allowed}`);
    }
    variables[name] = parameterValue(type, text);
  }
  const locale = typeof variables.locale === 'string' ? variables.locale : operation.defaultLocale;
  return { variables, maxFeatures, locale, withLine };
}

/**
 * Reads the query string of a single record's request: `locale` alone.
 * @returns the locale (undefined when not given), or the refusal of another, a repeated or a
 *   misencoded (no UTF-8) parameter (BAD_REQUEST), as a list's parameters are refused
 */
export function readRecordParams(query: string): { locale: string | undefined } | ParamsRefusal {
  const misencoded = misencodedParameter(query);
  if (misencoded !== undefined) return refuse('BAD_REQUEST', misencodedMessage(misencoded));
  let locale: string | undefined;
  for (const [name, text] of new URLSearchParams(query)) {
    if (name !== 'locale') return refuse('BAD_REQUEST', `Unknown parameter ${JSON.stringify(name)} for a single record; allowed: locale`);
    if (locale !== undefined) return refuse('BAD_REQUEST', 'Parameter locale is given more than once; give each at most once');
    locale = text;
  }
  return { locale };
}

function refuse(code: ErrorCode, message: string): ParamsRefusal {
  return { refusal: { code, message } };
}
