import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateUpstreamData, startUpstream, type Upstream } from '../../sync/fixtures/upstream.ts';
import { main } from '../../sync/main.ts';
import { setEnv, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlpReceiver.ts';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const PARENT_SPAN = 'eee19b7ec3c1b174';
const CLIENT = 3;

let receiver: OtlpReceiver;
let upstream: Upstream;
let dataDir: string;
let exitCode: number;

function sink(): NodeJS.WriteStream {
  return new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;
}

// The CLI runs once with tracing on; it exports its spans before it returns.
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startUpstream(generateUpstreamData(2026, 0.05));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sync-traced-'));
  const restoreEnv = setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  try {
    const env = { ...upstream.env, TRACEPARENT: `00-${TRACE_ID}-${PARENT_SPAN}-01` };
    exitCode = await main(['tours', 'attractions', '--locales', 'de-CH', '--data-dir', dataDir], env, { stdout: sink(), stderr: sink() }, 'sync');
  } finally {
    restoreEnv();
  }
});

afterAll(async () => {
  await upstream.close();
  await receiver.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('tracing of a sync run over OTLP', () => {
  it('continues the TRACEPARENT of the run with a span per source and a client span per upstream request', () => {
    expect(exitCode).toBe(0);
    const spans = receiver.spans.filter((span) => span.traceId === TRACE_ID);
    const run = spans.find((span) => span.name === 'sync')!;
    expect(run).toMatchObject({ parentSpanId: PARENT_SPAN, serviceName: 'tourism-content-sync', attributes: { 'sync.sources': ['tours', 'attractions'], 'sync.locales': ['de-CH'] } });
    const sources = spans.filter((span) => span.parentSpanId === run.spanId);
    expect(sources.map((span) => [span.name, span.attributes['sync.source']]).sort()).toEqual([
      ['sync attractions', 'attractions'],
      ['sync tours', 'tours'],
    ]);
    for (const source of sources) {
      const requests = spans.filter((span) => span.parentSpanId === source.spanId);
      const path = `/myswitzerland/v1/${source.attributes['sync.source']}`;
      // One span per request the upstream received for this source: its list, and the tours' lines.
      expect(requests.length).toBe(upstream.requests.filter((request) => request.path === path || request.path.startsWith(`${path}/`)).length);
      for (const request of requests) {
        expect(request).toMatchObject({ kind: CLIENT, name: 'GET', attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 } });
        expect(request.attributes['url.full']).toContain(path);
      }
      expect(requests.length).toBeGreaterThan(1);
    }
  });

  it('never records an upstream key in a span', () => {
    const keys = Object.entries(upstream.env).filter(([name]) => name.endsWith('_KEY')).map(([, value]) => value);
    expect(keys.length).toBeGreaterThan(0);
    const recorded = JSON.stringify(receiver.spans);
    for (const key of keys) expect(recorded).not.toContain(key);
  });
});
