/**
 * What the HTTP layer asks of tracing, declared here so that it depends on no tracing library:
 * server/ops/tracing/ implements it over OpenTelemetry, and server/main.ts hands it down when
 * tracing is on. Off, the service is handed none and never asks.
 */

import type { IncomingMessage } from 'node:http';
import type { PrepareSteps } from '../execution/engine.ts';

/** Starts the trace of each request. */
export interface RequestTracing {
  /** Starts the server span of a request that just arrived, continuing the trace of its `traceparent`. */
  start(req: IncomingMessage): RequestTrace;
}

/** The trace of one request: its server span, and the GraphQL span under it. */
export interface RequestTrace {
  /** Runs `fn` with the request's span as the active one, so that spans started in it (a booking call's) are its children. */
  within<T>(fn: () => T): T;
  /** Starts the request's GraphQL span (once; later calls return the same). */
  graphql(): GraphqlTrace;
  /**
   * Ends the request's spans, the GraphQL one first.
   * @param route the route label of the metrics (`/api/graphql`, `/v1`, `other`...)
   * @param status the status sent, 499 when the client went away first
   */
  end(route: string, status: number): void;
}

/** The GraphQL span of a request; a step it never hears of did not run. */
export interface GraphqlTrace extends PrepareSteps {
  /**
   * What the request asks: its document (whose hash is recorded) when known, its operation's name
   * and its type (`query`, `mutation`, `subscription`) when known.
   */
  operation(document: string | undefined, name: string | null | undefined, type: string | undefined): void;
  /** The answer came from the response cache: nothing was parsed, validated or executed. */
  fromResponseCache(): void;
  /** Execution starts; call what it returns when the answer is written. */
  execute(): () => void;
  /** The answer carries errors. */
  failed(): void;
}
