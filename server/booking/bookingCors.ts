import type { IncomingMessage } from 'node:http';
import { type Cors, createCors } from '../cors.ts';

/** Methods a granted origin may use on the booking paths. */
const ALLOWED_METHODS = 'GET, POST, PATCH, OPTIONS';

/** Request headers a browser may send cross-origin; `content-type` is always granted. */
const GRANTABLE_REQUEST_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'idempotency-key', 'x-request-id']);

/** Response headers a granted origin's scripts may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'Retry-After, Idempotent-Replayed, Allow';

/** How long a browser may reuse a preflight answer, in seconds (as for the query interface). */
const PREFLIGHT_MAX_AGE_S = 7200;

/**
 * Creates the CORS policy of the booking paths: the same origins as the query interface
 * (server/cors.ts: `allowedOrigins` plus localhost on any port), with the booking methods
 * (PATCH) and headers (Idempotency-Key) granted in preflights and Retry-After and
 * Idempotent-Replayed exposed. Returns true when it answered the request (a preflight, always 204).
 *
 * @throws Error as createCors when an allowed origin is malformed
 */
export function createBookingCors(allowedOrigins: readonly string[]): Cors {
  const cors = createCors(allowedOrigins);

  return (req, res) => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    // createCors answers preflights with the query interface's methods and headers, so it is only
    // asked to decide the origin: it grants it on any request that is not a preflight.
    cors(preflight ? ({ method: 'GET', headers: { origin } } as IncomingMessage) : req, res);
    const granted = res.hasHeader('Access-Control-Allow-Origin');
    if (!preflight) {
      if (granted) res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      return false;
    }
    res.appendHeader('Vary', 'Access-Control-Request-Headers');
    if (granted) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', grantedHeaders(req.headers['access-control-request-headers']));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    }
    res.writeHead(204).end();
    return true;
  };
}

function grantedHeaders(requested: string | undefined): string {
  const granted = new Set(['content-type']);
  for (const name of (requested ?? '').split(',')) {
    const header = name.trim().toLowerCase();
    if (GRANTABLE_REQUEST_HEADERS.has(header)) granted.add(header);
  }
  return [...granted].join(', ');
}
