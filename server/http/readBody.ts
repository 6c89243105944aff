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

/** Called once with the body, or with the error that ended its reading (and no body). */
export type BodyCallback<C> = (context: C, error: Error | null, body?: Buffer) => void;

/**
 * Reads a request body of at most `maxBytes` and calls `done(context, null, body)`, or
 * `done(context, error)` with a PayloadTooLargeError when the body is (or declares to be) larger
 * than `maxBytes`, a RequestAbortedError when the client aborts the request. A declared
 * `Content-Length` above the limit is refused before a byte is read; otherwise bytes are counted
 * as they arrive and reading stops as soon as they pass the limit, so a body is never buffered
 * beyond `maxBytes`. `done` is always called later, never before this returns; it runs in the
 * request's event listeners, so it must not throw.
 *
 * A callback rather than a promise: an answer from the response cache is cheap enough that the
 * promise's turns through the microtask queue would show.
 */
export function readBodyThen<C>(req: IncomingMessage, maxBytes: number, done: BodyCallback<C>, context: C): void {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) {
    process.nextTick(done, context, new PayloadTooLargeError(maxBytes));
    return;
  }
  (req as ReadingMessage)[READING] = { chunks: [], size: 0, maxBytes, done: done as BodyCallback<unknown>, context };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAbort);
  req.on('close', onClose);
}

/** {@link readBodyThen} as a promise. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => readBodyThen(req, maxBytes, settle, { resolve, reject }));
}

function settle(promise: { resolve: (body: Buffer) => void; reject: (error: Error) => void }, error: Error | null, body?: Buffer): void {
  if (error) promise.reject(error);
  else promise.resolve(body!);
}

// The listeners below are shared by every request and find its reading through `this` (the
// request): every body read on the hot path would otherwise create five closures.
const READING = Symbol('reading');

interface Reading {
  readonly chunks: Buffer[];
  size: number;
  readonly maxBytes: number;
  readonly done: BodyCallback<unknown>;
  readonly context: unknown;
}

type ReadingMessage = IncomingMessage & { [READING]?: Reading };

function onData(this: ReadingMessage, chunk: Buffer): void {
  const reading = this[READING]!;
  reading.size += chunk.length;
  if (reading.size > reading.maxBytes) {
    stop(this);
    reading.done(reading.context, new PayloadTooLargeError(reading.maxBytes));
  } else {
    reading.chunks.push(chunk);
  }
}

function onEnd(this: ReadingMessage): void {
  const reading = stop(this);
  // A body of one chunk, as most are, is that chunk: concat would copy it into a new buffer on
  // the path of every cached answer. A stream never reuses the memory of a chunk it gave.
  const { chunks } = reading;
  reading.done(reading.context, null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, reading.size));
}

function onAbort(this: ReadingMessage): void {
  const reading = stop(this);
  reading.done(reading.context, new RequestAbortedError(`client aborted after ${reading.size} bytes of the body`));
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
