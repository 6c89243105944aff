import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../../server/config/config.ts';
import { SERVICE_NAME, startServer } from '../../../../server/main.ts';
import { startTracing } from '../../../../tracing/startTracing.ts';
import { tempStateDir } from '../../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';
import { setEnv, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../helpers/otlpReceiver.ts';

/** The trace ids of the requests the test sends, each with its own `traceparent`. */
const TRACES = {
  first: '0af7651916cd43dd8448eb211c80319c',
  again: '4bf92f3577b34da6a3ce929d0e0e4736',
  refused: 'a3ce929d0e0e47364bf92f3577b34da6',
  booking: '8448eb211c80319c0af7651916cd43dd',
};
const PARENT_SPAN = 'b7ad6b7169203331';
const QUERY = 'query TypeList { types { id } }';
const SERVER = 2;
const CLIENT = 3;

let receiver: OtlpReceiver;
let snapshot: TinySnapshot;
let partnerHeaders: IncomingHttpHeaders[] = [];
const statuses: Record<string, number> = {};

function traceparent(traceId: string): string {
  return `00-${traceId}-${PARENT_SPAN}-01`;
}

function spansOf(traceId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.traceId === traceId);
}

function childrenOf(traceId: string, parent: ReceivedSpan): ReceivedSpan[] {
  return spansOf(traceId).filter((span) => span.parentSpanId === parent.spanId);
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The requests run first, then tracing is shut down, which exports every span: the tests read
// what the receiver got.
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  snapshot = await createTinySnapshot();
  const partner = createServer((req, res) => {
    partnerHeaders.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  const partnerUrl = await listen(partner);
  const restoreEnv = setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'traced-api' });
  const tracing = await startTracing(SERVICE_NAME);
  try {
    const config = readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, LOG_LEVEL: 'silent', STATE_DIR: tempStateDir(), WORKERS: '1', BOOKING_UPSTREAM_URL: partnerUrl, BOOKING_API_KEY: 'key' });
    const server = await startServer(config, undefined, { tracer: tracing!.tracer });
    const post = async (name: keyof typeof TRACES, query: string) => {
      const response = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', traceparent: traceparent(TRACES[name]) },
        body: JSON.stringify({ query }),
      });
      await response.arrayBuffer();
      statuses[name] = response.status;
    };
    await post('first', QUERY);
    await post('again', QUERY);
    await post('refused', '{ nothingHere }');
    const booking = await fetch(`${server.url}/v1/activities`, { headers: { traceparent: traceparent(TRACES.booking) } });
    await booking.arrayBuffer();
    statuses.booking = booking.status;
    await server.close();
  } finally {
    await tracing?.shutdown();
    restoreEnv();
    partner.close();
  }
});

afterAll(async () => {
  await receiver.close();
  await snapshot.remove();
  partnerHeaders = [];
});

describe('tracing of the server over OTLP', () => {
  it('continues the traceparent of a GraphQL request with a server span and a GraphQL span', () => {
    expect(statuses.first).toBe(200);
    const request = spansOf(TRACES.first).find((span) => span.kind === SERVER)!;
    expect(request).toMatchObject({
      name: 'POST /api/graphql',
      parentSpanId: PARENT_SPAN,
      serviceName: 'traced-api',
      statusCode: 0,
      attributes: { 'http.request.method': 'POST', 'url.path': '/api/graphql', 'url.scheme': 'http', 'http.route': '/api/graphql', 'http.response.status_code': 200 },
    });
    const [graphql] = childrenOf(TRACES.first, request);
    expect(graphql).toMatchObject({
      name: 'query TypeList',
      attributes: {
        'graphql.operation.name': 'TypeList',
        'graphql.operation.type': 'query',
        // sha256 of QUERY, as automatic persisted queries hash it.
        'graphql.document.hash': '63950b70b1043cb5006d915fa4a0024e03925ffccfe1d5593260adb485c7762f',
        'graphql.document.cached': false,
      },
    });
    expect(childrenOf(TRACES.first, graphql!).map((span) => span.name).sort()).toEqual(['graphql.execute', 'graphql.parse', 'graphql.validate']);
  });

  it('says when the answer came from the response cache, with no parse, validate or execute span', () => {
    expect(statuses.again).toBe(200);
    const request = spansOf(TRACES.again).find((span) => span.kind === SERVER)!;
    const [graphql] = childrenOf(TRACES.again, request);
    expect(graphql!.attributes).toMatchObject({ 'graphql.response.cached': true, 'graphql.document.cached': true, 'graphql.operation.name': 'TypeList' });
    expect(childrenOf(TRACES.again, graphql!)).toEqual([]);
  });

  it('marks a refused operation as an error of its GraphQL span, after parsing and validating it', () => {
    expect(statuses.refused).toBe(400);
    const request = spansOf(TRACES.refused).find((span) => span.kind === SERVER)!;
    expect(request.attributes['http.response.status_code']).toBe(400);
    const [graphql] = childrenOf(TRACES.refused, request);
    expect(graphql).toMatchObject({ statusCode: 2, attributes: { 'graphql.document.cached': false } });
    expect(childrenOf(TRACES.refused, graphql!).map((span) => span.name).sort()).toEqual(['graphql.parse', 'graphql.validate']);
  });

  it('makes a client span of a booking partner call and sends the partner its traceparent', () => {
    expect(statuses.booking).toBe(200);
    const request = spansOf(TRACES.booking).find((span) => span.kind === SERVER)!;
    expect(request).toMatchObject({ name: 'GET /v1', attributes: { 'http.route': '/v1', 'http.response.status_code': 200 } });
    const [call] = childrenOf(TRACES.booking, request);
    expect(call).toMatchObject({ kind: CLIENT, name: 'GET', attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 } });
    expect(call!.attributes['url.full']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/activities\/summaries$/);
    expect(partnerHeaders.map((headers) => headers.traceparent)).toEqual([`00-${TRACES.booking}-${call!.spanId}-01`]);
  });
});
