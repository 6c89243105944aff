/**
 * The HTTP side of the booking interface: everything under `/v1`, the same in both modes.
 * CORS, routing (only the seven paths of operations.ts, the OpenAPI description and, in sandbox
 * mode, the ticket files of ticketFiles.ts), the locale,
 * the rate limit, the body limit, Idempotency-Key and the error format happen here; the mode
 * (sandbox.ts or proxy.ts) only sees checked calls.
 */

import type { Tracer } from '@opentelemetry/api';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActivityRecord } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import { clientAddress } from '../http/clientAddress.ts';
import { createBookingCors } from './bookingCors.ts';
import { BOOKING_LOCALES, parseBookingLocale } from './bookingLocale.ts';
import type { BookingConfig } from '../config/bookingConfig.ts';
import { BookingError, errorBody } from './errors.ts';
import { createIdempotencyStore, fingerprintRequest, type IdempotencyStore, readIdempotencyKey } from './idempotency.ts';
import { openApiDocument } from './openapi.ts';
import {
  BODY_MEDIA_TYPES,
  type BookingBackend,
  type BookingCall,
  type BookingLogger,
  type BookingReply,
  JSON_CONTENT_TYPE,
  jsonReply,
  matchPath,
  OPENAPI_PATH,
} from './operations.ts';
import { createProxy } from './proxy.ts';
import { createRateLimiter } from './rateLimit.ts';
import { matchTicketFilePath } from './ticketFiles.ts';
import { createSandbox, JOURNAL_FILE, type SandboxOptions } from './sandbox.ts';
import { StateDirInUseError } from './stateDirLock.ts';
import { refuseMethod, sendReply } from './sendReply.ts';
import { readBookingBody } from './requestBody.ts';
import { readQueryParameters } from './queryParameters.ts';

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
  /** When tracing is on: the proxy makes a client span of each partner call and sends its `traceparent`. */
  tracer?: Tracer;
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
  if (options.mode === 'off') return bookingOff(options.logger ?? console);
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? console;
  const idempotency = createIdempotencyStore({ maxEntries: options.idempotencyMaxEntries, maxBytes: options.idempotencyMaxBytes });
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
      : createProxy({ upstreamUrl: options.upstreamUrl, apiKey: options.apiKey, authHeader: options.authHeader, timeoutMs: options.upstreamTimeoutMs, logger, tracer: options.tracer });
  const routes: Routes = {
    options,
    backend,
    idempotency,
    clock,
    cors: createBookingCors(options.allowedOrigins),
    rateLimit: options.rateLimitPerMinute > 0 ? createRateLimiter(options.rateLimitPerMinute) : undefined,
    documentBody: Buffer.from(JSON.stringify(openApiDocument(options.mode))),
  };
  logger.info(
    options.mode === 'sandbox'
      ? `booking interface at /v1 in sandbox mode, journal ${path.resolve(options.stateDir, JOURNAL_FILE)}`
      : `booking interface at /v1 in proxy mode, forwarding to ${options.upstreamUrl}`,
  );

  return {
    mode: options.mode,
    async handle(req, res) {
      // Split by hand: `new URL('//host/x', base)` would read a path starting with // as a host.
      const target = req.url ?? '/';
      const queryStart = target.indexOf('?');
      const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
      if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return false;
      try {
        await answer(routes, req, res, pathname, queryStart === -1 ? '' : target.slice(queryStart + 1));
      } catch (error) {
        if (error instanceof BookingError) {
          sendReply(res, jsonReply(error.status, errorBody(error.code, error.message, error.details), error.headers), req.method);
        } else {
          logger.error(`booking: internal error answering ${req.method} ${pathname}: ${(error as Error)?.stack ?? String(error)}`);
          if (res.headersSent) res.destroy();
          else sendReply(res, jsonReply(500, errorBody('INTERNAL_SERVER_ERROR', 'Internal server error')), req.method);
        }
      }
      return true;
    },
    close: () => backend.close(),
  };
}

/** BOOKING_MODE=off: every /v1 path, the OpenAPI description included, is a 404 that says why. */
function bookingOff(logger: BookingLogger): BookingHandler {
  logger.info('booking interface off (BOOKING_MODE=off): every /v1 path answers 404 BOOKING_OFF');
  const reply = jsonReply(404, errorBody('BOOKING_OFF', 'The booking interface is off on this server (BOOKING_MODE=off).'));
  return {
    mode: 'off',
    async handle(req, res) {
      const target = req.url ?? '/';
      const queryStart = target.indexOf('?');
      const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
      if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return false;
      sendReply(res, reply, req.method);
      return true;
    },
    close: async () => {},
  };
}

/** What answering a request reads, built once per handler. */
interface Routes {
  readonly options: BookingHandlerOptions;
  readonly backend: BookingBackend;
  readonly idempotency: IdempotencyStore;
  readonly clock: () => number;
  readonly cors: ReturnType<typeof createBookingCors>;
  readonly rateLimit: ReturnType<typeof createRateLimiter> | undefined;
  /** The OpenAPI description, serialised. */
  readonly documentBody: Buffer;
}

/** Answers one request under `/v1`; refusals are thrown as BookingError. */
async function answer(routes: Routes, req: IncomingMessage, res: ServerResponse, pathname: string, rawQuery: string): Promise<void> {
  if (routes.cors(req, res)) return;
  const method = req.method ?? 'GET';
  // Read on every path and method, so an oversized body is refused alike wherever it is sent, and
  // alike by a cluster's workers, which read it before passing the request on (forwarder.ts).
  const body = await readBookingBody(req);

  if (pathname === OPENAPI_PATH) {
    if (method === 'GET' || method === 'HEAD') {
      sendReply(res, { status: 200, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-cache' }, body: routes.documentBody }, method);
    } else {
      refuseMethod(res, method, pathname, ['GET', 'HEAD']);
    }
    return;
  }

  if (await answerTicketFile(routes.backend, req, res, pathname, method)) return;

  const match = matchPath(pathname);
  if (match === null) {
    throw new BookingError('NOT_FOUND', `Nothing at ${pathname}; the booking paths are described at ${OPENAPI_PATH}`, { resource: 'path', path: pathname });
  }
  const operation = match.operations.find((candidate) => candidate.method === method);
  if (operation === undefined) {
    refuseMethod(res, method, pathname, match.operations.map((candidate) => candidate.method));
    return;
  }
  const call = readCall(routes, req, { operation, path: pathname, id: match.id }, rawQuery, body);
  await executeCall(routes, res, call, method);
}

/** Answers a ticket file's path (sandbox only) and resolves true; resolves false for any other path. */
async function answerTicketFile(backend: BookingBackend, req: IncomingMessage, res: ServerResponse, pathname: string, method: string): Promise<boolean> {
  const ticket = backend.ticketFile === undefined ? null : matchTicketFilePath(pathname);
  if (ticket === null) return false;
  if (method !== 'GET' && method !== 'HEAD') {
    refuseMethod(res, method, pathname, ['GET', 'HEAD']);
    return true;
  }
  sendReply(res, await backend.ticketFile!(ticket.ticketId, ticket.kind, req.headers), method);
  return true;
}

/**
 * The checked call of a request to one of the seven paths: its locale written the partner's
 * way and, for POST and PATCH, within the rate limit, with its Idempotency-Key and a JSON body.
 *
 * @throws BookingError INVALID_REQUEST (queryParameters.ts, the locale), RATE_LIMITED or UNSUPPORTED_MEDIA_TYPE
 */
function readCall(routes: Routes, req: IncomingMessage, target: Pick<BookingCall, 'operation' | 'path' | 'id'>, rawQuery: string, body: Buffer): BookingCall {
  const { operation } = target;
  const query = readQueryParameters(operation, rawQuery, routes.options.mode === 'sandbox');
  const locale = query.get('locale');
  if (locale !== null) query.set('locale', BOOKING_LOCALES[parseBookingLocale(locale, 'query parameter locale')]);

  const client = clientAddress(req, routes.options.trustedProxies);
  const call = { ...target, query, body: Buffer.alloc(0), headers: req.headers, client, idempotency: undefined };
  if (operation.method === 'GET') return call;
  refuseOverRateLimit(routes, client);
  const key = readIdempotencyKey(req.headers);
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const accepted: readonly string[] = BODY_MEDIA_TYPES[operation.method];
  if (body.length > 0 && !accepted.includes(mediaType)) {
    throw new BookingError('UNSUPPORTED_MEDIA_TYPE', `The body must be JSON sent as Content-Type: ${accepted.join(' or ')}, not ${JSON.stringify(mediaType || '(none)')}`, {
      contentType: mediaType || null,
      allowed: accepted,
    });
  }
  const fingerprint = fingerprintRequest(operation.method, req.url ?? target.path, body);
  return { ...call, body, idempotency: key === undefined ? undefined : { key, fingerprint } };
}

/** @throws BookingError RATE_LIMITED (429, with Retry-After) when the client is over the limit */
function refuseOverRateLimit({ rateLimit, options, clock }: Routes, client: string): void {
  if (rateLimit === undefined) return;
  const verdict = rateLimit(client, clock());
  if (verdict.allowed) return;
  throw new BookingError(
    'RATE_LIMITED',
    `Too many requests; at most ${options.rateLimitPerMinute} POST/PATCH per minute per client. Retry in ${verdict.retryAfterS} s`,
    { retryAfterSeconds: verdict.retryAfterS },
    { 'Retry-After': String(verdict.retryAfterS) },
  );
}

/**
 * Has the mode answer a call and sends the answer; a call whose Idempotency-Key already answered
 * the same request gets the stored answer again, marked `Idempotent-Replayed`.
 *
 * @throws BookingError IDEMPOTENCY_KEY_REUSED or IDEMPOTENCY_KEY_IN_USE (idempotency.ts); the mode's refusals
 */
async function executeCall({ backend, idempotency, clock }: Routes, res: ServerResponse, call: BookingCall, method: string): Promise<void> {
  const { client } = call;
  if (call.idempotency !== undefined) {
    const stored = idempotency.begin(client, call.idempotency.key, call.idempotency.fingerprint, clock());
    if (stored !== undefined) {
      sendReply(res, { ...stored, headers: { ...stored.headers, 'idempotent-replayed': 'true' } }, method);
      return;
    }
  }
  let reply: BookingReply | undefined;
  try {
    reply = await backend.execute(call);
  } finally {
    if (call.idempotency !== undefined) idempotency.release(client, call.idempotency.key, call.idempotency.fingerprint, reply, clock());
  }
  sendReply(res, reply, method);
}

/**
 * The sandbox over its journal; when the journal cannot be opened or replayed, a backend that
 * refuses every call with 503 BOOKING_UNAVAILABLE instead, the cause logged for the operator.
 */
async function openSandboxOrRefuse(options: SandboxOptions): Promise<BookingBackend> {
  try {
    return await createSandbox(options);
  } catch (error) {
    if (error instanceof StateDirInUseError) {
      options.logger.error(`booking sandbox: cannot start, every booking path answers 503: ${error.message}`);
      const inUse = () =>
        new BookingError('BOOKING_UNAVAILABLE', 'Booking is unavailable: another server process holds its state directory; it comes back when this server is given a state directory of its own and restarted', {
          reason: 'state_dir_in_use',
        });
      return { execute: () => Promise.reject(inUse()), close: () => Promise.resolve() };
    }
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
