/**
 * Load shedding, as fastify's @fastify/under-pressure does for fastify
 * (https://github.com/fastify/under-pressure): while this process's event loop is late by more
 * than a threshold, new GraphQL and GeoJSON requests are answered at once with 503, a
 * `Retry-After` and the code OVERLOADED, rather than queued behind the work that holds the loop.
 * The probes and the metrics (/healthz, /readyz, /metrics) are always answered, so that an
 * overloaded replica is not restarted for being busy. No library fits node:http and is kept up:
 * under-pressure is a fastify plugin, overload-protection and toobusy-js are unmaintained.
 *
 * The delay is how late a timer that should fire every {@link SAMPLE_MS} is now, read when a
 * request arrives: the requests read in one turn of the loop are handled one after another, and
 * from the one that finds the work before it has held the loop past the threshold on, they are
 * shed, until the loop comes round to its timers again. A delay that is over, however long, sheds
 * nothing: libuv runs the timers before it reads the next requests.
 */

import { performance } from 'node:perf_hooks';
import { Counter, type Registry } from 'prom-client';

/** How often the event loop's delay is sampled, in ms. */
const SAMPLE_MS = 20;

/** Seconds a shed client is told to wait (Retry-After): about the time an overload takes to pass. */
export const SHED_RETRY_AFTER_S = 1;

export interface LoadShedder {
  /** Whether a new request of `route` is refused now; counts it in the metrics when it is. */
  shed(route: string): boolean;
  /** Counts a request of `route` refused with OVERLOADED by a bound of its own (a queue that is full). */
  count(route: string): void;
  /** How late the event loop is now, in ms. */
  delayMs(): number;
  /** Stops sampling. */
  close(): void;
}

/**
 * Watches this thread's event loop and sheds while it is late by more than
 * `maxEventLoopDelayMs` (SHED_EVENT_LOOP_DELAY_MS; 0 turns shedding off, and then nothing is
 * sampled). Counts each shed request in `http_requests_shed_total{route}` of `registry`.
 */
export function createLoadShedder(maxEventLoopDelayMs: number, registry: Registry): LoadShedder {
  const shedCount = new Counter({
    name: 'http_requests_shed_total',
    help: 'Requests answered 503 OVERLOADED, per route: the event loop was late by more than SHED_EVENT_LOOP_DELAY_MS, or (GeoJSON) too many answers were waiting to be built.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const count = (route: string) => shedCount.inc({ route });
  if (maxEventLoopDelayMs === 0) return { shed: () => false, count, delayMs: () => 0, close: () => {} };
  let lastTick = performance.now();
  const timer = setInterval(() => {
    lastTick = performance.now();
  }, SAMPLE_MS);
  // The sampling never keeps the process alive by itself.
  timer.unref();
  const delayMs = () => Math.max(0, performance.now() - lastTick - SAMPLE_MS);
  return {
    shed(route) {
      if (delayMs() <= maxEventLoopDelayMs) return false;
      count(route);
      return true;
    },
    count,
    delayMs,
    close: () => clearInterval(timer),
  };
}
