import type { IncomingMessage } from 'node:http';

/** The body is larger than allowed; answered with 413 PAYLOAD_TOO_LARGE. */
export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`Request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/** The client went away before its body arrived; there is no one to answer. */
export class RequestAbortedError extends Error {
  override name = 'RequestAbortedError';
}

/**
 * Reads a request body of at most `maxBytes`. A declared `Content-Length` above the limit is
 * refused before a byte is read; otherwise bytes are counted as they arrive and reading stops as
 * soon as they pass the limit, so a body is never buffered beyond `maxBytes`.
 *
 * @throws PayloadTooLargeError when the body is (or declares to be) larger than `maxBytes`
 * @throws RequestAbortedError when the client aborts the request
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(new PayloadTooLargeError(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        reject(new PayloadTooLargeError(maxBytes));
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onAbort = () => {
      stop();
      reject(new RequestAbortedError(`client aborted after ${size} bytes of the body`));
    };
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
    };
    // 'close' before 'end' means the body never completed.
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
