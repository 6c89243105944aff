/**
 * Tracing of the real server as a process (`node dist/server.mjs`, the bundle) in booking proxy
 * mode, alone and as a cluster (WORKERS=2): the request span and the partner call are one trace,
 * and the spans are exported when the processes drain on SIGTERM (the batch processor would
 * otherwise hold them for seconds).
 */

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../../helpers/api.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../helpers/otlpReceiver.ts';
import { startServerProcess } from '../../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

const PARENT_SPAN = 'c3c1b174eee19b7e';
const SERVER = 2;
const CLIENT = 3;

let snapshot: TinySnapshot;
let receiver: OtlpReceiver;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver.close();
  await snapshot.remove();
});

/** What a traced booking call through a server process left: its answer, exit code, spans and what the partner received. */
interface TracedCall {
  status: number;
  exitCode: number | null;
  spans: ReceivedSpan[];
  partnerHeaders: IncomingHttpHeaders[];
}

/** Starts the server with `workers`, sends one booking call with a traceparent of `traceId`, then stops it with SIGTERM. */
async function tracedCall(workers: number, traceId: string): Promise<TracedCall> {
  const partnerHeaders: IncomingHttpHeaders[] = [];
  const partner = createServer((req, res) => {
    partnerHeaders.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  partner.listen(0, '127.0.0.1');
  await once(partner, 'listening');
  const server = startServerProcess({
    WORKERS: String(workers),
    DATA_DIR: snapshot.dir,
    STATE_DIR: tempStateDir(),
    BOOKING_UPSTREAM_URL: `http://127.0.0.1:${(partner.address() as AddressInfo).port}`,
    BOOKING_API_KEY: 'key',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  });
  try {
    const { port } = await server.loggedMsg(workers === 1 ? 'listening' : `${workers} workers listening`);
    const answer = await fetch(`http://127.0.0.1:${port}/v1/activities`, { headers: { traceparent: `00-${traceId}-${PARENT_SPAN}-01` } });
    await answer.arrayBuffer();
    server.child.kill('SIGTERM');
    const [exitCode] = await server.exited;
    return { status: answer.status, exitCode, spans: receiver.spans.filter((span) => span.traceId === traceId), partnerHeaders };
  } finally {
    server.child.kill('SIGKILL');
    partner.close();
  }
}

describe('tracing of the server as a process', () => {
  it.each([
    ['one process', 1, '5b8efff7980381033d269b633813fc60'],
    ["a cluster, the primary calling the partner for its worker's request", 2, '3d269b633813fc605b8efff798038103'],
  ])('exports the request span and the partner call of one trace when it drains: %s', async (_name, workers, traceId) => {
    const call = await tracedCall(workers, traceId);
    expect(call.status).toBe(200);
    expect(call.exitCode).toBe(0);
    const request = call.spans.find((span) => span.kind === SERVER)!;
    expect(request).toMatchObject({ name: 'GET /v1', parentSpanId: PARENT_SPAN, serviceName: 'tourism-content-query-service' });
    const partnerCall = call.spans.find((span) => span.kind === CLIENT)!;
    expect(partnerCall).toMatchObject({ parentSpanId: request.spanId, attributes: { 'http.response.status_code': 200 } });
    expect(call.partnerHeaders.map((headers) => headers.traceparent)).toEqual([`00-${traceId}-${partnerCall.spanId}-01`]);
  });
});
