/**
 * Tracing in a real cluster (WORKERS=2, `node --import tsx server/main.ts`) in booking proxy
 * mode: the worker's request span and the primary's partner call are one trace, and every
 * process exports its spans when it drains.
 */

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../../helpers/api.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../helpers/otlpReceiver.ts';
import { startServerProcess } from '../../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

const TRACE_ID = '3d269b633813fc605b8efff798038103';
const PARENT_SPAN = 'c3c1b174eee19b7e';
const SERVER = 2;
const CLIENT = 3;

let snapshot: TinySnapshot;
let receiver: OtlpReceiver;
const partnerHeaders: IncomingHttpHeaders[] = [];
let status: number;
let exitCode: number | null;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  receiver = await startOtlpReceiver();
  const partner = createServer((req, res) => {
    partnerHeaders.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  partner.listen(0, '127.0.0.1');
  await once(partner, 'listening');
  const cluster = startServerProcess({
    WORKERS: '2',
    DATA_DIR: snapshot.dir,
    STATE_DIR: tempStateDir(),
    BOOKING_UPSTREAM_URL: `http://127.0.0.1:${(partner.address() as AddressInfo).port}`,
    BOOKING_API_KEY: 'key',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  });
  try {
    const { port } = await cluster.loggedMsg('2 workers listening');
    const answer = await fetch(`http://127.0.0.1:${port}/v1/activities`, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` } });
    await answer.arrayBuffer();
    status = answer.status;
  } finally {
    cluster.child.kill('SIGTERM');
    [exitCode] = await cluster.exited;
    partner.close();
  }
});

afterAll(async () => {
  await receiver.close();
  await snapshot.remove();
});

describe('tracing of a cluster', () => {
  it("makes the worker's request and the primary's partner call one trace, and exports it on the way out", () => {
    expect(status).toBe(200);
    expect(exitCode).toBe(0);
    const spans = receiver.spans.filter((span) => span.traceId === TRACE_ID);
    const request = spans.find((span) => span.kind === SERVER)!;
    expect(request).toMatchObject({ name: 'GET /v1', parentSpanId: PARENT_SPAN });
    const call = spans.find((span) => span.kind === CLIENT)!;
    expect(call).toMatchObject({ parentSpanId: request.spanId, attributes: { 'http.response.status_code': 200 } });
    expect(partnerHeaders.map((headers) => headers.traceparent)).toEqual([`00-${TRACE_ID}-${call.spanId}-01`]);
  });
});
