/**
 * What tracing costs: each scenario against two real servers started side by side with one
 * worker, one with tracing off and one exporting the spans of every request
 * (`OTEL_TRACES_SAMPLER=always_on`) to a loopback OTLP receiver in this process that accepts
 * and drops them, measured in turns as the real server and its raw twin are (bench/paired.ts).
 */

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SampleQuery } from '../server/ops/sampleQueries.ts';
import { runPaired, warmUp, type PairedResult } from './paired.ts';
import { planRuns, type BenchRequest } from './scenarios.ts';
import { groupCpuSeconds, startRealServer, type RealServer } from './servers.ts';

/** The environment that turns tracing on, every request sampled; the endpoint is the receiver's. */
function tracingEnv(endpoint: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'always_on' };
}

/** One scenario measured with tracing on (the "real" side of {@link PairedResult}) against off (its "raw" side). */
export interface TracingRun {
  scenario: string;
  responseCache: boolean;
  /** `ratio`: req/s with tracing on ÷ req/s with it off. */
  paired: PairedResult | null;
  /** OTLP export requests and their bytes the receiver got during the scenario. */
  exports: { requests: number; bytes: number };
  error: string | null;
}

/** The tracing section of a bench run: its own conditions, since it may run alone (`--tracing-only`). */
export interface TracingReport {
  date: string;
  command: string;
  durationS: number;
  commit: string;
  /** 1-minute load average before and after the section: other work on the machine. */
  loadAverageBefore: number;
  loadAverageAfter: number;
  options: { rounds: number; durationS: number; warmupS: number; serverWarmupS: number; connections: number; scale: number };
  runs: TracingRun[];
}

export interface TracingOptions {
  scenarios: readonly string[];
  rounds: number;
  durationS: number;
  warmupS: number;
  serverWarmupS: number;
  connections: number;
  logLevel: string;
  dataDir: string;
  timeoutMs: number;
  /** The server's sample queries, which the scenarios' requests are built from. */
  fetchSamples: (url: string) => Promise<SampleQuery[]>;
  log: (message: string) => void;
}

/** A loopback OTLP/HTTP receiver that answers every export with 200 and drops it, counting what it got. */
async function startOtlpSink(): Promise<{ url: string; counts: { requests: number; bytes: number }; close(): void }> {
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts, close: () => server.close() };
}

/** Measures every scenario of the one-worker runs at 1x, with the response cache off and on, tracing on against off. */
export async function measureTracing(options: TracingOptions): Promise<TracingRun[]> {
  const { log } = options;
  const sink = await startOtlpSink();
  const runs: TracingRun[] = [];
  try {
    for (const { setup, scenarios } of planRuns([1], 1, options.scenarios)) {
      const settings = { RESPONSE_CACHE: setup.responseCache ? '1' : '0', WORKERS: '1' };
      log(`tracing: RESPONSE_CACHE=${settings.RESPONSE_CACHE}, WORKERS=1, a server with tracing off beside one with every request traced`);
      const servers: RealServer[] = [];
      let startError: string | null = null;
      try {
        for (const extra of [{}, tracingEnv(sink.url)]) {
          servers.push(await startRealServer({ dataDir: options.dataDir, logLevel: options.logLevel, settings: { ...settings, ...extra }, timeoutMs: options.timeoutMs }));
        }
      } catch (error) {
        startError = (error as Error).message;
        log(`  cannot start: ${startError}`);
      }
      try {
        const [off, on] = servers;
        const samples = off ? await options.fetchSamples(off.url) : [];
        if (off && on && options.serverWarmupS > 0) {
          for (const scenario of scenarios) {
            let requests: BenchRequest[];
            try {
              requests = scenario.requests(samples);
            } catch {
              continue;
            }
            for (const server of [off, on]) await warmUp(server.url, requests, options.connections, options.serverWarmupS / scenarios.length, scenario.unseen);
          }
        }
        for (const scenario of scenarios) {
          const run: TracingRun = { scenario: scenario.name, responseCache: setup.responseCache, paired: null, exports: { requests: 0, bytes: 0 }, error: startError };
          runs.push(run);
          if (!off || !on) continue;
          try {
            const before = { ...sink.counts };
            run.paired = await runPaired({
              realUrl: on.url,
              rawUrl: off.url,
              requests: scenario.requests(samples),
              connections: options.connections,
              rounds: options.rounds,
              durationS: options.durationS,
              warmupS: options.warmupS,
              unseen: scenario.unseen ?? false,
              realCpuS: () => groupCpuSeconds(on.child),
              rawCpuS: () => groupCpuSeconds(off.child),
            });
            run.exports = { requests: sink.counts.requests - before.requests, bytes: sink.counts.bytes - before.bytes };
            const { ratio, real, raw, cpu } = run.paired;
            log(
              `  ${scenario.name}: traced ${(ratio * 100).toFixed(1)} % of untraced; on ${Math.round(real.reqPerS)} req/s p50 ${real.p50Ms} p99 ${real.p99Ms} ms; ` +
                `off ${Math.round(raw.reqPerS)} req/s p50 ${raw.p50Ms} p99 ${raw.p99Ms} ms` +
                (cpu ? `; CPU per answer on ${cpu.real.serverUs} µs, off ${cpu.raw.serverUs} µs` : '') +
                `; ${run.exports.requests} exports, ${Math.round(run.exports.bytes / 1024)} KiB`,
            );
          } catch (error) {
            run.error = (error as Error).message;
            log(`  ${scenario.name}: ${run.error}`);
          }
        }
      } finally {
        for (const server of servers) await server.child.stop();
      }
    }
  } finally {
    sink.close();
  }
  return runs;
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

/** The "Tracing" section of BENCHMARKS.md, as lines. */
export function renderTracing(report: TracingReport): string[] {
  const out: string[] = ['## Tracing', ''];
  const { options } = report;
  out.push(
    'Each scenario at 1x against two real servers (`WORKERS=1`) started side by side: one with tracing off, as it runs',
    'unless an `OTEL_*` variable turns it on, and one with `OTEL_EXPORTER_OTLP_ENDPOINT` set and `OTEL_TRACES_SAMPLER=always_on`,',
    'exporting every span (server, GraphQL and its steps) to a loopback OTLP receiver in the harness that drops them. They are',
    'measured in turns, as the real server and its twin are. **Traced** = req/s with tracing on ÷ req/s with it off (min–max of the',
    'rounds in brackets); CPU is per answer over the rounds, of the server alone. Off, the server is the one measured in the sections above.',
    '',
    '| | |',
    '|---|---|',
    `| Date | ${report.date} |`,
    `| Command | \`${report.command}\` (${Math.round(report.durationS)} s) |`,
    `| Commit | \`${report.commit.slice(0, 12)}\` |`,
    `| Load average (1 min) | ${report.loadAverageBefore.toFixed(2)} before, ${report.loadAverageAfter.toFixed(2)} after |`,
    `| Runs | ${options.connections} connections; after each server start ${options.serverWarmupS} s of the scenarios' requests; per scenario a warm-up of ${options.warmupS} s per side, then ${options.rounds} round${options.rounds === 1 ? '' : 's'} × ${options.durationS} s per side |`,
    '',
    '| Scenario | Response cache | Traced | Off: req/s, p50 / p99 ms | On: req/s, p50 / p99 ms | CPU per answer off / on (µs) | Exports (KiB) |',
    '|---|---|---|---|---|---|---|',
  );
  for (const run of report.runs) {
    const cache = run.responseCache ? 'on' : 'off';
    if (!run.paired) {
      out.push(`| ${run.scenario} | ${cache} | n/a: ${(run.error ?? 'not measured').replace(/\|/g, '\\|').replace(/\n/g, ' ')} | | | | |`);
      continue;
    }
    const { ratio, roundRatios, real, raw, cpu } = run.paired;
    out.push(
      `| ${run.scenario} | ${cache} | ${percent(ratio)} (${percent(Math.min(...roundRatios))}–${percent(Math.max(...roundRatios))}) | ` +
        `${Math.round(raw.reqPerS)}, ${raw.p50Ms} / ${raw.p99Ms} | ${Math.round(real.reqPerS)}, ${real.p50Ms} / ${real.p99Ms} | ` +
        `${cpu ? `${cpu.raw.serverUs} / ${cpu.real.serverUs}` : 'n/a'} | ${run.exports.requests} (${Math.round(run.exports.bytes / 1024)}) |`,
    );
  }
  out.push('');
  return out;
}
