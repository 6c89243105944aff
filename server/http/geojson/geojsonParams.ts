/** The query parameters of a GeoJSON request, read into the variables of its list operation. */

import type { ErrorCode } from '../formatError.ts';
import { misencodedMessage, misencodedParameter } from '../queryEncoding.ts';
import { parameterValue, type ListOperation } from './listOperation.ts';

/** Most records a GeoJSON answer holds: the largest `limit` a request may give, and its default. */
export const MAX_FEATURES = 5000;

/** The GeoJSON route's own parameter: the most records the answer may hold. */
const LIMIT = 'limit';

/** What a GeoJSON request asks for. */
export interface GeojsonParams {
  /** The list's arguments given, as its operation's variables. */
  variables: Record<string, unknown>;
  /** The most records the answer may hold; more matching ones are refused, not cut. */
  maxFeatures: number;
  /** The locale asked for (the list's default when none is given). */
  locale: string;
}

/** A request refused before the list runs. */
export interface ParamsRefusal {
  refusal: { code: ErrorCode; message: string };
}

/**
 * Reads the query string of a GeoJSON request: each of the list's arguments but its paging (a list
 * argument as comma-separated values), and `limit`, 1 to {@link MAX_FEATURES}, default
 * {@link MAX_FEATURES}. Values are not checked here: the list checks them when it runs.
 *
 * @param query the request target past its first `?`
 * @returns the parameters, or the refusal of an unknown, repeated or misencoded (no UTF-8) parameter
 *   (BAD_REQUEST) or of a bad `limit` (BAD_USER_INPUT)
 */
export function readGeojsonParams(operation: ListOperation, query: string): GeojsonParams | ParamsRefusal {
  const misencoded = misencodedParameter(query);
  if (misencoded !== undefined) return refuse('BAD_REQUEST', misencodedMessage(misencoded));
  const variables: Record<string, unknown> = {};
  let maxFeatures = MAX_FEATURES;
  const seen = new Set<string>();
  for (const [name, text] of new URLSearchParams(query)) {
    if (seen.has(name)) return refuse('BAD_REQUEST', `Parameter ${name} is given more than once; give each at most once`);
    seen.add(name);
    if (name === LIMIT) {
      maxFeatures = Number(text);
      if (!/^\d+$/.test(text) || maxFeatures < 1 || maxFeatures > MAX_FEATURES) {
        return refuse('BAD_USER_INPUT', `limit must be an integer from 1 to ${MAX_FEATURES}, got ${JSON.stringify(text)}`);
      }
      continue;
    }
    const type = operation.parameters.get(name);
    if (type === undefined) {
      const allowed = [...operation.parameters.keys(), LIMIT].join(', ');
      return refuse('BAD_REQUEST', `Unknown parameter ${JSON.stringify(name)} for ${operation.area.list}; allowed: ${allowed}`);
    }
    variables[name] = parameterValue(type, text);
  }
  const locale = typeof variables.locale === 'string' ? variables.locale : operation.defaultLocale;
  return { variables, maxFeatures, locale };
}

function refuse(code: ErrorCode, message: string): ParamsRefusal {
  return { refusal: { code, message } };
}
