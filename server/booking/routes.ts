/**
 * The HTTP side of the booking interface: everything under `/v1`, the same in both modes.
 * CORS, routing (only the seven paths of operations.ts, the OpenAPI description and, in sandbox
 * mode, the ticket files of ticketFiles.ts), the locale,
 * the rate limit, the body limit, Idempotency-Key and the error format happen here; the mode
 * (sandbox.ts or proxy.ts) only sees checked calls.
 */

import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActivityRecord } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import { clientAddress } from '../http/clientAddress.ts';
import { createBookingCors } from './bookingCors.ts';
import { BOOKING_LOCALES, parseBookingLocale } from './bookingLocale.ts';
import type { BookingConfig } from '../config/bookingConfig.ts';
import { BookingError, errorBody } from './errors.ts';
import { createIdempotencyStore, fingerprintRequest, readIdempotencyKey } from './idempotency.ts';
import { openApiDocument } from './openapi.ts';
import { BODY_MEDIA_TYPES, type BookingBackend, type BookingLogger, type BookingReply, JSON_CONTENT_TYPE, jsonReply, matchPath, OPENAPI_PATH } from './operations.ts';
import { createProxy } from './proxy.ts';
import { createRateLimiter } from './rateLimit.ts';
import { matchTicketFilePath } from './ticketFiles.ts';
import { createSandbox, JOURNAL_FILE, type SandboxOptions } from './sandbox.ts';
import { PayloadTooLargeError, readBody } from '../http/readBody.ts';

/** Largest accepted request body, in bytes; a larger one is a 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Everything the booking interface needs: its configuration plus the server's shared parts. */
export type BookingHandlerOptions = BookingConfig & {
  /** The current snapshot's activities of a locale (sandbox mode); called per request. */
  activities: (locale: Locale) => readonly ActivityRecord[];
  /** Browser origins granted by CORS besides localhost, as for the query interface. */
  allowedOrigins: readonly string[];
  /** Milliseconds since the epoch: hold expiry, rate limit, idempotency expiry; default Date.now. */
  clock?: () => number;
  /** Default console. */
  logger?: BookingLogger;
};

export interface BookingHandler {
  readonly mode: BookingConfig['mode'];
  /**
   * Answers a request whose path is `/v1` or starts with `/v1/` and resolves true; resolves
   * false, touching nothing, for any other path. Never rejects: unexpected errors are logged
   * and answered with a 500.
   */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Closes the journal (sandbox) or the upstream connections (proxy); call after the server has stopped. */
  close(): Promise<void>;
}

/**
 * Creates the booking interface in the configured mode; in sandbox mode, first replays the
 * journal under `stateDir`.
 *
 * A sandbox journal that cannot be read or is corrupt does not stop the start: it is logged, and
 * every booking path answers 503 BOOKING_UNAVAILABLE, so the rest of the server goes on serving.
 *
 * @throws Error when an allowed origin is malformed
 */
export async function createBookingHandler(options: BookingHandlerOptions): Promise<BookingHandler> {
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? console;
  const cors = createBookingCors(options.allowedOrigins);
  const idempotency = createIdempotencyStore();
  const rateLimit = options.rateLimitPerMinute > 0 ? createRateLimiter(options.rateLimitPerMinute) : undefined;
  const backend: BookingBackend =
    options.mode === 'sandbox'
      ? await openSandboxOrRefuse({
          stateDir: options.stateDir,
          limits: { maxCartItems: options.maxCartItems, maxHeldPlaces: options.maxHeldPlaces },
          activities: options.activities,
          idempotency,
          clock,
          logger,
        })
      : createProxy({ upstreamUrl: options.upstreamUrl, apiKey: options.apiKey, authHeader: options.authHeader, timeoutMs: options.upstreamTimeoutMs, logger });
  const documentBody = Buffer.from(JSON.stringify(openApiDocument(options.mode)));
  logger.info(
    options.mode === 'sandbox'
      ? `booking interface at /v1 in sandbox mode, journal ${path.resolve(options.stateDir, JOURNAL_FILE)}`
      : `booking interface at /v1 in proxy mode, forwarding to ${options.upstreamUrl}`,
  );

  async function answer(req: IncomingMessage, res: ServerResponse, pathname: string, rawQuery: string): Promise<void> {
    if (cors(req, res)) return;
    const method = req.method ?? 'GET';

    if (pathname === OPENAPI_PATH) {
      if (method === 'GET' || method === 'HEAD') {
        send(res, { status: 200, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-cache' }, body: documentBody }, method);
      } else {
        refuseMethod(res, method, pathname, ['GET', 'HEAD']);
      }
      return;
    }

    if (await answerTicketFile(req, res, pathname, method)) return;

    const match = matchPath(pathname);
    if (match === null) {
      throw new BookingError('NOT_FOUND', `Nothing at ${pathname}; the booking paths are described at ${OPENAPI_PATH}`, { resource: 'path', path: pathname });
    }
    const operation = match.operations.find((candidate) => candidate.method === method);
    if (operation === undefined) {
      refuseMethod(res, method, pathname, match.operations.map((candidate) => candidate.method));
      return;
    }

    const query = new URLSearchParams(rawQuery);
    const locale = query.get('locale');
    if (locale !== null) query.set('locale', BOOKING_LOCALES[parseBookingLocale(locale, 'query parameter locale')]);

    const client = clientAddress(req, options.trustedProxies);
    let body: Buffer = Buffer.alloc(0);
    let idempotencyKey: string | undefined;
    let fingerprint = '';
    if (operation.method !== 'GET') {
      if (rateLimit) {
        const verdict = rateLimit(client, clock());
        if (!verdict.allowed) {
          throw new BookingError(
            'RATE_LIMITED',
            `Too many requests; at most ${options.rateLimitPerMinute} POST/PATCH per minute per client. Retry in ${verdict.retryAfterS} s`,
            { retryAfterSeconds: verdict.retryAfterS },
            { 'Retry-After': String(verdict.retryAfterS) },
          );
        }
      }
      idempotencyKey = readIdempotencyKey(req.headers);
      body = await readBookingBody(req);
      const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const accepted: readonly string[] = BODY_MEDIA_TYPES[operation.method];
      if (body.length > 0 && !accepted.includes(mediaType)) {
        throw new BookingError('UNSUPPORTED_MEDIA_TYPE', `The body must be JSON sent as Content-Type: ${accepted.join(' or ')}, not ${JSON.stringify(mediaType || '(none)')}`, {
          contentType: mediaType || null,
          allowed: accepted,
        });
      }
      fingerprint = fingerprintRequest(method, req.url ?? pathname, body);
    }

    if (idempotencyKey !== undefined) {
      const stored = idempotency.begin(client, idempotencyKey, fingerprint, clock());
      if (stored !== undefined) {
        send(res, { ...stored, headers: { ...stored.headers, 'idempotent-replayed': 'true' } }, method);
        return;
      }
    }
    let reply: BookingReply | undefined;
    try {
      reply = await backend.execute({
        operation,
        path: pathname,
        id: match.id,
        query,
        body,
        headers: req.headers,
        client,
        idempotency: idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint },
      });
    } finally {
      if (idempotencyKey !== undefined) idempotency.release(client, idempotencyKey, fingerprint, reply, clock());
    }
    send(res, reply, method);
  }

  /** Answers a ticket file's path (sandbox only) and resolves true; resolves false for any other path. */
  async function answerTicketFile(req: IncomingMessage, res: ServerResponse, pathname: string, method: string): Promise<boolean> {
    const ticket = backend.ticketFile === undefined ? null : matchTicketFilePath(pathname);
    if (ticket === null) return false;
    if (method !== 'GET' && method !== 'HEAD') {
      refuseMethod(res, method, pathname, ['GET', 'HEAD']);
      return true;
    }
    send(res, await backend.ticketFile!(ticket.ticketId, ticket.kind, req.headers), method);
    return true;
  }

  return {
    mode: options.mode,
    async handle(req, res) {
      // Split by hand: `new URL('//host/x', base)` would read a path starting with // as a host.
      const target = req.url ?? '/';
      const queryStart = target.indexOf('?');
      const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
      if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return false;
      try {
        await answer(req, res, pathname, queryStart === -1 ? '' : target.slice(queryStart + 1));
      } catch (error) {
        if (error instanceof BookingError) {
          send(res, jsonReply(error.status, errorBody(error.code, error.message, error.details), error.headers), req.method);
        } else {
          logger.error(`booking: internal error answering ${req.method} ${pathname}: ${(error as Error)?.stack ?? String(error)}`);
          if (res.headersSent) res.destroy();
          else send(res, jsonReply(500, errorBody('INTERNAL_SERVER_ERROR', 'Internal server error')), req.method);
        }
      }
      return true;
    },
    close: () => backend.close(),
  };
}

/**
 * The sandbox over its journal; when the journal cannot be opened or replayed, a backend that
 * refuses every call with 503 BOOKING_UNAVAILABLE instead, the cause logged for the operator.
 */
async function openSandboxOrRefuse(options: SandboxOptions): Promise<BookingBackend> {
  try {
    return await createSandbox(options);
  } catch (error) {
    options.logger.error(`booking sandbox: cannot start, every booking path answers 503 until the journal is fixed and the server restarted: ${(error as Error).message}`);
    const refusal = () =>
      new BookingError('BOOKING_UNAVAILABLE', 'Booking is unavailable: its journal cannot be read; it comes back when the operator has repaired it and restarted the server', {
        reason: 'journal_unreadable',
      });
    return {
      execute: () => Promise.reject(refusal()),
      close: () => Promise.resolve(),
    };
  }
}

function refuseMethod(res: ServerResponse, method: string, pathname: string, methods: readonly string[]): void {
  const allow = [...methods, 'OPTIONS'].join(', ');
  if (method === 'OPTIONS') {
    res.writeHead(204, { Allow: allow }).end();
    return;
  }
  throw new BookingError('METHOD_NOT_ALLOWED', `${pathname} answers ${allow}, not ${method}`, { allowed: [...methods, 'OPTIONS'] }, { Allow: allow });
}

function send(res: ServerResponse, reply: BookingReply, method: string | undefined): void {
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
 * Reads the whole body with the query interface's reader (server/http/readBody.ts), refusing one
 * over {@link MAX_BODY_BYTES} in the booking error format; the connection is then closed, so
 * the rest of the body is not waited for.
 */
async function readBookingBody(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof PayloadTooLargeError)) throw error;
    throw new BookingError('PAYLOAD_TOO_LARGE', `The body is over ${MAX_BODY_BYTES} bytes`, { limitBytes: MAX_BODY_BYTES }, { Connection: 'close' });
  }
}
