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
    (req as ReadingMessage)[READING] = { chunks: [], size: 0, maxBytes, resolve, reject };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}

// The listeners below are shared by every request and find its reading through `this` (the
// request): every body read on the hot path would otherwise create five closures.
const READING = Symbol('reading');

interface Reading {
  readonly chunks: Buffer[];
  size: number;
  readonly maxBytes: number;
  readonly resolve: (body: Buffer) => void;
  readonly reject: (error: Error) => void;
}

type ReadingMessage = IncomingMessage & { [READING]?: Reading };

function onData(this: ReadingMessage, chunk: Buffer): void {
  const reading = this[READING]!;
  reading.size += chunk.length;
  if (reading.size > reading.maxBytes) {
    stop(this).reject(new PayloadTooLargeError(reading.maxBytes));
  } else {
    reading.chunks.push(chunk);
  }
}

function onEnd(this: ReadingMessage): void {
  const reading = stop(this);
  // A body of one chunk, as most are, is that chunk: concat would copy it into a new buffer,
  // about a microsecond of a cached answer. A stream never reuses the memory of a chunk it gave.
  const { chunks } = reading;
  reading.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, reading.size));
}

function onAbort(this: ReadingMessage): void {
  const reading = stop(this);
  reading.reject(new RequestAbortedError(`client aborted after ${reading.size} bytes of the body`));
}

// 'close' before 'end' means the body never completed.
function onClose(this: ReadingMessage): void {
  if (!this.complete) onAbort.call(this);
}

/** Stops listening, so nothing more is counted or settled; returns the reading. */
function stop(req: ReadingMessage): Reading {
  const reading = req[READING]!;
  req.off('data', onData);
  req.off('end', onEnd);
  req.off('error', onAbort);
  req.off('close', onClose);
  return reading;
}
