/**
 * The hot-reload scenario: a new snapshot version is published into the data directory a
 * server is serving, as the sync does (version directory first, then the manifest by rename),
 * and the server loads and swaps it in while requests keep arriving: the longest and the p99
 * latency then, against the same load without a reload. The served directory is a copy of the
 * dataset, so the committed one is never touched.
 */

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { type ChangeLists, type FileEntry, geometryPath, type Manifest, type SourceEntry, type SourceName } from '../sync/format.ts';
import { percentile, round } from './paired.ts';
import type { TargetCheck } from './reportTypes.ts';
import type { BenchRequest } from './scenarios.ts';

/**
 * Copies the snapshot a dataset's manifest points at (its version directory and the manifest)
 * into a new temporary directory.
 * @returns the copy's path; the caller removes it
 */
export async function copyDataset(dataDir: string): Promise<string> {
  const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-reload-'));
  const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')) as Manifest;
  await fs.cp(path.join(dataDir, manifest.version), path.join(copy, manifest.version), { recursive: true });
  await fs.copyFile(path.join(dataDir, 'manifest.json'), path.join(copy, 'manifest.json'));
  return copy;
}

/**
 * Publishes the served snapshot again as version `version`: its files copied into a directory of
 * that name, then a manifest naming them renamed over the served one, the sync's commit point.
 * The files of the `changed` sources get a newline ahead of their JSON, a gzip member of its own,
 * so that their sha256 differs and their records do not: the server keeps the records and
 * indexes of a file unchanged since the snapshot it serves, so it loads, checks and indexes these
 * again, as after a sync of those sources. The others are copied as they are, as a sync carries
 * the sources it did not fetch.
 * @param changed default every source
 */
export async function publishVersion(dataDir: string, version: string, changed: ChangedSources = 'all'): Promise<void> {
  const manifestPath = path.join(dataDir, 'manifest.json');
  const manifest = JSON.parse(await fs.readFile(manifestPath, 'utf8')) as Manifest;
  await fs.cp(path.join(dataDir, manifest.version), path.join(dataDir, version), { recursive: true });
  const from = `${manifest.version}/`;
  for (const [name, source] of Object.entries(manifest.sources) as [SourceName, SourceEntry][]) {
    for (const areas of Object.values(source.locales)) {
      for (const entry of Object.values(areas ?? {}) as FileEntry[]) {
        if (!entry.file.startsWith(from)) continue;
        entry.file = `${version}/${entry.file.slice(from.length)}`;
        if (changed !== 'all' && !changed.includes(name)) continue;
        const bytes = Buffer.concat([LEADING_NEWLINE, await fs.readFile(path.join(dataDir, entry.file))]);
        await fs.writeFile(path.join(dataDir, entry.file), bytes);
        entry.sha256 = createHash('sha256').update(bytes).digest('hex');
      }
    }
  }
  const changes = await nextChangeLists(dataDir, manifest, version);
  const geometry = manifest.geometry && (await nextGeometry(dataDir, manifest.geometry, version));
  await fs.writeFile(`${manifestPath}.tmp`, JSON.stringify({ ...manifest, version, changes, ...(geometry && { geometry }) }));
  await fs.rename(`${manifestPath}.tmp`, manifestPath);
}

/**
 * The change lists of `version`, whose records are those of the served version: nothing changed
 * since it, and since each earlier version what the served one's lists say, as many as the sync
 * keeps (its default). Written as `<version>/changes.json.gz`; returns the manifest's entry.
 */
async function nextChangeLists(dataDir: string, manifest: Manifest, version: string): Promise<FileEntry> {
  const served = JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, manifest.changes!.file))).toString('latin1')) as ChangeLists;
  const since = [{ version: manifest.version, createdAt: manifest.createdAt, locales: {} }, ...served.since].slice(0, CHANGE_VERSIONS);
  const bytes = gzipSync(`${JSON.stringify({ version, since })}\n`);
  const file = `${version}/changes.json.gz`;
  await fs.writeFile(path.join(dataDir, file), bytes);
  return { file, count: since.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The tours' lines of `version`: the served version's, in a file that names `version` as the one
 * it belongs to, as the sync writes it for each version. Returns the manifest's entry.
 */
async function nextGeometry(dataDir: string, served: FileEntry, version: string): Promise<FileEntry> {
  const text = gunzipSync(await fs.readFile(path.join(dataDir, served.file))).toString('latin1');
  const lines = text.replace(/^\{"version":"[^"]*"/, `{"version":${JSON.stringify(version)}`);
  const bytes = gzipSync(lines);
  const file = geometryPath(version);
  await fs.writeFile(path.join(dataDir, file), bytes);
  return { file, count: served.count, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Earlier versions a version's change lists reach by default (the sync's --changes). */
const CHANGE_VERSIONS = 5;

/** The sources whose files a published version changes: every source, or these. */
export type ChangedSources = 'all' | readonly SourceName[];

/** A gzip member of one newline: JSON allows it ahead of a file's array. */
const LEADING_NEWLINE = gzipSync('\n');

/** Latency of the 2xx answers of one load run, in ms. */
export interface ReloadLatency {
  maxMs: number;
  p99Ms: number;
  /** 2xx answers. */
  ok: number;
  /** Other statuses, errors and timeouts: a valid run has none. */
  failed: number;
  durationS: number;
}

/** The reload scenario at one scale: per round, a load run with a reload and one without. */
export interface ReloadRun {
  scale: number;
  /** The sources whose files each published version changed (see {@link publishVersion}). */
  changed: ChangedSources;
  rounds: {
    baseline: ReloadLatency;
    /**
     * `servedAfterMs`: from the publish until /api/status named the new version (polled every
     * 100 ms; the watcher's debounce included). `reloadMs` and `longestDelayMs`: the server's own
     * figures, from its log at info (null otherwise).
     */
    reload: ReloadLatency & { servedAfterMs: number; reloadMs: number | null; longestDelayMs: number | null };
  }[];
  /** Worst over the rounds: the largest max and the largest p99 of each side. */
  baseline: { maxMs: number; p99Ms: number };
  reload: { maxMs: number; p99Ms: number; longestDelayMs: number | null };
}

/** What {@link measureReload} needs. */
export interface ReloadOptions {
  scale: number;
  /**
   * The real server, started on a copy of the dataset (see {@link copyDataset}); its reload's
   * time and longest event-loop delay are read from its output at LOG_LEVEL info or lower.
   */
  server: { url: string; output(): string };
  /** Its data directory, where new versions are published. */
  dataDir: string;
  requests: readonly BenchRequest[];
  connections: number;
  rounds: number;
  /** The shortest load run, in s. */
  durationS: number;
  /** The longest a reload may take, in ms. */
  timeoutMs: number;
  /** The sources whose files each published version changes; default every source. */
  changed?: ChangedSources;
}

/**
 * Paired runs: in each round, a load run during which a new version is published and swapped
 * in (from just before the publish until the server serves it, plus a short tail), then a load
 * run as long without one.
 */
export async function measureReload(options: ReloadOptions): Promise<ReloadRun> {
  const rounds: ReloadRun['rounds'] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const version = `bench-reload-${Date.now()}-${round}`;
    let done = null as { ms: number; longestDelayMs: number } | null;
    let servedAfterMs = 0;
    const reload = await loadRun(options, options.durationS, async () => {
      await sleep(RELOAD_LEAD_MS);
      await publishVersion(options.dataDir, version, options.changed);
      const publishedAt = performance.now();
      const deadline = publishedAt + options.timeoutMs;
      while ((await servedVersion(options.server.url)) !== version) {
        if (performance.now() > deadline) throw new Error(`version ${version} was not served within ${options.timeoutMs} ms`);
        await sleep(100);
      }
      servedAfterMs = performance.now() - publishedAt;
      // Read at once: the output kept is a tail, which the server's other lines push on.
      for (let tries = 0; done === null && tries < RELOAD_LEAD_MS / 50; tries++) {
        done = reloadDone(options.server.output(), version);
        if (done === null) await sleep(50);
      }
      await sleep(RELOAD_LEAD_MS);
    });
    const baseline = await loadRun(options, reload.durationS);
    rounds.push({ baseline, reload: { ...reload, servedAfterMs: Math.round(servedAfterMs), reloadMs: done?.ms ?? null, longestDelayMs: done?.longestDelayMs ?? null } });
  }
  const worst = (pick: (run: ReloadRun['rounds'][number]) => number | null) => {
    const values = rounds.map(pick).filter((value): value is number => value !== null);
    return values.length === 0 ? null : Math.max(...values);
  };
  return {
    scale: options.scale,
    changed: options.changed ?? 'all',
    rounds,
    baseline: { maxMs: worst((r) => r.baseline.maxMs)!, p99Ms: worst((r) => r.baseline.p99Ms)! },
    reload: { maxMs: worst((r) => r.reload.maxMs)!, p99Ms: worst((r) => r.reload.p99Ms)!, longestDelayMs: worst((r) => r.reload.longestDelayMs) },
  };
}

/** Load before the publish and after the swap, so that the whole reload is under load. */
const RELOAD_LEAD_MS = 500;

/**
 * Sends the requests until `during` has finished and at least `minS` seconds have passed.
 * @returns the latencies of the run
 */
async function loadRun(options: ReloadOptions, minS: number, during: () => Promise<void> = async () => {}): Promise<ReloadLatency> {
  const instance = autocannon({
    url: options.server.url,
    connections: options.connections,
    // Stopped below; the duration only bounds a run whose reload never ends.
    duration: minS + options.timeoutMs / 1000,
    timeout: 10,
    requests: options.requests.map(({ method, path, headers, body }) => (body === '' ? { method, path, headers } : { method, path, headers, body })),
  });
  const latenciesMs: number[] = [];
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
  });
  const startedAt = performance.now();
  try {
    await during();
    const left = minS * 1000 - (performance.now() - startedAt);
    if (left > 0) await sleep(left);
  } finally {
    instance.stop();
  }
  const result = await instance;
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    maxMs: round(sorted.at(-1) ?? 0, 1),
    p99Ms: round(percentile(sorted, 0.99), 1),
    ok: sorted.length,
    failed: result.non2xx + result.errors + result.timeouts,
    durationS: round((performance.now() - startedAt) / 1000, 3),
  };
}

async function servedVersion(url: string): Promise<string | null> {
  const response = await fetch(`${url}/api/status`);
  if (!response.ok) return null;
  return ((await response.json()) as { snapshot: { version: string } }).snapshot.version;
}

/** The server's "reload done" log line for `version` in its output, if it is still there. */
function reloadDone(output: string, version: string): { ms: number; longestDelayMs: number } | null {
  for (const line of output.split('\n').reverse()) {
    if (!line.includes(`"serving new snapshot ${version}`)) continue;
    try {
      const entry = JSON.parse(line) as { ms?: unknown; longestDelayMs?: unknown };
      if (typeof entry.ms === 'number' && typeof entry.longestDelayMs === 'number') return { ms: entry.ms, longestDelayMs: entry.longestDelayMs };
    } catch {
      // A line cut by the output's tail.
    }
  }
  return null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The reload targets: the largest latency may grow by this much over the baseline's, in ms, by scale (others: the 10x figure). */
const MAX_GROWTH_MS: Readonly<Record<number, number>> = { 1: 50, 10: 100 };
/** The p99 may grow by this much over the baseline's, in ms. */
const P99_GROWTH_MS = 5;

/** The Targets table's rows for the reload runs of a version whose every file changed, the reload that costs most. */
export function reloadChecks(runs: readonly ReloadRun[]): TargetCheck[] {
  return runs.flatMap((run) => {
    if (run.changed !== 'all') return [];
    const maxGrowthMs = MAX_GROWTH_MS[run.scale] ?? MAX_GROWTH_MS[10]!;
    const figure = `hot reload, ${run.scale}x, mix, 1 worker`;
    const note = run.reload.longestDelayMs === null ? null : `longest event-loop delay during the reload ${run.reload.longestDelayMs} ms`;
    const maxGrowth = round(run.reload.maxMs - run.baseline.maxMs, 1);
    const p99Growth = round(run.reload.p99Ms - run.baseline.p99Ms, 1);
    return [
      {
        target: `during a reload: max latency ≤ baseline max + ${maxGrowthMs} ms`,
        figure,
        value: `${run.reload.maxMs} ms (baseline ${run.baseline.maxMs} ms)`,
        measured: maxGrowth,
        higherIsBetter: false,
        met: maxGrowth <= maxGrowthMs,
        note,
      },
      {
        target: `during a reload: p99 ≤ baseline p99 + ${P99_GROWTH_MS} ms`,
        figure,
        value: `${run.reload.p99Ms} ms (baseline ${run.baseline.p99Ms} ms)`,
        measured: p99Growth,
        higherIsBetter: false,
        met: p99Growth <= P99_GROWTH_MS,
        note: null,
      },
    ];
  });
}

/** BENCHMARKS.md's section on the reload runs; none without them. */
export function renderReload(runs: readonly ReloadRun[]): string[] {
  if (runs.length === 0) return [];
  const out = ['## Hot reload', ''];
  out.push(
    'The mix on a one-worker server while a new snapshot version is published into its data directory and swapped in',
    '(bench/reload.ts), against a run as long without a reload, in turns. Each row is the worst round. The event-loop',
    "delay is the server's own (its \"reload done\" log line, perf_hooks.monitorEventLoopDelay), n/a unless the bench ran",
    'with `--log-level info`, which also logs every request. "New version served after" runs from the publish until',
    "`/api/status` names the new version (the watcher's 250 ms debounce included), over the rounds; the last column",
    "is the reload runs' rate of answers against their baselines', over the rounds. \"Files changed\": every file of the",
    'new version differs from the served one (the targets), or those of one source only, as after one of its syncs: the',
    'server keeps the records and indexes of the files it already has.',
    '',
    '| dataset | files changed | max, reload | max, baseline | p99, reload | p99, baseline | longest event-loop delay | new version served after | answers/s, reload ÷ baseline |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const run of runs) {
    const servedAfter = run.rounds.map((r) => r.reload.servedAfterMs);
    const delay = run.reload.longestDelayMs === null ? 'n/a' : `${run.reload.longestDelayMs} ms`;
    const rates = run.rounds.map((r) => r.reload.ok / r.reload.durationS / (r.baseline.ok / r.baseline.durationS));
    out.push(
      `| ${run.scale}x | ${changedLabel(run.changed)} | ${run.reload.maxMs} ms | ${run.baseline.maxMs} ms | ${run.reload.p99Ms} ms | ${run.baseline.p99Ms} ms | ${delay} | ${integer(Math.min(...servedAfter))}–${integer(Math.max(...servedAfter))} ms | ${percent(Math.min(...rates))}–${percent(Math.max(...rates))} |`,
    );
  }
  out.push('');
  return out;
}

/** What a version changed, as the report and the run's log name it. */
export function changedLabel(changed: ChangedSources): string {
  return changed === 'all' ? 'every source' : `${changed.join(', ')} only`;
}

function percent(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}

function integer(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
