/**
 * The query string of a call to one of the seven operations, read strictly: a parameter given
 * twice (`limit=1&limit=500`) is refused rather than read as either value, in both modes; in
 * sandbox mode, so is one the operation does not take (a misspelt `lmit` would otherwise leave
 * the default in force, unseen). The proxy passes unknown parameters on, as the partner may take
 * more than the document lists.
 */

import { misencodedMessage, misencodedParameter } from '../http/queryEncoding.ts';
import { invalid } from './input.ts';
import { BookingError } from './errors.ts';
import type { Operation } from './operations.ts';
import { QUERY_PARAMETERS } from './requestSchemas.ts';

/**
 * Reads a call's query string.
 *
 * @param rawQuery the request target past its first `?`
 * @param onlyKnown whether a parameter the operation does not take is refused (sandbox mode)
 * @throws BookingError INVALID_REQUEST (`details.field` the parameter) for a parameter given more
 *   than once, one that is not UTF-8 once percent-decoded, or, with `onlyKnown`, one the operation
 *   does not take (`details.allowed` those it takes)
 */
export function readQueryParameters(operation: Operation, rawQuery: string, onlyKnown: boolean): URLSearchParams {
  const misencoded = misencodedParameter(rawQuery);
  if (misencoded !== undefined) throw invalid(misencoded, misencodedMessage(misencoded));
  const query = new URLSearchParams(rawQuery);
  const allowed = ['locale', ...Object.keys(QUERY_PARAMETERS[operation.id] ?? {})];
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name)) throw invalid(name, `Query parameter ${name} is given more than once; give each at most once`);
    seen.add(name);
    if (onlyKnown && !allowed.includes(name)) throw unknownParameter(operation, name, allowed);
  }
  return query;
}

function unknownParameter(operation: Operation, name: string, allowed: string[]): BookingError {
  const message = `Unknown query parameter ${JSON.stringify(name)} for ${operation.method} ${operation.path}; allowed: ${allowed.join(', ')}`;
  return new BookingError('INVALID_REQUEST', message, { field: name, allowed });
}
