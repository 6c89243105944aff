/**
 * The results of `npm run bench`: their shape (bench/results.json), the performance targets
 * checked against them, and BENCHMARKS.md rendered from them.
 */

import fs from 'node:fs/promises';
import { renderTracing, type TracingReport } from './tracing.ts';
import type { MicroResult } from './micro.ts';
import type { CpuCost, PairedResult } from './paired.ts';
import type { HttpRun, TargetCheck } from './reportTypes.ts';
import { reloadChecks, renderReload, type ReloadRun } from './reload.ts';
import { renderPull, type PullRun } from './pull.ts';
import type { ServerSetup } from './scenarios.ts';
import type { SettingProbe } from './servers.ts';
import type { PeerInfo } from './peers/peers.ts';
import { checkPeers, peerCells, peerColumns, peersFigure, peersIntro } from './peers/report.ts';

export interface BenchResults {
  date: string;
  command: string;
  /** Wall time of the whole run, in s. */
  durationS: number;
  machine: {
    cpuModel: string;
    cpus: number;
    totalMemoryGB: number;
    platform: string;
    node: string;
    /** 1-minute load average before and after the run: other work on the machine. */
    loadAverageBefore: number;
    loadAverageAfter: number;
  };
  git: {
    commit: string;
    /** Files under server/ that differ from the commit: the server measured is the working tree. */
    uncommittedServerFiles: string[];
  };
  options: {
    quick: boolean;
    rounds: number;
    durationS: number;
    warmupS: number;
    serverWarmupS: number;
    connections: number;
    /** Per side, seconds of the CPU-per-answer run at a fixed rate (0: not measured). */
    cpuDurationS: number;
    scales: number[];
    logLevel: string;
    iterations: number;
    /** Fresh processes per dataset for the in-process figures (each figure the median of them). */
    microRuns: number;
  };
  /** How the real server runs. */
  server: string;
  loadGenerator: string;
  settings: SettingProbe[];
  /** The peers measured beside the real server (bench/peers/), with their versions; absent from older results. */
  peers?: PeerInfo[];
  datasets: { scale: number; dir: string; version: string; records: number }[];
  http: HttpRun[];
  /** The scaling of the CPU-bound scenarios, one worker and every core measured in turns. */
  scaling: PairedScaling[];
  /** The hot-reload scenario per scale (bench/reload.ts); absent in results written before it. */
  reload?: ReloadRun[];
  /** Tracing on against off (bench/tracing.ts); absent when skipped, or in results written before it. */
  tracing?: TracingReport;
  /** Pull mode's fetch and poll per scale (bench/pull.ts); absent when skipped, or in results written before it. */
  pull?: PullRun[];
  micro: (MicroResult & { scale: number })[];
  targets: TargetCheck[];
}

/**
 * A CPU-bound scenario (see {@link cpuBoundShare}) measured again on two real servers started
 * side by side, one worker and every core, in turns as the real server and its twin are: the
 * ratio of two runs minutes apart, as the table of scaling gives it, moves with whatever else
 * the machine did in between.
 */
export interface PairedScaling {
  scenario: string;
  scale: number;
  /** Workers of the server with every core. */
  workers: number;
  /** The one-worker run's {@link cpuBoundShare}, which made the scenario CPU-bound. */
  cpuBoundShare: number;
  /** `real` is the server with every core, `raw` the server with one worker; `ratio` is the scaling. */
  paired: PairedResult | null;
  /** Processes in the group of the server with every core (primary and workers); null when unknown. */
  serverProcesses: number | null;
  error: string | null;
}

/**
 * What the load generator's place on the same cores costs the scaling figure, from the CPU each
 * answer took with every core (server and load generator, measured over the rounds in turns):
 * the load generator's share of that CPU, and the scaling to expect were it elsewhere, the every-core
 * server then having the cores to itself at the same CPU per answer: cores ÷ that CPU ÷ one
 * worker's req/s (one worker's rate is its main thread's, whatever runs on the other cores). An
 * estimate, not a measurement: the kernel's loopback work outside any process is not counted.
 * Null without the CPU figures.
 */
export function loadGeneratorCost(row: PairedScaling): { share: number; scalingWithoutIt: number } | null {
  const cpu = row.paired?.cpu;
  if (!cpu || row.paired!.raw.reqPerS === 0) return null;
  const { serverUs, loadGeneratorUs } = cpu.real;
  return {
    share: loadGeneratorUs / (serverUs + loadGeneratorUs),
    scalingWithoutIt: row.workers / (serverUs / 1e6) / row.paired!.raw.reqPerS,
  };
}

const UNCACHED_RATIO = 0.4;
const UNCACHED_P99_MS = 10;
const CACHED_RATIO = 0.9;
const CACHED_P99_SLACK_MS = 2;
const SCALING = 1.6;
/**
 * A scenario is CPU-bound, for the scaling target, when the raw twin needs at most this share of
 * the CPU one worker takes per answer ({@link cpuBoundShare}). The load generator (autocannon,
 * one thread) shares the two cores with the server and needs about as much CPU per request as
 * the raw twin: where the server needs less than four times that, the load generator's share of
 * the cores, not a second worker, decides the throughput.
 */
export const CPU_BOUND_RATIO = 0.25;
const UNSEEN_NOTE = 'not held to it: every request is a document the server has not seen lately, where the target is of one document asked again';
const SELECTIVE_P50_MS = 0.2;
const COMMON_P95_MS = 5;
/** `search` across areas, per keystroke of a search box: one to three words at 10x. */
const SEARCH_ACROSS_P50_MS = 0.2;
const NEAR_P50_MS = 0.05;
/** A filtered, sorted and faceted first page of tours (bench/micro.ts facetedPage) at 10x. */
const FACETED_P50_MS = 0.5;
const COLD_START_MS_PER_20K = 2000;
const MEMORY_MB_PER_20K = 100;

/** The share of {@link cpuBoundShare}, and what it is a share of: CPU per answer, or req/s where CPU was not measured. */
export interface CpuBound {
  share: number;
  of: 'cpu' | 'rate';
}

/**
 * The share that decides whether a scenario is CPU-bound ({@link CPU_BOUND_RATIO}), from its
 * one-worker run with the cache off: the raw twin's CPU per answer over the server's, both
 * measured at one fixed rate (`cpuCost`), or, where that was not measured, the run's ratio to
 * raw. The ratio of rates stands in for the CPU only as well as the two cores were shared with
 * the load generator in that run, which moves it across the rule's line from one run to the
 * next; the CPU per answer does not depend on that sharing.
 */
export function cpuBoundShare(oneWorker: HttpRun): CpuBound | null {
  if (oneWorker.cpuCost) return { share: oneWorker.cpuCost.rawUs / oneWorker.cpuCost.realUs, of: 'cpu' };
  return oneWorker.paired ? { share: oneWorker.paired.ratio, of: 'rate' } : null;
}

/** Checks every performance target that the results measure. */
export function checkTargets(results: Omit<BenchResults, 'targets'>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const implemented = (name: string) => results.settings.find((s) => s.name === name)?.implemented ?? false;
  // Without the setting the target cannot be met, whatever the noise of two equal runs says.
  const cacheNote = implemented('RESPONSE_CACHE') ? null : 'RESPONSE_CACHE not implemented yet: the server ran without a response cache';
  const workersNote = (run: HttpRun): string | null => {
    if (run.setup.workers === 1) return null;
    if (!implemented('WORKERS')) return 'WORKERS not implemented yet: the real server ran one process';
    if (run.serverProcesses !== null && run.serverProcesses < run.setup.workers) {
      return `WORKERS=${run.setup.workers} is read, but the server ran ${run.serverProcesses} process${run.serverProcesses === 1 ? '' : 'es'}`;
    }
    return null;
  };

  for (const run of results.http) {
    const where = `${run.scenario}, ${describeSetup(run.setup)}`;
    const paired = run.paired;
    if (run.setup.responseCache) {
      checks.push({
        target: `response cache on: ≥ ${CACHED_RATIO * 100} % of raw`,
        figure: where,
        value: paired ? percent(paired.ratio) : 'n/a',
        measured: paired ? paired.ratio * 100 : null,
        higherIsBetter: true,
        met: paired ? cacheNote === null && paired.ratio >= CACHED_RATIO : null,
        note: run.error ?? cacheNote,
      });
      checks.push({
        target: `response cache on: p99 ≤ raw p99 + ${CACHED_P99_SLACK_MS} ms`,
        figure: where,
        value: paired ? `${paired.real.p99Ms} ms (raw ${paired.raw.p99Ms} ms)` : 'n/a',
        measured: paired ? paired.real.p99Ms - paired.raw.p99Ms : null,
        higherIsBetter: false,
        met: paired ? cacheNote === null && paired.real.p99Ms <= paired.raw.p99Ms + CACHED_P99_SLACK_MS : null,
        note: run.error ?? cacheNote,
      });
    } else {
      // The uncached targets are of one document asked again and
      // again, which the operation cache serves; a document never seen before is checked anew.
      const unseenNote = run.unseen ? UNSEEN_NOTE : null;
      checks.push({
        target: `uncached: ≥ ${UNCACHED_RATIO * 100} % of raw`,
        figure: where,
        value: paired ? percent(paired.ratio) : 'n/a',
        measured: paired ? paired.ratio * 100 : null,
        higherIsBetter: true,
        met: paired && !run.unseen ? paired.ratio >= UNCACHED_RATIO : null,
        note: run.error ?? workersNote(run) ?? unseenNote,
      });
      checks.push({
        target: `uncached: p99 ≤ ${UNCACHED_P99_MS} ms at ${results.options.connections} connections`,
        figure: where,
        value: paired ? `${paired.real.p99Ms} ms` : 'n/a',
        measured: paired ? paired.real.p99Ms : null,
        higherIsBetter: false,
        met: paired && !run.unseen ? paired.real.p99Ms <= UNCACHED_P99_MS : null,
        note: run.error ?? workersNote(run) ?? unseenNote,
      });
    }
    checks.push(...checkPeers(run, where));
  }

  for (const scaling of multiCoreScaling(results.http)) {
    const note = workersNote(scaling.run) ?? cpuBoundNote(scaling.cpuBound);
    const paired = pairedScalingOf(results, scaling.scenario, scaling.scale);
    const unpaired = `${scaling.real.toFixed(2)}× (raw twin ${scaling.raw.toFixed(2)}×)`;
    if (note === null && paired) {
      // The paired figure: both servers measured in turns, rather than in runs minutes apart.
      const processesNote =
        paired.serverProcesses !== null && paired.serverProcesses <= 1 ? `WORKERS=${paired.workers} is read, but the server ran one process` : null;
      checks.push({
        target: `${scaling.workers} workers ≥ ${SCALING}× one worker (cache off, CPU-bound scenario)`,
        figure: `${scaling.scenario}, ${scaling.scale}x, paired`,
        value: paired.paired ? `${paired.paired.ratio.toFixed(2)}× in turns (runs apart: ${unpaired})` : 'n/a',
        measured: paired.paired ? paired.paired.ratio : null,
        higherIsBetter: true,
        met: paired.paired ? processesNote === null && paired.paired.ratio >= SCALING : null,
        note: paired.error ?? processesNote,
      });
      continue;
    }
    checks.push({
      target: `${scaling.workers} workers ≥ ${SCALING}× one worker (cache off, CPU-bound scenario)`,
      figure: `${scaling.scenario}, ${scaling.scale}x`,
      value: unpaired,
      measured: scaling.real,
      higherIsBetter: true,
      met: note === null ? scaling.real >= SCALING : workersNote(scaling.run) === null ? null : false,
      note,
    });
  }

  for (const micro of results.micro) {
    const at = `${micro.scale}x, ${micro.records.toLocaleString('en-US')} records`;
    const per20k = 20_000 / micro.records;
    checks.push({
      target: `cold start ≤ ${COLD_START_MS_PER_20K / 1000} s per 20k records`,
      figure: at,
      value: `${(micro.coldStart.totalMs * per20k / 1000).toFixed(2)} s per 20k (${(micro.coldStart.totalMs / 1000).toFixed(1)} s in all)`,
      measured: micro.coldStart.totalMs * per20k,
      higherIsBetter: false,
      met: micro.coldStart.totalMs * per20k <= COLD_START_MS_PER_20K,
      note: null,
    });
    checks.push({
      target: `heap ≤ ${MEMORY_MB_PER_20K} MB per 20k records`,
      figure: at,
      value: `${(micro.memory.totalMB * per20k).toFixed(0)} MB per 20k (${micro.memory.totalMB.toFixed(0)} MB in all)`,
      measured: micro.memory.totalMB * per20k,
      higherIsBetter: false,
      met: micro.memory.totalMB * per20k <= MEMORY_MB_PER_20K,
      note: null,
    });
    const search = (kind: string) => micro.search.find((s) => s.kind === kind);
    const selective = search('selective word');
    const common = search('two common words');
    const largest = micro.scale === Math.max(...results.micro.map((m) => m.scale));
    if (selective && largest) {
      checks.push({
        target: `search, selective word: p50 ≤ ${SELECTIVE_P50_MS} ms (10x)`,
        figure: `${micro.scale}x, "${selective.query}"`,
        value: `${selective.p50Ms} ms`,
        measured: selective.p50Ms,
        higherIsBetter: false,
        met: selective.p50Ms <= SELECTIVE_P50_MS,
        note: micro.scale === 10 ? null : 'the 10x dataset was not measured',
      });
    }
    if (common && largest) {
      checks.push({
        target: `search, two common words: p95 ≤ ${COMMON_P95_MS} ms (10x)`,
        figure: `${micro.scale}x, "${common.query}"`,
        value: `${common.p95Ms} ms`,
        measured: common.p95Ms,
        higherIsBetter: false,
        met: common.p95Ms <= COMMON_P95_MS,
        note: micro.scale === 10 ? null : 'the 10x dataset was not measured',
      });
    }
    for (const across of largest ? (micro.searchAcross ?? []) : []) {
      checks.push({
        target: `search across areas, one to three words: p50 ≤ ${SEARCH_ACROSS_P50_MS} ms (10x)`,
        figure: `${micro.scale}x, ${across.kind} "${across.query}"`,
        value: `${across.p50Ms} ms`,
        measured: across.p50Ms,
        higherIsBetter: false,
        met: across.p50Ms <= SEARCH_ACROSS_P50_MS,
        note: micro.scale === 10 ? null : 'the 10x dataset was not measured',
      });
    }
    for (const near of micro.nearMe.filter((n) => !n.via.includes('filter'))) {
      checks.push({
        target: `near-me first page: p50 ≤ ${NEAR_P50_MS} ms`,
        figure: `${micro.scale}x, ${near.via}`,
        value: `${near.p50Ms} ms`,
        measured: near.p50Ms,
        higherIsBetter: false,
        met: near.p50Ms <= NEAR_P50_MS,
        note: null,
      });
    }
  }
  checks.push(...reloadChecks(results.reload ?? []));
  return checks;
}

interface ScalingRow {
  scenario: string;
  scale: number;
  workers: number;
  /** Req/s with every core over req/s with one worker, of the real server and of the raw twin. */
  real: number;
  raw: number;
  /** The one-worker run's ratio to raw. */
  oneWorkerRatio: number;
  /** Whether the scenario is CPU-bound: see {@link cpuBoundShare}. */
  cpuBound: CpuBound;
  /** The run with every core. */
  run: HttpRun;
}

/** Per scenario and scale with the cache off: req/s with every core over req/s with one worker. */
function multiCoreScaling(http: readonly HttpRun[]): ScalingRow[] {
  const rows: ScalingRow[] = [];
  for (const many of http) {
    if (many.setup.responseCache || many.setup.workers === 1 || !many.paired) continue;
    const one = http.find((r) => r.scenario === many.scenario && r.setup.scale === many.setup.scale && !r.setup.responseCache && r.setup.workers === 1 && r.paired);
    if (!one?.paired) continue;
    rows.push({
      scenario: many.scenario,
      scale: many.setup.scale,
      workers: many.setup.workers,
      real: many.paired.real.reqPerS / one.paired.real.reqPerS,
      raw: many.paired.raw.reqPerS / one.paired.raw.reqPerS,
      oneWorkerRatio: one.paired.ratio,
      cpuBound: cpuBoundShare(one)!,
      run: many,
    });
  }
  return rows;
}

/** The paired scaling of a scenario at a scale, if it was measured. */
function pairedScalingOf(results: Omit<BenchResults, 'targets'>, scenario: string, scale: number): PairedScaling | undefined {
  return (results.scaling ?? []).find((row) => row.scenario === scenario && row.scale === scale);
}

/** Why a scaling figure is not held to the target, or null when its scenario is CPU-bound. */
function cpuBoundNote(cpuBound: CpuBound): string | null {
  if (cpuBound.share <= CPU_BOUND_RATIO) return null;
  const what = cpuBound.of === 'cpu' ? `the raw twin needs more than ${percent(CPU_BOUND_RATIO)} of one worker's CPU per answer` : `one worker answers more than ${percent(CPU_BOUND_RATIO)} of the raw twin's rate (CPU per answer not measured)`;
  return `not CPU-bound: ${what}, so the load generator's share of the cores decides`;
}

function describeSetup(setup: ServerSetup): string {
  return `${setup.scale}x, cache ${setup.responseCache ? 'on' : 'off'}, ${setup.workers} worker${setup.workers === 1 ? '' : 's'}`;
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

function integer(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function mark(met: boolean | null): string {
  return met === null ? '–' : met ? '✓' : '✗';
}

/** BENCHMARKS.md: machine and command, then a table per scenario, the in-process figures and the targets. */
export function renderMarkdown(results: BenchResults): string {
  const out: string[] = [];
  const { machine, options } = results;
  out.push('# Benchmarks', '');
  out.push(
    'Figures of `npm run bench` (targets: [below](#targets)): the real server against a raw node:http twin that',
    'sends the same response bytes, measured in turns in the same run, and in-process figures of the snapshot,',
    'the search and the near-me indexes at the fixture scale (`data/`) and at 10x (`bench/data/x10`).',
    '',
    '```sh',
    'npm run bench              # the full run (about an hour on 2 cores, peers included); writes bench/results.json and this file',
    'npm run bench -- --quick   # about 2 minutes; writes bench/data/results.quick.json and BENCHMARKS.quick.md',
    'npm run bench -- --help    # rounds, durations, scales, scenarios',
    '```',
    '',
    ...peersIntro(results.peers),
  );
  out.push('| | |', '|---|---|');
  out.push(`| Date | ${results.date} |`);
  out.push(`| Command | \`${results.command}\` (${Math.round(results.durationS)} s) |`);
  out.push(
    `| Commit | \`${results.git.commit.slice(0, 12)}\`${results.git.uncommittedServerFiles.length > 0 ? ` with ${results.git.uncommittedServerFiles.length} uncommitted files in server/ (the working tree was measured)` : ''} |`,
  );
  out.push(`| Machine | ${machine.cpus} × ${machine.cpuModel}, ${machine.totalMemoryGB.toFixed(0)} GB, ${machine.platform} |`);
  out.push(`| Node | ${machine.node} |`);
  out.push(`| Load average (1 min) | ${machine.loadAverageBefore.toFixed(2)} before, ${machine.loadAverageAfter.toFixed(2)} after |`);
  out.push(`| Server | ${results.server} |`);
  out.push(`| Load generator | ${results.loadGenerator} |`);
  out.push(
    `| Runs | ${options.connections} connections; after each server start ${options.serverWarmupS} s of every scenario's requests; per scenario a warm-up of ${options.warmupS} s per side, then ${options.rounds} round${options.rounds === 1 ? '' : 's'} × ${options.durationS} s per side (real, raw, real, raw…, or real, raw, each peer… where the peers ran); server LOG_LEVEL=${options.logLevel} |`,
  );
  out.push('');

  const hashes = [...new Set(results.http.map((r) => r.serverCodeHash))];
  if (hashes.length > 1) {
    out.push(
      `> **Warning**: the server's code changed during this run (${hashes.length} versions of its bundle: ${hashes.join(', ')}; see \`serverCodeHash\``,
      '> in bench/results.json): rows from different versions do not compare.',
      '',
    );
  }
  out.push('## Settings under test', '');
  out.push('| Setting | Read by the server | Evidence |', '|---|---|---|');
  for (const setting of results.settings) {
    out.push(`| \`${setting.name}\` | ${setting.implemented ? 'yes' : '**not implemented yet**'} | ${escapeCell(setting.evidence)} |`);
  }
  out.push('');
  out.push(
    'Each scenario runs with `RESPONSE_CACHE=0` and `=1`, `WORKERS=1` and `=' +
      Math.max(1, ...results.http.map((r) => r.setup.workers)) +
      '` in the server\'s environment. A setting the server does not read changes nothing: its rows measure the server as it is, and the',
    'raw twin runs with the same number of workers either way.',
    '',
  );

  out.push('## HTTP: real server against the raw twin', '');
  out.push(
    '**Ratio** = real req/s ÷ raw req/s over all rounds (min–max of the per-round ratios in brackets).',
    'Latencies are from request written to response read, over every 2xx response of all rounds.',
    '',
  );
  const scenarios = [...new Set(results.http.map((r) => r.scenario))];
  for (const name of scenarios) {
    const runs = results.http.filter((r) => r.scenario === name);
    const first = runs[0]!;
    out.push(`### ${name}`, '', `${first.description}. Operations: ${[...new Set(first.operations)].join(', ')}; response ${first.responseBytes.length === 1 ? `${integer(first.responseBytes[0]!)} bytes` : `${integer(Math.min(...first.responseBytes))}–${integer(Math.max(...first.responseBytes))} bytes`}.`, '');
    const peerColumn = peerColumns();
    out.push(`| Dataset | Cache | Workers | Ratio | Real req/s | Raw req/s | Real p50 / p99 ms | Raw p50 / p99 ms | Target | ${peerColumn.header.join(' | ')} |`);
    out.push(`|---|---|---|---|---:|---:|---:|---:|---|${peerColumn.align.join('|')}|`);
    for (const run of runs) {
      const { setup, paired } = run;
      const workers = `${setup.workers}${run.serverProcesses !== null && setup.workers > 1 ? ` (${run.serverProcesses} process${run.serverProcesses === 1 ? '' : 'es'})` : ''}`;
      if (!paired) {
        out.push(`| ${setup.scale}x | ${setup.responseCache ? 'on' : 'off'} | ${workers} | error: ${escapeCell(run.error ?? 'no figures')} | | | | | |${peerColumn.header.map(() => ' |').join('')}`);
        continue;
      }
      const spread = paired.roundRatios.length > 1 ? ` (${percent(Math.min(...paired.roundRatios))}–${percent(Math.max(...paired.roundRatios))})` : '';
      const where = `${run.scenario}, ${describeSetup(setup)}`;
      const checks = results.targets.filter((t) => t.figure === where);
      const short = setup.responseCache ? ['≥ 90 %', 'p99 ≤ raw + 2 ms'] : ['≥ 40 %', 'p99 ≤ 10 ms'];
      const target = checks.map((check, i) => `${mark(check.met)} ${short[i]}`).join(', ');
      const failures = paired.real.non2xx + paired.real.errors + paired.real.timeouts + paired.raw.non2xx + paired.raw.errors + paired.raw.timeouts;
      out.push(
        `| ${setup.scale}x | ${setup.responseCache ? 'on' : 'off'} | ${workers} | **${percent(paired.ratio)}**${spread} | ${integer(paired.real.reqPerS)} | ${integer(paired.raw.reqPerS)} | ${paired.real.p50Ms} / ${paired.real.p99Ms} | ${paired.raw.p50Ms} / ${paired.raw.p99Ms} | ${target}${failures > 0 ? ` (${failures} failed requests)` : ''} | ${peerCells(run, results.targets.find((t) => t.figure === peersFigure(where))).join(' | ')} |`,
      );
    }
    out.push('');
  }

  const scaling = multiCoreScaling(results.http);
  if (scaling.length > 0) {
    out.push(
      '### Multi-core scaling',
      '',
      `Req/s with every core over req/s with one worker, with the response cache off. The target (≥ ${SCALING}×) holds for a CPU-bound`,
      `scenario: one where the raw twin needs at most ${percent(CPU_BOUND_RATIO)} of the CPU a single worker takes per answer (the "CPU per answer"`,
      'table below; the ratio of rates where that was not measured). The load generator runs on the same',
      'two cores and needs about as much CPU per request as the raw twin; the raw twin column shows what is left to scale where',
      'the server needs little more. The one-worker and every-core runs of this table are minutes apart, so their ratio',
      'also holds whatever else the machine did in between; a CPU-bound scenario is therefore measured again **in turns**:',
      'a one-worker server and one with every core started side by side and sent the same requests, round by round, as the',
      'real server and its twin are (the rounds\' lowest and highest ratios in brackets). The target is judged on that figure.',
      '**CPU per answer**: the CPU time an answer took the server (every process) + the load generator (the harness process),',
      'in µs, with one worker → with every core, over the rounds in turns. **Load generator elsewhere** estimates the',
      'scaling were the load generator on another machine: the cores ÷ the every-core server\'s CPU per answer ÷ one worker\'s',
      'req/s (one worker\'s rate is that of its main thread), with the load generator\'s share of the CPU with every core.',
      '',
    );
    if (scaling.some((row) => row.run.serverProcesses !== null && row.run.serverProcesses < row.workers)) {
      out.push('The real server ran fewer processes than `WORKERS` asked (see the workers column above): where it ran one process in both columns, its figure shows only the noise between two runs.', '');
    }
    out.push(
      '| Scenario | Dataset | One worker: ratio to raw, twin\'s share of its CPU | Real | Raw twin | In turns | CPU per answer, µs | Load generator elsewhere | Target |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|',
    );
    for (const row of [...scaling].sort((a, b) => a.scale - b.scale)) {
      const check = results.targets.find((t) => t.figure.startsWith(`${row.scenario}, ${row.scale}x`) && t.target.includes('workers'));
      const verdict = check?.met === null ? (check.note?.startsWith('not CPU-bound') ? '— not CPU-bound' : '–') : mark(check?.met ?? null);
      const paired = pairedScalingOf(results, row.scenario, row.scale);
      const turns = !paired
        ? '—'
        : paired.paired
          ? `**${paired.paired.ratio.toFixed(2)}×** (${Math.min(...paired.paired.roundRatios).toFixed(2)}–${Math.max(...paired.paired.roundRatios).toFixed(2)}×; ${integer(paired.paired.raw.reqPerS)} → ${integer(paired.paired.real.reqPerS)} req/s)`
          : `n/a: ${escapeCell(paired.error ?? 'not measured')}`;
      const cpu = paired?.paired?.cpu;
      const perAnswer = cpu ? `${integer(cpu.raw.serverUs)} + ${integer(cpu.raw.loadGeneratorUs)} → ${integer(cpu.real.serverUs)} + ${integer(cpu.real.loadGeneratorUs)}` : '—';
      const cost = paired ? loadGeneratorCost(paired) : null;
      const elsewhere = cost ? `~${cost.scalingWithoutIt.toFixed(2)}× (it took ${percent(cost.share)})` : '—';
      const share = row.cpuBound.of === 'cpu' ? percent(row.cpuBound.share) : '(not measured)';
      out.push(`| ${row.scenario} | ${row.scale}x | ${percent(row.oneWorkerRatio)}, ${share} | ${row.real.toFixed(2)}× | ${row.raw.toFixed(2)}× | ${turns} | ${perAnswer} | ${elsewhere} | ${verdict} |`);
    }
    out.push('');
  }

  const costed = results.http.filter((run): run is HttpRun & { cpuCost: CpuCost } => run.cpuCost !== null);
  if (costed.length > 0) {
    out.push(
      '### CPU per answer',
      '',
      `CPU time (user and system, every process of the side) per 2xx answer, with one worker, each side sent the same requests`,
      `at the same fixed rate (half the rate the real server reached above) for ${options.cpuDurationS} s. Unlike the ratios above, this does not`,
      'depend on how the two cores are shared with the load generator, so it moves less between runs. **Raw ÷ real** is the',
      'share of the raw twin\'s speed the real server would reach with a core of its own.',
      '',
      '| Scenario | Dataset | Cache | Rate, req/s | Real µs | Raw µs | Raw ÷ real |',
      '|---|---|---|---:|---:|---:|---:|',
    );
    for (const run of costed) {
      const { cpuCost, setup } = run;
      out.push(
        `| ${run.scenario} | ${setup.scale}x | ${setup.responseCache ? 'on' : 'off'} | ${integer(cpuCost.ratePerS)} | ${cpuCost.realUs.toFixed(1)} | ${cpuCost.rawUs.toFixed(1)} | ${percent(cpuCost.rawUs / cpuCost.realUs)} |`,
      );
    }
    out.push('');
  }

  out.push(...renderReload(results.reload ?? []));
  out.push(...renderPull(results.pull ?? []));

  if (results.micro.length > 0) {
    out.push('## In-process', '');
    out.push(
      `Measured in ${results.options.microRuns} fresh \`node --expose-gc\` process${results.options.microRuns === 1 ? '' : 'es'} per dataset (each figure the median of them) through the server's modules (bench/micro.ts):`,
      '`loadSnapshot` + `createStore` for the cold start, `process.memoryUsage()` after a full GC for the memory',
      '(JS heap plus the indexes\' typed arrays), then search (`text.search` on de-CH tours, and "s" on en-CH',
      'attractions: the total and the first page of 20, or 10, in order), search across areas (the `search` resolver in de-CH,',
      'a page of 10 with snippets), near-me (Interlaken, 50 km, first page of 20) and',
      'map views (`selectRecords` on de-CH tours with a bbox, the Lauterbrunnen valley or the whole country, with and without q: first page of 20 and the total),',
      'and filtered, sorted first pages of activities (the `activities` resolver in de-CH: maxPrice 100, bookable in the 30 days from the snapshot\'s day, first page of 20 and the total).',
      '',
    );
    const micros = [...results.micro].sort((a, b) => a.scale - b.scale);
    const header = micros.map((m) => `${m.scale}x`);
    out.push(`| Figure | ${header.join(' | ')} | Target |`, `|---|${micros.map(() => '---:').join('|')}|---|`);
    const row = (label: string, cell: (m: MicroResult & { scale: number }) => string, target = '') => out.push(`| ${label} | ${micros.map(cell).join(' | ')} | ${target} |`);
    row('Records (all locales and areas)', (m) => integer(m.records));
    row('Largest area, one locale', (m) => `${m.largestArea.name} ${integer(m.largestArea.records)}`);
    row('Cold start: load + validate, ms', (m) => integer(m.coldStart.loadMs));
    row('Cold start: indexes, ms', (m) => integer(m.coldStart.indexMs));
    row('Cold start per 20k records, s', (m) => `${((m.coldStart.totalMs * 20_000) / m.records / 1000).toFixed(2)} ${mark((m.coldStart.totalMs * 20_000) / m.records <= COLD_START_MS_PER_20K)}`, '≤ 2 s');
    row('Memory: JS heap + array buffers, MB', (m) => `${m.memory.heapUsedMB.toFixed(0)} + ${m.memory.arrayBuffersMB.toFixed(0)}`);
    row('Memory per 20k records, MB', (m) => `${((m.memory.totalMB * 20_000) / m.records).toFixed(0)} ${mark((m.memory.totalMB * 20_000) / m.records <= MEMORY_MB_PER_20K)}`, '≤ 100 MB');
    row('Process RSS after load, MB', (m) => m.memory.rssMB.toFixed(0));
    for (const { kind, query } of micros[0]!.search) {
      const target = kind === 'selective word' ? `p50 ≤ ${SELECTIVE_P50_MS} ms (10x)` : kind === 'two common words' ? `p95 ≤ ${COMMON_P95_MS} ms (10x)` : '';
      row(`Search, ${kind} "${query}": p50 / p95 ms (matches)`, (m) => {
        const s = m.search.find((x) => x.kind === kind)!;
        const met = m.scale !== 10 ? '' : kind === 'selective word' ? ` ${mark(s.p50Ms <= SELECTIVE_P50_MS)}` : kind === 'two common words' ? ` ${mark(s.p95Ms <= COMMON_P95_MS)}` : '';
        return `${s.p50Ms} / ${s.p95Ms} (${integer(s.matches)})${met}`;
      }, target);
    }
    for (const { kind, query } of micros[0]!.searchAcross ?? []) {
      row(`Search across areas (\`search\`, page of 10), ${kind} "${query}": p50 / p95 ms (matches)`, (m) => {
        const s = m.searchAcross.find((x) => x.kind === kind)!;
        return `${s.p50Ms} / ${s.p95Ms} (${integer(s.matches)})${m.scale === 10 ? ` ${mark(s.p50Ms <= SEARCH_ACROSS_P50_MS)}` : ''}`;
      }, `p50 ≤ ${SEARCH_ACROSS_P50_MS} ms (10x)`);
    }
    if (micros[0]!.searchAcross) row('Search across areas: the first of a locale (makes its search data), ms', (m) => integer(m.searchAcrossFirstMs));
    for (const { via } of micros[0]!.nearMe) {
      const checked = !via.includes('filter');
      row(`Near-me, ${via}: p50 / p95 ms (total)`, (m) => {
        const n = m.nearMe.find((x) => x.via === via)!;
        return `${n.p50Ms} / ${n.p95Ms} (${integer(n.matches)})${checked ? ` ${mark(n.p50Ms <= NEAR_P50_MS)}` : ''}`;
      }, checked ? `p50 ≤ ${NEAR_P50_MS} ms` : '');
    }
    for (const { view, q } of micros[0]!.bbox) {
      row(`Map view (bbox), ${view}${q === null ? '' : ` + q "${q}"`}: p50 / p95 ms (total)`, (m) => {
        const b = m.bbox.find((x) => x.view === view && x.q === q)!;
        return `${b.p50Ms} / ${b.p95Ms} (${integer(b.matches)})`;
      });
    }
    if (micros[0]!.facetedPage) {
      row('Filtered, sorted and faceted first page (`tours` + `facets`, de-CH hikes): p50 / p95 ms (total)', (m) => {
        const f = m.facetedPage;
        return `${f.p50Ms} / ${f.p95Ms} (${integer(f.matches)})${m.scale === 10 ? ` ${mark(f.p50Ms <= FACETED_P50_MS)}` : ''}`;
      }, `p50 ≤ ${FACETED_P50_MS} ms (10x)`);
    }
    if (micros.some((m) => m.tourLine)) {
      row('A tour with its line and a 100-sample profile (`tour` + `geometry` + `elevationProfile`, answer as JSON; the longest de-CH line): p50 / p95 ms (positions)', (m) => {
        const t = m.tourLine;
        return t ? `${t.p50Ms} / ${t.p95Ms} (${integer(t.matches)})` : '—';
      });
    }
    for (const { kind } of micros[0]!.activityPages ?? []) {
      row(`Activities, ${kind}: p50 / p95 ms (total)`, (m) => {
        const a = m.activityPages.find((x) => x.kind === kind)!;
        return `${a.p50Ms} / ${a.p95Ms} (${integer(a.matches)})`;
      });
    }
    out.push('');
  }

  if (results.tracing) out.push(...renderTracing(results.tracing));

  out.push('## Targets', '');
  const met = results.targets.filter((t) => t.met === true).length;
  const missed = results.targets.filter((t) => t.met === false).length;
  out.push(
    `${met} figures meet their target, ${missed} miss it, ${results.targets.length - met - missed} were not measured or not held to it; per target, the best and the`,
    'worst figure (every figure with its setting is in bench/results.json under `targets`).',
    '',
  );
  out.push('| | Target | Met | Best | Worst | Note |', '|---|---|---|---|---|---|');
  const groups = new Map<string, TargetCheck[]>();
  for (const check of results.targets) groups.set(check.target, [...(groups.get(check.target) ?? []), check]);
  for (const [target, checks] of groups) {
    const measured = checks.filter((c) => c.measured !== null);
    // Figures not held to the target (not CPU-bound, say) rank only when no figure is.
    const judged = measured.filter((c) => c.met !== null);
    const ranked = [...(judged.length > 0 ? judged : measured)].sort((a, b) => (a.higherIsBetter ? b.measured! - a.measured! : a.measured! - b.measured!));
    const cell = (c: TargetCheck | undefined) => (c ? `${c.value} (${c.figure})` : '');
    const metCount = checks.filter((c) => c.met === true).length;
    const unjudged = checks.filter((c) => c.met === null).length;
    // Met when every figure held to the target meets it; figures not held to it do not count.
    const all = unjudged === checks.length ? null : metCount === checks.length - unjudged;
    const notes = [...new Set(checks.map((c) => c.note).filter((n): n is string => n !== null))];
    out.push(
      `| ${mark(all)} | ${escapeCell(target)} | ${metCount} of ${checks.length - unjudged}${unjudged > 0 ? ` (${unjudged} not judged)` : ''} | ${escapeCell(cell(ranked[0]))} | ${ranked.length > 1 ? escapeCell(cell(ranked[ranked.length - 1])) : ''} | ${escapeCell(notes.join('; '))} |`,
    );
  }
  out.push('');

  out.push('## How to read these figures', '');
  out.push(
    `- The load generator (autocannon, ${results.options.connections} connections, one thread in the harness process) runs on the same ${machine.cpus}-core machine as the`,
    '  servers, so it takes a core from them: absolute req/s are lower than on a dedicated client, the raw twin is often',
    '  limited by the load generator rather than by itself (which flatters the ratios), and two workers compete with it.',
    '- The raw twin (bench/raw.ts) reads the request body, looks the request up and sends the response the real server',
    '  gave to it: the same status, headers (ETag, Cache-Control, Vary, X-Request-Id as captured) and body; node:http writes',
    '  Date, Connection and Keep-Alive for both. Requests carry no Accept-Encoding, so nothing is compressed.',
    '- The scenarios of unseen documents (tours-near-inline, unseen-documents) send thousands of different documents in',
    '  one rotation shared by every connection, more than the operation cache keeps, so that none comes back before it is',
    '  forgotten. They run with the response cache off only, and are not held to the uncached targets, which are set',
    '  for one document asked again.',
    '- The peers (bench/peers/) answer the same requests with the same `data` (test/bench/peers.slow.test.ts), each with its',
    '  own headers and body bytes; where one would refuse a request, it gets the nearest equivalent (docs/performance.md, Peers).',
    '  They run one process each, beside the one-worker real server only, and take their turns after the raw twin.',
    '- The machine is shared: compare the ratios of one run, whose two sides alternate, rather than absolute req/s across runs.',
    '- Memory and cold start are normalised per 20k records over every locale and area (the targets are',
    '  per 20k records of one area); the totals are next to them.',
    '- bench/results.json holds every figure, including each round.',
    '',
  );
  return out.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Writes the results as JSON and as Markdown. */
export async function writeReport(results: BenchResults, jsonPath: string, markdownPath: string): Promise<void> {
  await fs.writeFile(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  await fs.writeFile(markdownPath, renderMarkdown(results));
}
