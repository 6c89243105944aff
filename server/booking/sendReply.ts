/** Writing a booking answer to the HTTP response: headers, caching, HEAD, and method refusals. */

import type { ServerResponse } from 'node:http';
import { BookingError } from './errors.ts';
import type { BookingReply } from './operations.ts';

/**
 * Sends a reply whole, with its Content-Length; a HEAD gets the headers only. An upstream's Vary
 * adds to the one CORS has set, and an answer no one said may be cached gets `no-store`.
 */
export function sendReply(res: ServerResponse, reply: BookingReply, method: string | undefined): void {
  res.statusCode = reply.status;
  for (const [name, value] of Object.entries(reply.headers)) {
    // CORS has already set Vary: Origin; an upstream's Vary adds to it.
    if (name.toLowerCase() === 'vary') res.appendHeader('Vary', value);
    else res.setHeader(name, value);
  }
  // Bookings carry personal data: no cache may keep them unless the upstream says otherwise.
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', reply.body.length);
  res.end(method === 'HEAD' ? undefined : reply.body);
}

/**
 * Answers a method a path does not take: an OPTIONS gets 204 with `Allow`.
 *
 * @param methods the methods the path takes, besides OPTIONS
 * @throws BookingError METHOD_NOT_ALLOWED (405, with `Allow`) for any other method
 */
export function refuseMethod(res: ServerResponse, method: string, pathname: string, methods: readonly string[]): void {
  const allow = [...methods, 'OPTIONS'].join(', ');
  if (method === 'OPTIONS') {
    res.writeHead(204, { Allow: allow }).end();
    return;
  }
  throw new BookingError('METHOD_NOT_ALLOWED', `${pathname} answers ${allow}, not ${method}`, { allowed: [...methods, 'OPTIONS'] }, { Allow: allow });
}
