/** The body of a request to the booking interface, read whole and bounded. */

import type { IncomingMessage } from 'node:http';
import { BookingError } from './errors.ts';
import { PayloadTooLargeError, readBody } from '../http/readBody.ts';

/** Largest accepted request body, in bytes; a larger one is a 413, whatever the path or method. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads the whole body with the query interface's reader (server/http/readBody.ts).
 *
 * @throws BookingError PAYLOAD_TOO_LARGE over {@link MAX_BODY_BYTES}, with `Connection: close`,
 *   so the rest of the body is not waited for
 * @throws RequestAbortedError when the client went away first
 */
export async function readBookingBody(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof PayloadTooLargeError)) throw error;
    throw new BookingError('PAYLOAD_TOO_LARGE', `The body is over ${MAX_BODY_BYTES} bytes`, { limitBytes: MAX_BODY_BYTES }, { Connection: 'close' });
  }
}
