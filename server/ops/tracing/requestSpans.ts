/**
 * The spans of a request over OpenTelemetry: a server span per request, continuing the trace of
 * its W3C `traceparent`, with the HTTP semantic conventions' attributes
 * (https://opentelemetry.io/docs/specs/semconv/http/http-spans/), and under it a GraphQL span
 * (https://opentelemetry.io/docs/specs/semconv/graphql/graphql-spans/) with a child span per
 * step that ran: `graphql.parse`, `graphql.validate`, `graphql.execute`.
 */

import type { IncomingMessage } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { documentHash } from '../../http/graphql/documentHash.ts';
import type { GraphqlTrace, RequestTrace, RequestTracing } from '../../http/requestTracing.ts';

/** The GraphQL span's attributes of the semantic conventions, and ours (`graphql.document.*`, `graphql.response.cached`). */
export const GRAPHQL_ATTRIBUTES = {
  operationName: 'graphql.operation.name',
  operationType: 'graphql.operation.type',
  /** The SHA-256 of the document's text, in hex: the hash of automatic persisted queries. */
  documentHash: 'graphql.document.hash',
  /** True when the document was neither parsed nor validated: the operation cache held it. */
  documentCached: 'graphql.document.cached',
  /** True when the answer came from the response cache. */
  responseCached: 'graphql.response.cached',
} as const;

/** Routes whose path is the route (the others' label is a name, not a path). */
const NOT_A_PATH = new Set(['other']);

/** Creates the tracing of requests over `tracer` (the API's context and propagator are the SDK's, once registered). */
export function createRequestSpans(tracer: Tracer): RequestTracing {
  return {
    start(req) {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const method = req.method ?? 'GET';
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            [ATTR_HTTP_REQUEST_METHOD]: method,
            [ATTR_URL_PATH]: pathOf(req),
            [ATTR_URL_SCHEME]: 'http',
            [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
            [ATTR_CLIENT_ADDRESS]: req.socket.remoteAddress,
            [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'],
          },
        },
        parent,
      );
      return new RequestSpan(tracer, span, trace.setSpan(parent, span), method);
    },
  };
}

class RequestSpan implements RequestTrace {
  private graphqlSpan: GraphqlSpan | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
    private readonly method: string,
  ) {}

  within<T>(fn: () => T): T {
    return context.with(this.context, fn);
  }

  graphql(): GraphqlTrace {
    this.graphqlSpan ??= new GraphqlSpan(this.tracer, this.context);
    return this.graphqlSpan;
  }

  end(route: string, status: number): void {
    this.graphqlSpan?.end(status);
    const { span } = this;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (!NOT_A_PATH.has(route)) {
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${this.method} ${route}`);
    }
    // A server span is an error for a 5xx alone: a 4xx is the client's (semantic conventions).
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

class GraphqlSpan implements GraphqlTrace {
  private readonly span: Span;
  private readonly context: Context;
  private name: string | undefined;
  private type: string | undefined;
  private hashed = false;
  private prepared = false;
  private hasErrors = false;

  constructor(
    private readonly tracer: Tracer,
    parent: Context,
  ) {
    this.span = tracer.startSpan('GraphQL Operation', { kind: SpanKind.INTERNAL }, parent);
    this.context = trace.setSpan(parent, this.span);
  }

  ran(step: 'parse' | 'validate', startedAt: number): void {
    this.prepared = true;
    this.tracer.startSpan(`graphql.${step}`, { startTime: startedAt }, this.context).end();
  }

  operation(document: string | undefined, name: string | null | undefined, type: string | undefined): void {
    if (name) this.name = name;
    if (type) this.type = type;
    if (document !== undefined && !this.hashed && this.span.isRecording()) {
      this.hashed = true;
      // The log line's hash, memoised by text: a traced request hashes its document once.
      this.span.setAttribute(GRAPHQL_ATTRIBUTES.documentHash, documentHash(document));
    }
  }

  fromResponseCache(): void {
    this.span.setAttribute(GRAPHQL_ATTRIBUTES.responseCached, true);
  }

  execute(): () => void {
    const step = this.tracer.startSpan('graphql.execute', {}, this.context);
    return () => step.end();
  }

  failed(): void {
    this.hasErrors = true;
  }

  /** Ends the span with what it learned, given the status of the request's answer. */
  end(status: number): void {
    const { span } = this;
    if (this.name !== undefined) span.setAttribute(GRAPHQL_ATTRIBUTES.operationName, this.name);
    if (this.type !== undefined) span.setAttribute(GRAPHQL_ATTRIBUTES.operationType, this.type);
    if (this.type !== undefined || this.prepared) span.setAttribute(GRAPHQL_ATTRIBUTES.documentCached, !this.prepared);
    // The semantic conventions' name: `{type} {name}`, the type alone, or a fixed one.
    if (this.type !== undefined) span.updateName(this.name === undefined ? this.type : `${this.type} ${this.name}`);
    if (this.hasErrors || status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

function pathOf(req: IncomingMessage): string {
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  return queryStart === -1 ? target : target.slice(0, queryStart);
}
