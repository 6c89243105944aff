/**
 * What the change lists cost (`npm run bench -- --changes-only`): on a dataset of several
 * versions (`npm run fixtures -- --versions`, sync/fixtures/laterVersions.ts), the sync's time to
 * compute each version's lists, and for the server, the load time and memory of the newest version
 * with its lists against the same version with empty ones, and a `changes` answer's in-process
 * latency. bench/run.ts runs the server's part in fresh processes:
 *
 *   node --expose-gc --import tsx bench/changeLists.ts --data bench/data/x10-versions [--iterations 1000]
 *
 * and reads the JSON it prints as its last line.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Manifest } from '../sync/format.ts';
import { createSchema, readSdl } from '../server/execution/schema.ts';
import { changesResolvers } from '../server/resolvers/changes.ts';
import { zurichDay } from '../server/util/zurichDay.ts';
import { DEFAULT_SOURCE_TERMS } from '../server/config/sourceTerms.ts';
import { resolvers } from '../server/resolvers/index.ts';
import { loadSnapshot } from '../server/snapshot/load.ts';
import { createStore } from '../server/snapshot/store.ts';
import { generatorHash, STAMP_FILE, staleReason } from './datasets.ts';
import { percentile, round } from './paired.ts';

/** Versions of the dataset: the newest one's lists reach the 5 before it (the sync's default). */
export const VERSIONS = 6;

/** The sync's part, as the fixture generator printed it per later version. */
export interface SyncChangeLists {
  version: string;
  changeVersions: number;
  changeListsMs: number;
}

/** One process's figures for one data directory. */
export interface ServerChangeLists {
  dataDir: string;
  /** Earlier versions the served version's lists reach. */
  changeVersions: number;
  /** Ids in the lists, over every earlier version, locale and area. */
  ids: number;
  /** loadSnapshot (the lists' file read, checked and parsed with the rest), then createStore, in ms. */
  loadMs: number;
  indexMs: number;
  /**
   * The process's CPU time (user and system, every thread) over load and index, in ms: beside the
   * wall time, the figure that holds when other processes share the cores.
   */
  loadAndIndexCpuMs: number;
  /** Heap and array buffers grown by the loaded store, after a full GC, in MB (10^6 bytes). */
  memoryMB: number;
  /** `changes` (the resolver) on tours and stations since the oldest version covered, a page of 100; null without lists. */
  answers: { area: string; since: string; total: number; firstMs: number; p50Ms: number; p95Ms: number }[] | null;
}

const SYNC_LINE = /^version (\S+): change lists against (\d+) earlier versions in (\d+) ms$/gm;

export function versionsDir(scale: number): string {
  return `bench/data/x${scale}-versions`;
}

/**
 * Writes the dataset of {@link VERSIONS} versions at `scale` when it is missing or stale (as
 * bench/datasets.ts does), and returns what the sync reported computing its change lists.
 * @throws Error when the generator fails
 */
export function ensureVersionsDataset(scale: number, regenerate: boolean, log: (message: string) => void): SyncChangeLists[] {
  const dir = versionsDir(scale);
  const timings = path.join(dir, 'changeLists.json');
  const hash = generatorHash();
  const reason = regenerate ? 'asked by --regenerate' : staleReason(dir, hash);
  if (reason === null && fs.existsSync(timings)) return JSON.parse(fs.readFileSync(timings, 'utf8')) as SyncChangeLists[];
  log(`generating ${dir} (${reason ?? 'no timings'}): npm run fixtures -- --scale ${scale} --versions ${VERSIONS} --out ${dir}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'sync/fixtures/main.ts', '--scale', String(scale), '--versions', String(VERSIONS), '--out', dir], {
    stdio: ['ignore', 'pipe', 2],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`generating ${dir} failed (exit ${result.status ?? result.signal})`);
  const sync = [...result.stdout.matchAll(SYNC_LINE)].map(([, version, versions, ms]) => ({ version: version!, changeVersions: Number(versions), changeListsMs: Number(ms) }));
  if (sync.length !== VERSIONS - 1) throw new Error(`the fixture generator reported ${sync.length} later versions, expected ${VERSIONS - 1}`);
  fs.writeFileSync(timings, `${JSON.stringify(sync, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, STAMP_FILE), `${hash}\n`);
  return sync;
}

/**
 * The newest version of `dir` with empty change lists, in `<dir>-without`: its content files are
 * hard links of the same files, its manifest names a lists file with no earlier version.
 */
export function withoutChangeLists(dir: string): string {
  const out = `${dir}-without`;
  fs.rmSync(out, { recursive: true, force: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  for (const source of Object.values(manifest.sources)) {
    for (const files of Object.values(source?.locales ?? {})) {
      for (const file of Object.values(files ?? {})) {
        fs.mkdirSync(path.dirname(path.join(out, file.file)), { recursive: true });
        fs.linkSync(path.join(dir, file.file), path.join(out, file.file));
      }
    }
  }
  const bytes = gzipSync(`${JSON.stringify({ version: manifest.version, since: [] })}\n`);
  fs.writeFileSync(path.join(out, manifest.changes!.file), bytes);
  const changes = { file: manifest.changes!.file, count: 0, sha256: createHash('sha256').update(bytes).digest('hex') };
  fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ ...manifest, changes }, null, 2)}\n`);
  return out;
}

/** One scale's figures of `--changes-only`, as the results JSON keeps them (`changeLists`). */
export interface ChangeListsFigures {
  scale: number;
  sync: SyncChangeLists[];
  server: { with: ServerChangeLists; without: ServerChangeLists };
  /** How much longer load and index take with the lists than without, in %: wall time, then CPU time. */
  loadAndIndexPercent: number;
  loadAndIndexCpuPercent: number;
  /** How much more memory the loaded store takes with the lists than without, in %. */
  memoryPercent: number;
}

/** The run a `--changes-only` report states. */
export interface ChangeListsRun {
  date: string;
  command: string;
  commit: string;
  /** The machine's 1-minute load average before and after the run. */
  loadAverage: [number, number];
  microRuns: number;
  iterations: number;
  figures: ChangeListsFigures[];
}

/** The share of a load the change lists may add, in % (load and index time, memory). */
export const CHANGE_LISTS_MAX_PERCENT = 10;

/** The "## Change lists" section of BENCHMARKS.md. */
export function renderChangeLists(run: ChangeListsRun): string[] {
  const out = [
    '## Change lists',
    '',
    `\`${run.command}\` at \`${run.commit.slice(0, 12)}\`, ${run.date}. On a dataset of ${VERSIONS} versions published by the fixture`,
    "generator's publish code (bench/changeLists.ts): the sync's time to compute each later version's lists, then the newest",
    'version loaded by the server with its lists and with empty ones (the same content files), each figure the median of',
    `${run.microRuns} fresh processes, and \`changes\` since the oldest version covered (a page of 100), the p50 of ${run.iterations} calls.`,
    `Load average (1 min): ${run.loadAverage[0].toFixed(2)} before, ${run.loadAverage[1].toFixed(2)} after; the CPU time holds where other processes share the cores, the wall time does not.`,
    `Target: the lists add at most ${CHANGE_LISTS_MAX_PERCENT} % to the server's load and index time and to its memory.`,
    '',
    '| Dataset | Sync: lists per version, ms | Ids in the lists | Load + index wall, ms (without) | Load + index CPU, ms (without) | Memory, MB (without) | `changes` p50, ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of run.figures) {
    const { with: on, without: off } = f.server;
    const syncMs = f.sync.map((s) => s.changeListsMs);
    const answers = (on.answers ?? []).map((a) => `${a.area} ${a.p50Ms} (${a.total} ids)`).join(', ') || '—';
    out.push(
      `| ${f.scale}x | ${Math.min(...syncMs)}–${Math.max(...syncMs)} | ${on.ids} | ${Math.round(on.loadMs + on.indexMs)} (${Math.round(off.loadMs + off.indexMs)}): ${signed(f.loadAndIndexPercent)} % | ` +
        `${Math.round(on.loadAndIndexCpuMs)} (${Math.round(off.loadAndIndexCpuMs)}): ${signed(f.loadAndIndexCpuPercent)} % | ${on.memoryMB} (${off.memoryMB}): ${signed(f.memoryPercent)} % | ${answers} |`,
    );
  }
  out.push('');
  return out;
}

function signed(percent: number): string {
  return percent > 0 ? `+${percent}` : String(percent);
}

// Results land here so the optimiser cannot drop the calls being timed.
let sink: unknown;

/**
 * Measures one data directory. Call it first thing in a fresh process started with --expose-gc.
 * @throws Error without --expose-gc, or as loadSnapshot
 */
export async function measureServer(dataDir: string, iterations: number): Promise<ServerChangeLists> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run node with --expose-gc');
  const schema = createSchema(readSdl(), resolvers);
  gc();
  const before = process.memoryUsage();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const snapshot = await loadSnapshot(dataDir, schema);
  const t1 = performance.now();
  const store = createStore(snapshot);
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  gc();
  gc();
  const after = process.memoryUsage();
  const { since } = snapshot.changes;
  let ids = 0;
  for (const entry of since) for (const areas of Object.values(entry.locales)) for (const lists of Object.values(areas ?? {})) ids += lists.upserted.length + lists.deleted.length;
  const oldest = since.at(-1)?.version;
  const answers =
    oldest === undefined
      ? null
      : (['tours', 'snowdataStations'] as const).map((area) => {
          const args = { area, since: oldest, limit: 100 };
          const context = { store, today: zurichDay(Date.now()), terms: DEFAULT_SOURCE_TERMS };
          const first = performance.now();
          const { total } = changesResolvers.Query.changes(null, args, context);
          const firstMs = performance.now() - first;
          for (let i = 0; i < Math.max(200, iterations / 5); i++) sink = changesResolvers.Query.changes(null, args, context);
          const times = new Float64Array(iterations);
          for (let i = 0; i < iterations; i++) {
            const start = performance.now();
            sink = changesResolvers.Query.changes(null, args, context);
            times[i] = performance.now() - start;
          }
          times.sort();
          return { area, since: oldest, total, firstMs: round(firstMs, 3), p50Ms: round(percentile(times, 0.5), 4), p95Ms: round(percentile(times, 0.95), 4) };
        });
  return {
    dataDir,
    changeVersions: since.length,
    ids,
    loadMs: round(t1 - t0, 1),
    indexMs: round(t2 - t1, 1),
    loadAndIndexCpuMs: round((cpu.user + cpu.system) / 1000, 1),
    memoryMB: round((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 1e6, 1),
    answers,
  };
}

/** Runs {@link measureServer} on `dataDir` in a fresh process. */
export function runServerMeasure(dataDir: string, iterations: number): ServerChangeLists {
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/changeLists.ts', '--data', dataDir, '--iterations', String(iterations)], {
    stdio: ['ignore', 'pipe', 2],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`bench/changeLists.ts failed on ${dataDir} (exit ${result.status ?? result.signal})`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ServerChangeLists;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { data: { type: 'string' }, iterations: { type: 'string', default: '1000' } } });
  if (!values.data) throw new Error('--data DIR is required');
  const iterations = Number(values.iterations);
  if (!Number.isInteger(iterations) || iterations < 1) throw new Error(`--iterations must be an integer >= 1, got "${values.iterations}"`);
  process.stdout.write(`${JSON.stringify(await measureServer(values.data, iterations))}\n`);
}
