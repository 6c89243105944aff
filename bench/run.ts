/**
 * `npm run bench`: a benchmark, not a test. Generates the 10x dataset when missing,
 * measures each dataset in-process (bench/micro.ts), then starts the real server per setting
 * and runs each scenario against it paired with a raw node:http twin (bench/paired.ts) and, with
 * one worker at 1x, with the peers (bench/peers/, whose packages it installs there when missing), and
 * writes bench/results.json and BENCHMARKS.md (bench/report.ts). Loopback only; every process
 * it starts is stopped on exit, on error and on Ctrl-C.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Manifest } from '../sync/format.ts';
import type { SampleQuery } from '../server/ops/sampleQueries.ts';
import { datasetDir, ensureDataset } from './datasets.ts';
import { type ChangeListsFigures, ensureVersionsDataset, renderChangeLists, runServerMeasure, type ServerChangeLists, versionsDir, withoutChangeLists } from './changeLists.ts';
import { medianOfRuns, type MicroResult } from './micro.ts';
import { measureCpuCost, runPaired, warmUp } from './paired.ts';
import { answerKey, captureAnswer, type RawAnswer } from './raw.ts';
import { measurePull, type PullRun } from './pull.ts';
import { changedLabel, copyDataset, measureReload, type ChangedSources, type ReloadRun } from './reload.ts';
import { checkTargets, CPU_BOUND_RATIO, cpuBoundShare, loadGeneratorCost, writeReport, type BenchResults, type PairedScaling } from './report.ts';
import type { HttpRun } from './reportTypes.ts';
import { planRuns, SCENARIOS, type BenchRequest } from './scenarios.ts';
import { measureTracing, renderTracing, type TracingReport } from './tracing.ts';
import { replaceSection } from './sections.ts';
import { installPeers } from './peers/installPeers.ts';
import { describePeers, PEERS, peerSides, peersRunIn, startPeers, stopPeers, type PeersOfRun } from './peers/peers.ts';
import { buildServer, groupCpuSeconds, killAllNow, probeSetting, SERVER_BUNDLE, startRawTwin, startRealServer, type RealServer, type SettingProbe } from './servers.ts';

const HELP = `npm run bench [-- options]

  --quick               about 2 minutes: 1 round of 1 s, 1x only, fewer iterations; writes
                        bench/data/results.quick.json and bench/data/BENCHMARKS.quick.md
  --rounds N            paired rounds per scenario (default 5)
  --duration S          seconds per side and round (default 1.5)
  --warmup S            unmeasured seconds per side before a scenario's rounds (default 0.5;
                        0.25 with --quick)
  --server-warmup S     unmeasured seconds of every scenario's requests after a server
                        starts (default 2; 1 with --quick)
  --connections N       autocannon connections (default 50)
  --cpu-duration S      seconds per side of the CPU-per-answer run at a fixed rate, after a
                        one-worker scenario's rounds (default 3; 1.5 with --quick; 0 skips it)
  --scales 1,10         datasets: 1 is data/, N is bench/data/xN (generated when missing or stale)
  --scenarios a,b       only these scenarios (activities, tours-near, tours-list,
                        tours-faceted, tours-q-broad, attractions-prefix, attractions-q, bbox,
                        search, station, mix, tours-near-inline, unseen-documents,
                        activities-get)
  --no-http             skip the HTTP scenarios
  --no-micro            skip the in-process figures
  --no-reload           skip the hot-reload scenario (bench/reload.ts: a new version published
                        during a load run of the mix, against one without, per scale)
  --no-pull             skip pull mode's cost (bench/pull.ts: peak RSS and CPU of one fetch of
                        each dataset from a loopback origin, and CPU per poll)
  --no-tracing          skip tracing on against off (bench/tracing.ts: the one-worker scenarios
                        at 1x, every request traced and exported to a loopback OTLP receiver)
  --tracing-only        run tracing on against off alone, and put its figures into the results
                        JSON and the report a full run wrote (its "Tracing" section)
  --changes-only        measure the change lists alone, on bench/data/x<scale>-versions (6
                        versions, generated when missing or stale): the sync's time to compute
                        them, the server's load time and memory with them against without, and
                        a \`changes\` answer's in-process latency; into the results JSON and
                        the report a full run wrote (its "Change lists" section)
  --regenerate          regenerate the scaled datasets (they are regenerated anyway when
                        the code under sync/ changed since they were written)
  --iterations N        timed calls per in-process latency figure (default 1000)
  --micro-runs N        fresh processes per dataset for the in-process figures, each figure
                        the median of the runs (default 3; 1 with --quick)
  --log-level L         the server's LOG_LEVEL (default warn)
  --out FILE            results JSON (default bench/results.json)
  --markdown FILE       report (default BENCHMARKS.md)
`;

/** Cold start of the 10x server can take a while on a busy machine. */
const SERVER_READY_TIMEOUT_MS = 300_000;

interface Options {
  quick: boolean;
  rounds: number;
  durationS: number;
  warmupS: number;
  serverWarmupS: number;
  connections: number;
  cpuDurationS: number;
  scales: number[];
  scenarios: string[];
  http: boolean;
  micro: boolean;
  reload: boolean;
  pull: boolean;
  tracing: boolean;
  tracingOnly: boolean;
  changesOnly: boolean;
  regenerate: boolean;
  iterations: number;
  microRuns: number;
  logLevel: string;
  out: string;
  markdown: string;
}

function readOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'server-warmup': { type: 'string' },
      connections: { type: 'string', default: '50' },
      'cpu-duration': { type: 'string' },
      scales: { type: 'string' },
      scenarios: { type: 'string', default: '' },
      'no-http': { type: 'boolean', default: false },
      'no-micro': { type: 'boolean', default: false },
      'no-reload': { type: 'boolean', default: false },
      'no-pull': { type: 'boolean', default: false },
      'no-tracing': { type: 'boolean', default: false },
      'tracing-only': { type: 'boolean', default: false },
      'changes-only': { type: 'boolean', default: false },
      regenerate: { type: 'boolean', default: false },
      iterations: { type: 'string' },
      'micro-runs': { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      out: { type: 'string' },
      markdown: { type: 'string' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const quick = values.quick;
  const number = (name: string, raw: string | undefined, fallback: number, min: number) => {
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number >= ${min}, got "${raw}"`);
    return value;
  };
  const scales = (values.scales ?? (quick ? '1' : '1,10')).split(',').map((s) => number('scales', s, 1, 1));
  const scenarios = values.scenarios.split(',').filter(Boolean);
  const unknown = scenarios.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`--scenarios: unknown ${unknown.join(', ')}; expected some of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return {
    quick,
    // Short rounds, many of them: the machine's noise comes in spells of seconds, which
    // short alternations share out between the two sides.
    rounds: Math.round(number('rounds', values.rounds, quick ? 1 : 5, 1)),
    durationS: number('duration', values.duration, quick ? 1 : 1.5, 0.5),
    warmupS: number('warmup', values.warmup, quick ? 0.25 : 0.5, 0),
    serverWarmupS: number('server-warmup', values['server-warmup'], quick ? 1 : 2, 0),
    connections: Math.round(number('connections', values.connections, 50, 1)),
    cpuDurationS: number('cpu-duration', values['cpu-duration'], quick ? 1.5 : 3, 0),
    scales,
    scenarios,
    http: !values['no-http'],
    micro: !values['no-micro'],
    reload: !values['no-reload'],
    pull: !values['no-pull'],
    tracing: !values['no-tracing'],
    tracingOnly: values['tracing-only'],
    changesOnly: values['changes-only'],
    regenerate: values.regenerate,
    iterations: Math.round(number('iterations', values.iterations, quick ? 200 : 1000, 1)),
    microRuns: Math.round(number('micro-runs', values['micro-runs'], quick ? 1 : 3, 1)),
    logLevel: values['log-level'],
    out: values.out ?? (quick ? 'bench/data/results.quick.json' : 'bench/results.json'),
    markdown: values.markdown ?? (quick ? 'bench/data/BENCHMARKS.quick.md' : 'BENCHMARKS.md'),
  };
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function readDataset(scale: number): BenchResults['datasets'][number] {
  const dir = datasetDir(scale);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  let records = 0;
  for (const source of Object.values(manifest.sources)) {
    for (const areas of Object.values(source?.locales ?? {})) for (const file of Object.values(areas ?? {})) records += file?.count ?? 0;
  }
  return { scale, dir, version: manifest.version, records };
}

/** Runs bench/micro.ts in a fresh process for one dataset. */
function runMicro(scale: number, iterations: number): MicroResult {
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/micro.ts', '--data', datasetDir(scale), '--iterations', String(iterations)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 2],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`bench/micro.ts failed on ${datasetDir(scale)} (exit ${result.status ?? result.signal})`);
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as MicroResult;
}

async function fetchSamples(url: string): Promise<SampleQuery[]> {
  const response = await fetch(`${url}/api/schema?format=queries`);
  if (!response.ok) throw new Error(`GET /api/schema?format=queries: ${response.status}`);
  return (await response.json()) as SampleQuery[];
}

/**
 * Sends each request once to the real server and keeps its answer for the raw twin.
 * @throws Error when an answer is not a 200 or carries GraphQL errors: the benchmark would
 *   measure an error path
 */
async function fetchAnswers(url: string, requests: readonly BenchRequest[]): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  for (const request of requests) {
    const answer = await captureAnswer(url, request);
    const errors = (JSON.parse(Buffer.from(answer.body, 'base64').toString('utf8')) as { errors?: { message: string }[] }).errors;
    if (answer.status !== 200 || errors) {
      throw new Error(`${request.name}: status ${answer.status}${errors ? `, errors: ${errors.map((e) => e.message).join('; ')}` : ''}`);
    }
    answers.push(answer);
  }
  if (new Set(answers.map((a) => answerKey(a.method, a.path, a.requestBody))).size !== answers.length) throw new Error('two requests of a scenario are the same');
  return answers;
}

/**
 * A digest of the server that runs ({@link SERVER_BUNDLE} and the schema beside it), taken at
 * each server start: should the bundle be rebuilt during a run, the runs did not measure the
 * same server.
 */
async function serverCodeHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [SERVER_BUNDLE, path.join(path.dirname(SERVER_BUNDLE), 'schema.graphql')]) {
    hash.update(`${file}\0`).update(await fs.readFile(file));
  }
  return hash.digest('hex').slice(0, 12);
}

function gitCommit(): BenchResults['git'] {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--', 'server'], { encoding: 'utf8' });
    return { commit, uncommittedServerFiles: status.split('\n').filter(Boolean).map((line) => line.slice(3)) };
  } catch {
    return { commit: 'unknown', uncommittedServerFiles: [] };
  }
}

async function main(): Promise<void> {
  // Paths (data/, dist/, bench/…) are relative to the repository root.
  process.chdir(fileURLToPath(new URL('..', import.meta.url)));
  const options = readOptions(process.argv.slice(2));
  const startedAt = Date.now();
  // Read now: the tree may move on (a commit) while the run measures the code of this one.
  const git = gitCommit();
  const loadAverageBefore = os.loadavg()[0]!;
  const cores = os.availableParallelism();
  if (options.tracingOnly) return tracingOnly(options, git.commit);
  if (options.changesOnly) return changeListsOnly(options, git.commit);
  // Installed and read before measuring: a peer that cannot be installed stops the run here, not at its end.
  if (options.http && installPeers()) log('installed the peers into bench/peers/node_modules');
  const peerInfo = options.http ? describePeers() : [];

  for (const scale of options.scales) ensureDataset(scale, options.regenerate, log);
  const datasets = options.scales.map(readDataset);

  const micro: BenchResults['micro'] = [];
  if (options.micro) {
    for (const scale of options.scales) {
      log(`in-process figures at ${scale}x (${datasetDir(scale)}), ${options.microRuns} run${options.microRuns === 1 ? '' : 's'}`);
      const runs = Array.from({ length: options.microRuns }, () => runMicro(scale, options.iterations));
      micro.push({ scale, ...medianOfRuns(runs) });
    }
  }

  const settings: SettingProbe[] = [];
  const http: HttpRun[] = [];
  if (options.http) {
    log(`building the server: npm run build → ${SERVER_BUNDLE}`);
    buildServer();
    settings.push(await probeSetting('RESPONSE_CACHE', 'maybe'), await probeSetting('WORKERS', 'many'));
    for (const setting of settings) log(`${setting.name}: ${setting.implemented ? 'read by the server' : 'not implemented yet'} (${setting.evidence})`);

    const plan = planRuns(options.scales, cores, options.scenarios);
    const total = plan.reduce((n, p) => n + p.scenarios.length, 0);
    let done = 0;
    for (const { setup, scenarios } of plan) {
      const env = { RESPONSE_CACHE: setup.responseCache ? '1' : '0', WORKERS: String(setup.workers) };
      const label = `${setup.scale}x, RESPONSE_CACHE=${env.RESPONSE_CACHE}, WORKERS=${env.WORKERS}`;
      log(`starting the server: ${label}`);
      let server: RealServer | null = null;
      let peers: PeersOfRun = { running: [], error: null };
      let startError: string | null = null;
      const codeHash = await serverCodeHash();
      try {
        server = await startRealServer({ dataDir: datasetDir(setup.scale), logLevel: options.logLevel, settings: env, timeoutMs: SERVER_READY_TIMEOUT_MS });
        log(`  ready in ${Math.round(server.readyMs)} ms, ${server.processes ?? '?'} process(es)`);
      } catch (error) {
        startError = (error as Error).message;
        log(`  cannot start: ${startError}`);
      }
      try {
        let samples: SampleQuery[] = [];
        if (server && peersRunIn(setup)) {
          log(`  starting the peers: ${PEERS.map((p) => p.name).join(', ')}`);
          peers = await startPeers(datasetDir(setup.scale), setup.responseCache).then(
            (running): PeersOfRun => ({ running, error: null }),
            (error: Error): PeersOfRun => ({ running: [], error: error.message }),
          );
          if (peers.error !== null) log(`  peers cannot start: ${peers.error}`);
        }
        if (server) {
          try {
            samples = await fetchSamples(server.url);
            if (options.serverWarmupS > 0) {
              // A scenario that cannot build its requests fails on its own below.
              const requestsOf = (unseen: boolean) =>
                scenarios
                  .filter((scenario) => (scenario.unseen ?? false) === unseen)
                  .map((scenario) => {
                    try {
                      return scenario.requests(samples);
                    } catch {
                      return [];
                    }
                  });
              const repeated = requestsOf(false).flat();
              // The peers get the same warm-up as the real server, each in its turn.
              for (const { url, adapt } of [{ url: server.url, adapt: (r: BenchRequest) => r }, ...peers.running.map((p) => ({ url: p.url, adapt: p.peer.adapt }))]) {
                if (repeated.length > 0) await warmUp(url, repeated.map(adapt), options.connections, options.serverWarmupS);
                for (const unseen of requestsOf(true)) {
                  if (unseen.length > 0) await warmUp(url, unseen.map(adapt), options.connections, options.serverWarmupS, true);
                }
              }
            }
          } catch (error) {
            startError = `warming up: ${(error as Error).message}`;
            log(`  ${startError}`);
            await server.child.stop();
            server = null;
          }
        }
        for (const scenario of scenarios) {
          done++;
          const unseen = scenario.unseen ?? false;
          const run: HttpRun = {
            scenario: scenario.name,
            description: scenario.description,
            unseen,
            setup,
            env,
            operations: [],
            responseBytes: [],
            serverProcesses: server?.processes ?? null,
            serverReadyMs: Math.round(server?.readyMs ?? 0),
            serverCodeHash: codeHash,
            paired: null,
            cpuCost: null,
            error: startError,
          };
          http.push(run);
          if (!server) continue;
          try {
            const requests = scenario.requests(samples);
            const answers = await fetchAnswers(server.url, requests);
            const sizes = answers.map((a) => Buffer.from(a.body, 'base64').length);
            // Thousands of unseen documents share a handful of names: their sizes are summed up.
            run.operations = unseen ? [...new Set(requests.map((r) => r.name))] : requests.map((r) => r.name);
            run.responseBytes = unseen ? [Math.min(...sizes), Math.max(...sizes)] : sizes;
            const raw = await startRawTwin(answers, setup.workers);
            try {
              run.paired = await runPaired({
                realUrl: server.url,
                rawUrl: raw.url,
                requests,
                connections: options.connections,
                rounds: options.rounds,
                durationS: options.durationS,
                warmupS: options.warmupS,
                unseen,
                ...(peersRunIn(setup) ? { peers: await peerSides(peers, requests) } : {}),
              });
              if (setup.workers === 1 && options.cpuDurationS > 0) {
                // Half the rate the real server reached: both sides keep up, neither is saturated.
                run.cpuCost = await measureCpuCost({
                  realUrl: server.url,
                  rawUrl: raw.url,
                  requests,
                  connections: options.connections,
                  unseen,
                  ratePerS: Math.max(1, Math.round(run.paired.real.reqPerS / 2)),
                  durationS: options.cpuDurationS,
                  realCpuS: () => groupCpuSeconds(server!.child),
                  rawCpuS: () => groupCpuSeconds(raw.child),
                });
              }
            } finally {
              await raw.child.stop();
            }
            const { ratio, real, raw: twin } = run.paired;
            const cpu = run.cpuCost ? `; CPU per answer at ${run.cpuCost.ratePerS} req/s: real ${run.cpuCost.realUs} µs, raw ${run.cpuCost.rawUs} µs` : '';
            const peerFigures = (run.paired.peers ?? []).map((p) => `${p.name} ${p.ratio === null ? `n/a (${p.error})` : `${(p.ratio * 100).toFixed(1)} %`}`);
            log(
              `  [${done}/${total}] ${scenario.name}: ${(ratio * 100).toFixed(1)} % of raw; real ${Math.round(real.reqPerS)} req/s p50 ${real.p50Ms} p99 ${real.p99Ms} ms; raw ${Math.round(twin.reqPerS)} req/s p50 ${twin.p50Ms} p99 ${twin.p99Ms} ms${cpu}${peerFigures.length > 0 ? `; peers: ${peerFigures.join(', ')}` : ''}`,
            );
          } catch (error) {
            run.error = (error as Error).message;
            log(`  [${done}/${total}] ${scenario.name}: ${run.error}`);
          }
        }
      } finally {
        await server?.child.stop();
        await stopPeers(peers.running);
      }
    }
  }

  const scaling = options.http && cores > 1 ? await measurePairedScaling(options, http, cores) : [];
  const reload = options.http && options.reload ? await measureReloads(options) : [];
  const tracing = options.http && options.tracing ? await measureTracingReport(options, git.commit) : undefined;
  const pull: PullRun[] = [];
  if (options.pull) {
    for (const scale of options.scales) {
      log(`pull mode at ${scale}x: one fetch of ${datasetDir(scale)} from a loopback origin, then polls`);
      const run = await measurePull(scale, datasetDir(scale)).catch((error: Error) => log(`  pull at ${scale}x failed: ${error.message}`));
      if (!run) continue;
      log(`  peak RSS ${run.peakRssMB.toFixed(0)} MB (before ${run.rssBeforeMB.toFixed(0)} MB), fetch CPU ${Math.round(run.fetchCpuMs)} ms, ${run.pollCpuMs.toFixed(2)} ms CPU per poll`);
      pull.push(run);
    }
  }

  const partial: Omit<BenchResults, 'targets'> = {
    date: new Date(startedAt).toISOString(),
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    durationS: Math.round((Date.now() - startedAt) / 1000),
    machine: {
      cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
      cpus: cores,
      totalMemoryGB: Math.round(os.totalmem() / 1e9),
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      node: process.version,
      loadAverageBefore,
      loadAverageAfter: os.loadavg()[0]!,
    },
    git,
    options: {
      quick: options.quick,
      rounds: options.rounds,
      durationS: options.durationS,
      warmupS: options.warmupS,
      serverWarmupS: options.serverWarmupS,
      connections: options.connections,
      cpuDurationS: options.cpuDurationS,
      scales: options.scales,
      logLevel: options.logLevel,
      iterations: options.iterations,
      microRuns: options.microRuns,
    },
    server: `node ${SERVER_BUNDLE}, bundled by \`npm run build\` at the start of the run, with NODE_ENV=production, as the container runs it`,
    loadGenerator: `autocannon ${autocannonVersion()} in the harness process (one thread), on the same machine as the servers`,
    settings,
    peers: peerInfo,
    datasets,
    http,
    scaling,
    reload,
    ...(tracing ? { tracing } : {}),
    ...(pull.length > 0 ? { pull } : {}),
    micro,
  };
  const results: BenchResults = { ...partial, targets: checkTargets(partial) };
  await fs.mkdir(path.dirname(options.out), { recursive: true });
  await writeReport(results, options.out, options.markdown);
  const met = results.targets.filter((t) => t.met === true).length;
  const missed = results.targets.filter((t) => t.met === false).length;
  log(`wrote ${options.out} and ${options.markdown} in ${results.durationS} s: ${met} targets met, ${missed} missed`);
}

/** Tracing on against off (bench/tracing.ts), with the conditions it ran in. */
async function measureTracingReport(options: Options, commit: string): Promise<TracingReport> {
  const startedAt = Date.now();
  const loadAverageBefore = os.loadavg()[0]!;
  const runs = await measureTracing({
    scenarios: options.scenarios,
    rounds: options.rounds,
    durationS: options.durationS,
    warmupS: options.warmupS,
    serverWarmupS: options.serverWarmupS,
    connections: options.connections,
    logLevel: options.logLevel,
    dataDir: datasetDir(1),
    timeoutMs: SERVER_READY_TIMEOUT_MS,
    fetchSamples,
    log,
  });
  return {
    date: new Date(startedAt).toISOString(),
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    durationS: Math.round((Date.now() - startedAt) / 1000),
    commit,
    loadAverageBefore,
    loadAverageAfter: os.loadavg()[0]!,
    options: { rounds: options.rounds, durationS: options.durationS, warmupS: options.warmupS, serverWarmupS: options.serverWarmupS, connections: options.connections, scale: 1 },
    runs,
  };
}

/**
 * `--tracing-only`: tracing on against off alone, its figures put into the results JSON and the
 * report of the last full run (or written alone when there is none yet).
 */
async function tracingOnly(options: Options, commit: string): Promise<void> {
  log(`building the server: npm run build → ${SERVER_BUNDLE}`);
  buildServer();
  const report = await measureTracingReport(options, commit);
  const results = await fs.readFile(options.out, 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}));
  await fs.mkdir(path.dirname(options.out), { recursive: true });
  await fs.writeFile(options.out, `${JSON.stringify({ ...results, tracing: report }, null, 2)}\n`);
  const markdown = await fs.readFile(options.markdown, 'utf8').catch(() => '');
  await fs.writeFile(options.markdown, replaceSection(markdown, renderTracing(report)));
  log(`wrote the tracing figures into ${options.out} and ${options.markdown} in ${report.durationS} s`);
}

/**
 * `--changes-only`: what the change lists cost, per scale, into the results JSON (`changeLists`) and
 * the "## Change lists" section of the report (the full run's other figures kept):
 * the sync's time per later version, and the server's figures with the lists and without them,
 * each the median of `--micro-runs` fresh processes taken in turns.
 */
async function changeListsOnly(options: Options, commit: string): Promise<void> {
  const startedAt = Date.now();
  const loadAverageBefore = os.loadavg()[0]!;
  const figures: ChangeListsFigures[] = [];
  for (const scale of options.scales) {
    const sync = ensureVersionsDataset(scale, options.regenerate, log);
    const dir = versionsDir(scale);
    const without = withoutChangeLists(dir);
    const withRuns: ServerChangeLists[] = [];
    const withoutRuns: ServerChangeLists[] = [];
    for (let run = 0; run < options.microRuns; run++) {
      log(`change lists at ${scale}x: server run ${run + 1} of ${options.microRuns}, with and without`);
      withRuns.push(runServerMeasure(dir, options.iterations));
      withoutRuns.push(runServerMeasure(without, options.iterations));
    }
    const withLists = medianOfRuns(withRuns);
    const withoutLists = medianOfRuns(withoutRuns);
    const share = (a: number, b: number) => Math.round((a / b - 1) * 1000) / 10;
    figures.push({
      scale,
      sync,
      server: { with: withLists, without: withoutLists },
      loadAndIndexPercent: share(withLists.loadMs + withLists.indexMs, withoutLists.loadMs + withoutLists.indexMs),
      loadAndIndexCpuPercent: share(withLists.loadAndIndexCpuMs, withoutLists.loadAndIndexCpuMs),
      memoryPercent: share(withLists.memoryMB, withoutLists.memoryMB),
    });
    log(
      `change lists at ${scale}x: sync ${sync.map((s) => `${s.changeListsMs} ms (${s.changeVersions} back)`).join(', ')}; ` +
        `load+index ${Math.round(withLists.loadMs + withLists.indexMs)} ms against ${Math.round(withoutLists.loadMs + withoutLists.indexMs)} ms, memory ${withLists.memoryMB} MB against ${withoutLists.memoryMB} MB; ` +
        `changes p50 ${(withLists.answers ?? []).map((a) => `${a.area} ${a.p50Ms} ms`).join(', ')}`,
    );
  }
  const results = await fs.readFile(options.out, 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}));
  await fs.mkdir(path.dirname(options.out), { recursive: true });
  await fs.writeFile(options.out, `${JSON.stringify({ ...results, changeLists: figures }, null, 2)}\n`);
  const run = {
    date: new Date(startedAt).toISOString(),
    command: ['npm run bench', '--', ...process.argv.slice(2)].join(' '),
    commit,
    loadAverage: [loadAverageBefore, os.loadavg()[0]!] as [number, number],
    microRuns: options.microRuns,
    iterations: options.iterations,
    figures,
  };
  const markdown = await fs.readFile(options.markdown, 'utf8').catch(() => '');
  await fs.writeFile(options.markdown, replaceSection(markdown, renderChangeLists(run)));
  log(`wrote the change lists' figures into ${options.out} and ${options.markdown}`);
}

/**
 * What the published versions of the hot-reload scenario change: every file (the targets), then
 * the activities' alone, as the sync that runs most often does.
 */
const RELOAD_CHANGES: readonly ChangedSources[] = ['all', ['activities']];

/** The hot-reload scenario (bench/reload.ts) at each scale, on a one-worker server serving a copy of the dataset. */
async function measureReloads(options: Options): Promise<ReloadRun[]> {
  const runs: ReloadRun[] = [];
  for (const scale of options.scales) {
    log(`hot reload at ${scale}x: ${options.rounds} round(s) of the mix with and without a new version published`);
    const dataDir = await copyDataset(datasetDir(scale));
    let server: RealServer | null = null;
    try {
      // The server's "reload done" line (info) gives the reload's longest event-loop delay, at
      // --log-level info only: that level also logs every request, a cost the default warn spares.
      server = await startRealServer({ dataDir, logLevel: options.logLevel, settings: { RESPONSE_CACHE: '0', WORKERS: '1' }, timeoutMs: SERVER_READY_TIMEOUT_MS });
      const requests = SCENARIOS.find((scenario) => scenario.name === 'mix')!.requests(await fetchSamples(server.url));
      if (options.serverWarmupS > 0) await warmUp(server.url, requests, options.connections, options.serverWarmupS);
      for (const changed of RELOAD_CHANGES) {
        const run = await measureReload({
          scale,
          server: { url: server.url, output: server.child.output },
          dataDir,
          requests,
          connections: options.connections,
          rounds: options.rounds,
          durationS: options.durationS,
          timeoutMs: SERVER_READY_TIMEOUT_MS,
          changed,
        });
        log(
          `  ${changedLabel(changed)}: max ${run.reload.maxMs} ms (baseline ${run.baseline.maxMs} ms), ` +
            `p99 ${run.reload.p99Ms} ms (baseline ${run.baseline.p99Ms} ms), longest event-loop delay ${run.reload.longestDelayMs ?? '?'} ms`,
        );
        runs.push(run);
      }
    } catch (error) {
      log(`  hot reload at ${scale}x failed: ${(error as Error).message}`);
    } finally {
      await server?.child.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }
  return runs;
}

/**
 * Measures each CPU-bound scenario (bench/report.ts cpuBoundShare, of its one-worker run in
 * `http`) again on a one-worker server and one with every core, started side by side and
 * measured in turns (bench/report.ts PairedScaling).
 */
async function measurePairedScaling(options: Options, http: readonly HttpRun[], cores: number): Promise<PairedScaling[]> {
  const rows: PairedScaling[] = [];
  for (const scale of options.scales) {
    const cpuBound = SCENARIOS.flatMap((scenario) => {
      const one = http.find((run) => run.scenario === scenario.name && run.setup.scale === scale && !run.setup.responseCache && run.setup.workers === 1);
      const bound = one ? cpuBoundShare(one) : null;
      return bound && bound.share <= CPU_BOUND_RATIO ? [{ scenario, share: bound.share }] : [];
    });
    if (cpuBound.length === 0) continue;
    log(`scaling in turns at ${scale}x (WORKERS=1 beside WORKERS=${cores}, RESPONSE_CACHE=0): ${cpuBound.map((c) => c.scenario.name).join(', ')}`);
    const servers: RealServer[] = [];
    let startError: string | null = null;
    try {
      for (const workers of [1, cores]) {
        servers.push(
          await startRealServer({
            dataDir: datasetDir(scale),
            logLevel: options.logLevel,
            settings: { RESPONSE_CACHE: '0', WORKERS: String(workers) },
            timeoutMs: SERVER_READY_TIMEOUT_MS,
          }),
        );
      }
    } catch (error) {
      startError = (error as Error).message;
      log(`  cannot start: ${startError}`);
    }
    try {
      const [one, many] = servers;
      for (const { scenario, share } of cpuBound) {
        const row: PairedScaling = { scenario: scenario.name, scale, workers: cores, cpuBoundShare: share, paired: null, serverProcesses: many?.processes ?? null, error: startError };
        rows.push(row);
        if (!one || !many) continue;
        try {
          const requests = scenario.requests(await fetchSamples(one.url));
          const unseen = scenario.unseen ?? false;
          for (const server of [one, many]) await warmUp(server.url, requests, options.connections, options.serverWarmupS, unseen);
          row.paired = await runPaired({
            realUrl: many.url,
            rawUrl: one.url,
            requests,
            connections: options.connections,
            rounds: options.rounds,
            durationS: options.durationS,
            warmupS: options.warmupS,
            unseen,
            realCpuS: () => groupCpuSeconds(many.child),
            rawCpuS: () => groupCpuSeconds(one.child),
          });
          const { ratio, real, raw } = row.paired;
          const cost = loadGeneratorCost(row);
          log(
            `  ${scenario.name}: ${ratio.toFixed(2)}× (one worker ${Math.round(raw.reqPerS)} req/s, ${cores} workers ${Math.round(real.reqPerS)} req/s)` +
              (cost === null ? '' : `; the load generator took ${(cost.share * 100).toFixed(1)} % of the CPU beside ${cores} workers`),
          );
        } catch (error) {
          row.error = (error as Error).message;
          log(`  ${scenario.name}: ${row.error}`);
        }
      }
    } finally {
      for (const server of servers) await server.child.stop();
    }
  }
  return rows;
}

function autocannonVersion(): string {
  const manifest = JSON.parse(readFileSync('node_modules/autocannon/package.json', 'utf8')) as { version: string };
  return manifest.version;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    killAllNow();
    process.exit(130);
  });
}

try {
  await main();
} catch (error) {
  log(`bench failed: ${(error as Error).stack ?? error}`);
  killAllNow();
  process.exitCode = 1;
}
