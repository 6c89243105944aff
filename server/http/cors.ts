import type { IncomingMessage, ServerResponse } from 'node:http';

/** Hosts whose origins are granted on any port and over http or https: a developer's own machine. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What a granted origin may do beyond simple requests; each interface has its own. */
export interface CorsPolicy {
  /** Methods granted in preflights, e.g. `GET, POST, OPTIONS`. */
  methods: string;
  /**
   * Request headers a browser may send cross-origin; `content-type` is always granted.
   * `'requested'` grants whatever a preflight asks for (see {@link createCors}).
   */
  requestHeaders: ReadonlySet<string> | 'requested';
  /** Response headers a granted origin's scripts may read besides the safelisted ones. */
  exposedHeaders?: string;
}

/**
 * The query interface's policy. It grants every request header a preflight asks for: clients add
 * their own (Apollo's `apollographql-client-name`, OpenTelemetry's `traceparent`, `baggage`,
 * Sentry's `sentry-trace`…), a list would always miss the next one, and no header grants more
 * than a read of public data, since no credentials are ever granted.
 */
const QUERY_POLICY: CorsPolicy = {
  methods: 'GET, POST, OPTIONS',
  requestHeaders: 'requested',
};

/** Most header names granted in one preflight; a browser asks for a handful. */
const MAX_GRANTED_HEADERS = 64;

/** A header name (RFC 9110 §5.1: a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** How long a browser may reuse a preflight answer, in seconds (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_S = 7200;

/**
 * Applies the CORS policy to one request: call it before routing.
 *
 * Returns `true` when it has answered the request itself (a preflight), `false` when the caller
 * must go on and answer it.
 */
export type Cors = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Creates the CORS policy of the API (https://fetch.spec.whatwg.org/#http-cors-protocol).
 *
 * Granted are the origins in `allowedOrigins` and any http(s) origin on localhost, 127.0.0.1 or
 * [::1], whatever the port. A granted origin is echoed in `Access-Control-Allow-Origin`; every
 * response carries `Vary: Origin`, since its headers depend on it. A preflight is answered 204 in
 * all cases, and one from an origin that is not granted simply carries no grant: the browser then
 * blocks the request itself, and we reveal nothing a 403 would not. Requests without an `Origin`
 * (curl, servers) are left alone. No credentials are granted: the API is public. A granted
 * preflight gets the policy's methods, the request headers it asked for that the policy grants
 * (at most 64, each a valid header name), and `Access-Control-Max-Age`, so the browser asks again
 * only after two hours.
 *
 * @param allowedOrigins origins such as `https://example.com` (a trailing slash is tolerated)
 * @param policy methods and headers granted; default the query interface's
 * @throws Error when an entry is not an http(s) origin, naming the entry
 */
export function createCors(allowedOrigins: readonly string[], policy: CorsPolicy = QUERY_POLICY): Cors {
  const allowed = new Set(allowedOrigins.map(parseAllowedOrigin));

  return (req, res) => {
    res.appendHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    const granted = origin !== undefined && (allowed.has(origin) || isLoopbackOrigin(origin));
    if (granted) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      if (policy.exposedHeaders) res.setHeader('Access-Control-Expose-Headers', policy.exposedHeaders);
    }

    const requestedMethod = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || origin === undefined || requestedMethod === undefined) return false;

    res.appendHeader('Vary', 'Access-Control-Request-Headers');
    if (granted) {
      res.setHeader('Access-Control-Allow-Methods', policy.methods);
      res.setHeader('Access-Control-Allow-Headers', grantedHeaders(policy.requestHeaders, req.headers['access-control-request-headers']));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    }
    res.writeHead(204).end();
    return true;
  };
}

function parseAllowedOrigin(entry: string): string {
  const url = URL.canParse(entry) ? new URL(entry) : undefined;
  if (url && isHttp(url) && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '') {
    return url.origin;
  }
  throw new Error(`Allowed origin ${JSON.stringify(entry)} is not an origin; expected e.g. "https://example.com"`);
}

function isLoopbackOrigin(origin: string): boolean {
  const url = URL.canParse(origin) ? new URL(origin) : undefined;
  // Browsers send the serialized origin; anything else (a path, a trailing slash) is not one.
  return url !== undefined && isHttp(url) && LOOPBACK_HOSTS.has(url.hostname) && url.origin === origin;
}

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/** The `Access-Control-Allow-Headers` of a preflight: what it asks for and the policy grants. */
function grantedHeaders(grantable: ReadonlySet<string> | 'requested', requested: string | undefined): string {
  const granted = new Set(['content-type']);
  for (const name of (requested ?? '').split(',')) {
    if (granted.size >= MAX_GRANTED_HEADERS) break;
    const header = name.trim().toLowerCase();
    if (grantable === 'requested' ? HEADER_NAME.test(header) : grantable.has(header)) granted.add(header);
  }
  return [...granted].join(', ');
}
