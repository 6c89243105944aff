/**
 * What pull mode costs a replica: one process (of its own, so that its peak RSS is the pull's)
 * pulls a dataset from a loopback origin into an empty cache with the server's puller
 * (server/snapshot/pull/), then polls the unchanged origin, each poll a 304. It reports its RSS
 * before, its peak RSS (getrusage's maxrss) and CPU during the fetch, and CPU per poll. Loading
 * and indexing the pulled files is the hot reload's cost, measured by bench/reload.ts.
 *
 * Run by bench/run.ts (`--no-pull` skips it); alone: `node --import tsx bench/pull.ts <dataDir>`.
 */

import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent } from 'undici';
import { pullSnapshot } from '../server/snapshot/pull/pullSnapshot.ts';

/** Polls timed after the fetch, each answered 304. */
const POLLS = 50;

export interface PullRun {
  scale: number;
  /** Bytes fetched: every file of the snapshot and its manifest. */
  bytes: number;
  files: number;
  /** RSS of the process before the pull, MB: node, the modules. */
  rssBeforeMB: number;
  /** Peak RSS of the process during the pull, MB. */
  peakRssMB: number;
  /** CPU (user + system) of the fetch, ms, and its wall time. */
  fetchCpuMs: number;
  fetchWallMs: number;
  /** CPU (user + system) of one poll answered 304, ms: the mean of {@link POLLS}. */
  pollCpuMs: number;
}

/** Serves `dir` on loopback as a static origin: ETag from size and mtime, 304 to a match, streamed bodies. */
async function serveOrigin(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const file = path.join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://origin').pathname));
    const stats = await fs.stat(file).catch(() => null);
    if (!stats?.isFile() || !file.startsWith(dir)) return void res.writeHead(404).end();
    const etag = `"${stats.size}-${stats.mtimeMs}"`;
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { etag, 'content-length': stats.size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Pulls `dataDir` (a dataset: data/ or bench/data/xN) in a process of its own and reports what
 * it took.
 *
 * @throws when the process fails
 */
export async function measurePull(scale: number, dataDir: string): Promise<PullRun> {
  const origin = await serveOrigin(path.resolve(dataDir));
  const cache = await fs.mkdtemp(path.join(tmpdir(), 'bench-pull-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', origin.url, cache], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`bench/pull.ts exited with ${code}`);
    return { scale, ...(JSON.parse(out) as Omit<PullRun, 'scale'>) };
  } finally {
    await origin.close();
    await fs.rm(cache, { recursive: true, force: true });
  }
}

/** The child: one fetch, then the polls. */
async function child(originUrl: string, cache: string): Promise<Omit<PullRun, 'scale'>> {
  const dispatcher = new Agent();
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const options = { origin: new URL(originUrl), dataDir: cache, dispatcher, fetchTimeoutMs: 600_000, maxFileBytes: 2 ** 31 - 1, publicKeys: [], keep: [] };
  const rssBeforeMB = process.memoryUsage.rss() / 2 ** 20;
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  const fetched = await pullSnapshot({ ...options, etag: null });
  const fetchCpuMs = cpuMs() - cpu0;
  const fetchWallMs = performance.now() - wall0;
  // getrusage's maxrss is in KiB on Linux.
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  if (!fetched.changed) throw new Error('the first pull found the empty cache up to date');
  const cpu1 = cpuMs();
  for (let i = 0; i < POLLS; i++) {
    const polled = await pullSnapshot({ ...options, etag: fetched.etag });
    if (polled.changed) throw new Error('a poll of the unchanged origin found a change');
  }
  const pollCpuMs = (cpuMs() - cpu1) / POLLS;
  await dispatcher.close();
  return { bytes: fetched.bytes, files: fetched.fetched, rssBeforeMB, peakRssMB, fetchCpuMs, fetchWallMs, pollCpuMs };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child') {
    process.stdout.write(JSON.stringify(await child(process.argv[3]!, process.argv[4]!)));
  } else {
    process.stdout.write(`${JSON.stringify(await measurePull(0, process.argv[2] ?? 'data'), null, 2)}\n`);
  }
}

/** The "Pull mode" section of BENCHMARKS.md. */
export function renderPull(runs: readonly PullRun[]): string[] {
  if (runs.length === 0) return [];
  const out = ['## Pull mode', ''];
  out.push(
    "One fetch of a whole dataset from a loopback origin into an empty cache with the server's puller (bench/pull.ts), in a",
    'process of its own: its RSS before, its peak RSS (getrusage) and the CPU of the fetch (download, sha256, writing the',
    `cache), then the CPU of one poll of the unchanged origin (a 304), the mean of ${POLLS}. Loading and indexing what was`,
    'pulled is the hot reload above.',
    '',
    '| Dataset | Files | MB fetched | RSS before, MB | Peak RSS, MB | Fetch CPU / wall, ms | CPU per poll, ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const run of [...runs].sort((a, b) => a.scale - b.scale)) {
    out.push(
      `| ${run.scale}x | ${run.files} | ${(run.bytes / 2 ** 20).toFixed(1)} | ${run.rssBeforeMB.toFixed(0)} | ${run.peakRssMB.toFixed(0)} | ${Math.round(run.fetchCpuMs)} / ${Math.round(run.fetchWallMs)} | ${run.pollCpuMs.toFixed(2)} |`,
    );
  }
  out.push('');
  return out;
}
