/**
 * The address of the client that sent a request, for the booking interface's rate limit and the
 * request log.
 *
 * Behind reverse proxies (nginx, a cloud load balancer, a Kubernetes ingress) the socket's peer
 * is the nearest proxy, so every client would share one rate limit. Each proxy appends the
 * address it received the request from to `X-Forwarded-For`
 * (https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Forwarded-For); only the entries
 * the trusted proxies appended can be believed, since a client can send the header with anything
 * in it. So with `trustedProxies` = n the client is the n-th address from the right (the leftmost
 * when there are fewer), as Express's `trust proxy` with a hop count decides it.
 */

import type { IncomingMessage } from 'node:http';

/**
 * @param trustedProxies the number of reverse proxies in front of the server (TRUST_PROXY); 0
 *   ignores `X-Forwarded-For`
 */
export function clientAddress(req: IncomingMessage, trustedProxies: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const header = req.headers['x-forwarded-for'];
  if (trustedProxies === 0 || header === undefined) return peer;
  // Node joins repeated X-Forwarded-For headers with ", ", so one list holds them all.
  const forwarded = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (forwarded.length === 0) return peer;
  return forwarded[Math.max(forwarded.length - trustedProxies, 0)]!;
}
