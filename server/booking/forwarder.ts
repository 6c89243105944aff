/**
 * The booking interface of a cluster (WORKERS above 1): one interface the workers share.
 *
 * The booking interface keeps state: the sandbox's places, holds and journal under STATE_DIR
 * (sandbox.ts), and in both modes the rate limit per client and the Idempotency-Key store
 * (routes.ts). N workers must not each keep their own, so the primary process runs the one
 * booking interface, on an internal loopback port ({@link serveBookingToWorkers}), and each
 * worker passes every `/v1` request to it unchanged and its answer back
 * ({@link createBookingForwarder}). The last place of a slot therefore still goes to exactly one
 * client, and a client's rate limit counts its requests to every worker. The internal port
 * answers only requests that carry a secret made at start, which the workers get in their
 * environment.
 *
 * With tracing on, the worker sends the primary the `traceparent` of its request's span, and the
 * primary's partner calls continue that trace (off, the OpenTelemetry API does nothing).
 *
 * A worker reads a request's whole body, bounded as the booking interface bounds it, before it
 * passes the request on, and refuses a larger one itself: the primary would refuse it while the
 * worker was still sending, and the worker's write would then fail on a closed connection.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { createBookingCors } from './bookingCors.ts';
import { BookingError, errorBody } from './errors.ts';
import { JSON_CONTENT_TYPE, jsonReply } from './operations.ts';
import { readBookingBody } from './requestBody.ts';
import type { BookingHandler } from './routes.ts';
import { sendReply } from './sendReply.ts';

/** Environment of a worker: the base URL of the primary's booking interface. */
export const BOOKING_URL_ENV = 'CLUSTER_BOOKING_URL';
/** Environment of a worker: the secret the primary's booking interface asks for. */
export const BOOKING_TOKEN_ENV = 'CLUSTER_BOOKING_TOKEN';

/** Header carrying the secret from a worker to the primary. */
const TOKEN_HEADER = 'x-cluster-booking-token';
/** Header carrying the client's address from a worker to the primary (the rate limit is per client). */
const CLIENT_HEADER = 'x-cluster-client-address';

/**
 * Hop-by-hop headers (RFC 9110, 7.6.1): they describe one connection, so they are not passed on;
 * nor is Expect, which the worker's server has already answered.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/** Where the forwarding sides log what went wrong (a pino logger fits). */
export interface ForwarderLogger {
  error(fields: object, message: string): void;
}

/** The primary's side: the internal server, and the environment that leads a worker to it. */
export interface SharedBooking {
  /** Environment to fork each worker with ({@link BOOKING_URL_ENV}, {@link BOOKING_TOKEN_ENV}). */
  readonly workerEnv: Readonly<Record<string, string>>;
  /** Stops the internal server and cuts its connections. */
  close(): void;
}

/**
 * Serves `booking` on an internal loopback port, to requests that carry a secret made now
 * only. Until `booking` resolves, requests wait; if it rejects, they are answered 503.
 */
export async function serveBookingToWorkers(booking: Promise<BookingHandler>, logger: ForwarderLogger): Promise<SharedBooking> {
  const token = randomBytes(24).toString('base64url');
  const secret = Buffer.from(token);
  const server = createServer((req, res) => {
    const presented = Buffer.from(String(req.headers[TOKEN_HEADER] ?? ''));
    if (presented.length !== secret.length || !timingSafeEqual(presented, secret)) {
      res.writeHead(403).end();
      return;
    }
    const client = req.headers[CLIENT_HEADER];
    delete req.headers[TOKEN_HEADER];
    delete req.headers[CLIENT_HEADER];
    booking.then(
      async (handler) => {
        // The booking interface limits requests per client by req.socket.remoteAddress, which on
        // this loopback hop is the worker: it gets the client's. It reads it before it first
        // awaits, so no other request on this connection can come in between.
        if (typeof client === 'string') Object.defineProperty(req.socket, 'remoteAddress', { value: client, configurable: true });
        const answered = await context.with(propagation.extract(ROOT_CONTEXT, req.headers), () => handler.handle(req, res));
        if (!answered) res.writeHead(404).end();
      },
      () => res.writeHead(503).end(),
    ).catch((error: unknown) => {
      logger.error({ err: error }, 'booking: internal error');
      res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    workerEnv: { [BOOKING_URL_ENV]: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, [BOOKING_TOKEN_ENV]: token },
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** What the HTTP layer needs of the booking interface (see HttpOptions.booking). */
export interface BookingForwarder {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A worker's booking interface: passes every `/v1` request to the primary's, with its headers
 * and body, and sends its answer back as it came (status, headers, body). A body over the booking
 * interface's limit is refused here, as the primary would refuse it (413 PAYLOAD_TOO_LARGE).
 *
 * @param env the worker's environment, holding {@link BOOKING_URL_ENV} and {@link BOOKING_TOKEN_ENV}
 * @param allowedOrigins the origins CORS grants besides localhost, as the booking interface's
 * @throws Error when either is missing: the process was not forked by a cluster primary
 */
export function createBookingForwarder(env: NodeJS.ProcessEnv, logger: ForwarderLogger, allowedOrigins: readonly string[]): BookingForwarder {
  const baseUrl = env[BOOKING_URL_ENV];
  const token = env[BOOKING_TOKEN_ENV];
  if (!baseUrl || !token) throw new Error(`${BOOKING_URL_ENV} and ${BOOKING_TOKEN_ENV} are set by the cluster primary for its workers; found neither or one`);
  const target = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true });
  const cors = createBookingCors(allowedOrigins);
  return {
    async handle(req, res) {
      const url = req.url ?? '/';
      const queryStart = url.indexOf('?');
      const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
      if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return false;
      let body: Buffer;
      try {
        body = await readBookingBody(req);
      } catch (error) {
        // Else the client went away before its body arrived: there is no one to answer.
        if (!(error instanceof BookingError)) {
          res.destroy();
          return true;
        }
        if (!cors(req, res)) sendReply(res, jsonReply(error.status, errorBody(error.code, error.message, error.details), error.headers), req.method);
        return true;
      }
      return new Promise((resolve) => {
        const headers: IncomingHttpHeaders = {};
        for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
        headers['content-length'] = String(body.length);
        headers[TOKEN_HEADER] = token;
        headers[CLIENT_HEADER] = req.socket.remoteAddress ?? 'unknown';
        propagation.inject(context.active(), headers);
        const upstream = request({ hostname: target.hostname, port: target.port, method: req.method, path: url, headers, agent });
        upstream.on('response', (answer) => {
          passAnswer(answer, res);
          answer.on('end', () => resolve(true));
          answer.on('error', () => {
            res.destroy();
            resolve(true);
          });
        });
        upstream.on('error', (error) => {
          logger.error({ err: error }, 'booking: the primary process did not answer');
          if (res.headersSent) res.destroy();
          else {
            const body = JSON.stringify(errorBody('INTERNAL_SERVER_ERROR', 'Internal server error'));
            res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) }).end(body);
          }
          resolve(true);
        });
        // A client that goes away takes its forwarded request with it.
        res.once('close', () => upstream.destroy());
        upstream.end(body);
      });
    },
    async close() {
      agent.destroy();
    },
  };
}

/** Sends the primary's answer on to the client: status, end-to-end headers and body. */
function passAnswer(answer: IncomingMessage, res: ServerResponse): void {
  const passed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'date') continue;
    // The HTTP layer has set Vary: Origin already; the booking interface's adds to it.
    if (name === 'vary') res.appendHeader('Vary', value);
    else passed[name] = value;
  }
  res.writeHead(answer.statusCode ?? 502, passed);
  answer.pipe(res);
}
