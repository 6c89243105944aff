/**
 * The answer to a request node:http could not read: headers past its limit, a request that did
 * not arrive in time, or bytes that are no HTTP. Node answers these itself with a bare status
 * line; this answers them as node does (the same statuses, and only while nothing of a response
 * has been sent on the connection, which then closes), with the one error body of the API.
 * https://nodejs.org/api/http.html#event-clienterror
 */

import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, type ErrorCode } from './formatError.ts';
import { JSON_TYPE } from './respond.ts';
import { NO_STORE } from './httpCache.ts';

/** What node:http hands a `clientError` listener: the socket, and the response it may have begun. */
type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/** The refusal of each error node:http reports, by its code; any other is a malformed request. */
function refusalOf(error: Error & { code?: string; reason?: string }): { status: number; code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: `The request line and headers exceed the limit of ${maxHeaderSize} bytes; send fewer or shorter headers` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The chunk extensions of the body exceed the limit node:http reads' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request did not arrive within HEADERS_TIMEOUT_MS (its headers) or REQUEST_TIMEOUT_MS (all of it)' };
    default:
      // llhttp's reason is its own fixed wording ("Invalid method encountered"), never the client's bytes.
      return { status: 400, code: 'BAD_REQUEST', message: `Malformed HTTP request: ${error.reason ?? 'not HTTP/1.1'}` };
  }
}

/**
 * The server's `clientError` listener.
 * @param error what node:http reports (an llhttp parse error, `ERR_HTTP_REQUEST_TIMEOUT`, a socket error)
 */
export function answerClientError(error: Error & { code?: string; reason?: string }, socket: ClientSocket): void {
  // A response begun on this connection cannot be followed by another without corrupting it;
  // a reset connection has nobody to answer.
  if (socket.writable && !socket._httpMessage?.headersSent && error.code !== 'ECONNRESET') {
    const { status, code, message } = refusalOf(error);
    const body = errorBody(code, message);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: ${NO_STORE}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
