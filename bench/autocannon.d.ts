/**
 * The part of autocannon's programmatic API the benchmark uses
 * (https://github.com/mcollina/autocannon#api); the package ships no types.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Called before each sending of this request, with it; sends what it returns. */
      setupRequest?: (request: Request) => Request;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds to wait for one response. */
      timeout?: number;
      /** Each connection sends these in turn, starting over after the last. */
      requests?: Request[];
      /** Requests per second over all connections; default as fast as answers come. */
      overallRate?: number;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      /** Seconds, rounded to 10 ms. */
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
      /** Milliseconds, recorded in whole milliseconds. */
      latency: Histogram;
      /** Requests per second sample; `total` counts completed requests. */
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
      on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
