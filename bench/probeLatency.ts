/**
 * How long the probes wait under a flood of expensive requests: the figures the probe settings
 * of deploy/k8s/deployment.yaml follow from (docs/deploy.md#probes). Starts the server over the
 * committed fixture snapshot with WORKERS=1 (one process takes the whole flood), sends
 * `--clients` requests at a time for `--seconds`, alternating searches of 200 random letters
 * (as many aliases as MAX_COST lets through) and the GeoJSON of every tour, and reads /healthz
 * and /readyz every 100 ms on connections of their own. Prints the probes' latency (median,
 * 99th percentile, longest), the flood's answers by status and the requests shed.
 *
 *   node --import tsx bench/probeLatency.ts [--clients 50] [--seconds 20] [--shed-ms 100]
 *
 * `--shed-ms 0` turns load shedding off, for the figures without it.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { clients: { type: 'string', default: '50' }, seconds: { type: 'string', default: '20' }, 'shed-ms': { type: 'string', default: '100' } } });
const clients = Number(values.clients);
const seconds = Number(values.seconds);

const server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
  cwd: ROOT,
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKERS: '1', RESPONSE_CACHE: 'false', SHED_EVENT_LOOP_DELAY_MS: values['shed-ms'], STATE_DIR: mkdtempSync(path.join(tmpdir(), 'probe-state-')) },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
const port = await new Promise<number>((resolve, reject) => {
  createInterface({ input: server.stdout }).on('line', (line) => {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg?.startsWith('listening')) resolve(entry.port!);
  });
  server.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
});
const base = `http://127.0.0.1:${port}`;

function randomText(length: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz ';
  return Array.from({ length }, () => letters[Math.floor(Math.random() * letters.length)]).join('');
}

try {
  const startedAt = performance.now();
  const running = () => performance.now() - startedAt < seconds * 1000;
  const statuses = new Map<string, number>();
  const probe = async (pathname: string) => {
    const latencies: number[] = [];
    while (running()) {
      const sentAt = performance.now();
      await (await fetch(`${base}${pathname}`)).text();
      latencies.push(performance.now() - sentAt);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return latencies.sort((a, b) => a - b);
  };
  const flood = async (client: number) => {
    for (let i = 0; running(); i++) {
      const geojson = (client + i) % 2 === 1;
      const response = geojson
        ? await fetch(`${base}/api/geojson/tours?limit=5000`)
        : await fetch(`${base}/api/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: `{ ${Array.from({ length: 4 }, (_, k) => `s${k}: search(q: ${JSON.stringify(randomText(200))}, limit: 5) { total }`).join(' ')} }` }),
          });
      await response.arrayBuffer();
      const key = `${geojson ? 'geojson' : 'search'} ${response.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
  };
  const [health, ready] = await Promise.all([probe('/healthz'), probe('/readyz'), ...Array.from({ length: clients }, (_, c) => flood(c))]);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const shed = metrics.split('\n').filter((line) => line.startsWith('http_requests_shed_total{')).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  const at = (sorted: number[], p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
  console.log(`probe latency under ${clients} clients for ${seconds} s, SHED_EVENT_LOOP_DELAY_MS=${values['shed-ms']}`);
  for (const [name, sorted] of [['/healthz', health], ['/readyz', ready]] as const) {
    console.log(`  ${name}: ${sorted.length} reads, p50 ${at(sorted, 50)} ms, p99 ${at(sorted, 99)} ms, longest ${Math.round(sorted.at(-1)!)} ms`);
  }
  console.log(`  flood answers: ${[...statuses].map(([key, count]) => `${key}: ${count}`).join(', ')}; shed ${shed}`);
} finally {
  process.kill(-server.pid!, 'SIGTERM');
  await once(server, 'exit');
}
