/**
 * Paired load runs: autocannon against the real server (A) and the raw twin (B) in turns,
 * A B A B…, so that both see the same machine, whatever else it is doing at the time
 * (https://github.com/mcollina/autocannon#api). Peers (bench/peers/), when given, take their
 * turns after the twin in each round: A B P1 P2… A B P1 P2…
 */

import autocannon from 'autocannon';
import type { BenchRequest } from './scenarios.ts';

/** One side's figures: over one round, or over every round together. */
export interface SideFigures {
  /** 2xx responses per second. */
  reqPerS: number;
  /** 2xx responses. */
  ok: number;
  /** Other statuses, connection errors and timeouts; a valid run has none. */
  non2xx: number;
  errors: number;
  timeouts: number;
  durationS: number;
  /** Latency of 2xx responses in ms, from request written to response read (reported to 0.1 ms). */
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface PairedResult {
  /** Real req/s over raw req/s, both summed over every round. */
  ratio: number;
  /** The same ratio per round, to show the spread. */
  roundRatios: number[];
  real: SideFigures;
  raw: SideFigures;
  rounds: { real: SideFigures; raw: SideFigures }[];
  /** What each side's answers cost in CPU over its rounds; null unless both sides' clocks were given and read. */
  cpu?: { real: SideCpu; raw: SideCpu } | null;
  /** Each peer's figures, in the order given; absent when no peers ran. */
  peers?: PeerResult[];
}

/** A peer's figures over the same rounds as the real server and the raw twin, or why it has none. */
export interface PeerResult {
  name: string;
  /** The peer's req/s over the raw twin's, both summed over every round; null with an error. */
  ratio: number | null;
  roundRatios: number[];
  figures: SideFigures | null;
  error: string | null;
}

/** A peer to measure in the rounds: its origin and the requests it is sent (the real server's, or their nearest equivalent). */
export interface PeerSide {
  name: string;
  url: string;
  requests: readonly BenchRequest[];
  /** Why the peer is not measured (it did not start, or answered with errors); it then only appears in the result with it. */
  error: string | null;
}

/** CPU time per 2xx answer over a side's rounds, in µs. */
export interface SideCpu {
  /** The side's server: user and system time of every process of it. */
  serverUs: number;
  /** This process: autocannon, which shares the machine's cores with the servers. */
  loadGeneratorUs: number;
}

/** CPU seconds a side's server has used so far; resolves null when they cannot be read (no /proc). */
export type CpuClock = () => Promise<number | null>;

export interface PairedOptions {
  realUrl: string;
  rawUrl: string;
  requests: readonly BenchRequest[];
  connections: number;
  rounds: number;
  /** Per side and round, in seconds. */
  durationS: number;
  /** One unmeasured run per side before the first round, in seconds (the response cache, JIT of this query). */
  warmupS: number;
  /** The requests are unseen documents (bench/scenarios.ts): every connection takes the next of one shared rotation. */
  unseen?: boolean;
  /** Each side's CPU clock: given both, the result tells what an answer cost each server and the load generator ({@link PairedResult.cpu}). */
  realCpuS?: CpuClock;
  rawCpuS?: CpuClock;
  /** Measured after the raw twin in every round, and warmed up like it. */
  peers?: readonly PeerSide[];
}

/** CPU time per answer of both sides, each sent the same requests at the same fixed rate. */
export interface CpuCost {
  /** Requests per second sent to each side. */
  ratePerS: number;
  /** Per side, in seconds. */
  durationS: number;
  /** CPU time (user and system, over every process of the side) per 2xx answer, in µs. */
  realUs: number;
  rawUs: number;
}

export interface CpuCostOptions extends Pick<PairedOptions, 'realUrl' | 'rawUrl' | 'requests' | 'connections' | 'unseen'> {
  ratePerS: number;
  durationS: number;
  /** CPU seconds each side has used so far; null when they cannot be read (no /proc). */
  realCpuS: CpuClock;
  rawCpuS: CpuClock;
}

interface Measured {
  figures: SideFigures;
  latenciesMs: number[];
  /** CPU seconds used during the run by the side's server (null: no clock, or unreadable) and by this process. */
  serverCpuS: number | null;
  loadGeneratorCpuS: number;
}

/**
 * Sends `requests` for `seconds` without measuring: after a server starts, so that its JIT has
 * compiled the common paths before any scenario is measured.
 */
export async function warmUp(url: string, requests: readonly BenchRequest[], connections: number, seconds: number, unseen = false): Promise<void> {
  await load(url, { requests, connections, unseen }, seconds);
}

/** Runs the warm-up, then `rounds` × (real, raw, each peer), and sums them up per side. */
export async function runPaired(options: PairedOptions): Promise<PairedResult> {
  const peers = (options.peers ?? []).filter((peer) => peer.error === null);
  if (options.warmupS > 0) {
    await load(options.realUrl, options, options.warmupS);
    await load(options.rawUrl, options, options.warmupS);
    for (const peer of peers) await load(peer.url, { ...options, requests: peer.requests }, options.warmupS);
  }
  const real: Measured[] = [];
  const raw: Measured[] = [];
  const peerRuns = peers.map((): Measured[] => []);
  for (let round = 0; round < options.rounds; round++) {
    real.push(await load(options.realUrl, options, options.durationS, undefined, options.realCpuS));
    raw.push(await load(options.rawUrl, options, options.durationS, undefined, options.rawCpuS));
    for (const [i, peer] of peers.entries()) peerRuns[i]!.push(await load(peer.url, { ...options, requests: peer.requests }, options.durationS));
  }
  const realTotal = combine(real);
  const rawTotal = combine(raw);
  const realCpu = cpuPerAnswer(real);
  const rawCpu = cpuPerAnswer(raw);
  return {
    ratio: realTotal.reqPerS / rawTotal.reqPerS,
    roundRatios: real.map((r, i) => r.figures.reqPerS / raw[i]!.figures.reqPerS),
    real: realTotal,
    raw: rawTotal,
    rounds: real.map((r, i) => ({ real: r.figures, raw: raw[i]!.figures })),
    ...(options.realCpuS && options.rawCpuS ? { cpu: realCpu && rawCpu ? { real: realCpu, raw: rawCpu } : null } : {}),
    ...((options.peers ?? []).length > 0
      ? {
          peers: options.peers!.map(({ name, error }): PeerResult => {
            const i = peers.findIndex((peer) => peer.name === name);
            if (i < 0) return { name, ratio: null, roundRatios: [], figures: null, error };
            const figures = combine(peerRuns[i]!);
            return { name, ratio: figures.reqPerS / rawTotal.reqPerS, roundRatios: peerRuns[i]!.map((r, j) => r.figures.reqPerS / raw[j]!.figures.reqPerS), figures, error: null };
          }),
        }
      : {}),
  };
}

/** CPU per answer over a side's rounds, or null when its server's clock was not read in every round or it answered nothing. */
function cpuPerAnswer(runs: readonly Measured[]): SideCpu | null {
  const ok = runs.reduce((total, r) => total + r.figures.ok, 0);
  if (ok === 0 || runs.some((r) => r.serverCpuS === null)) return null;
  const serverS = runs.reduce((total, r) => total + r.serverCpuS!, 0);
  const loadGeneratorS = runs.reduce((total, r) => total + r.loadGeneratorCpuS, 0);
  return { serverUs: round((serverS / ok) * 1e6, 1), loadGeneratorUs: round((loadGeneratorS / ok) * 1e6, 1) };
}

/**
 * Sends each side the requests at `ratePerS` for `durationS` and divides the CPU time it used by
 * the answers it gave. Unlike the throughput ratio, this does not depend on how the cores are
 * shared with the load generator: it is what each answer costs the machine.
 * @returns null when a side's CPU time cannot be read or it answered nothing
 */
export async function measureCpuCost(options: CpuCostOptions): Promise<CpuCost | null> {
  const side = async (url: string, cpuS: CpuClock): Promise<number | null> => {
    const { figures, serverCpuS } = await load(url, options, options.durationS, options.ratePerS, cpuS);
    if (serverCpuS === null || figures.ok === 0) return null;
    return (serverCpuS / figures.ok) * 1e6;
  };
  const realUs = await side(options.realUrl, options.realCpuS);
  const rawUs = await side(options.rawUrl, options.rawCpuS);
  if (realUs === null || rawUs === null) return null;
  return { ratePerS: options.ratePerS, durationS: options.durationS, realUs: round(realUs, 1), rawUs: round(rawUs, 1) };
}

async function load(
  url: string,
  options: Pick<PairedOptions, 'requests' | 'connections' | 'unseen'>,
  seconds: number,
  ratePerS?: number,
  serverCpuS?: CpuClock,
): Promise<Measured> {
  const serverBefore = serverCpuS ? await serverCpuS() : null;
  // Read after the server's clock: reading /proc is the harness's work, not the load generator's.
  const ownBefore = process.cpuUsage();
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: seconds,
    timeout: 10,
    ...(ratePerS === undefined ? {} : { overallRate: ratePerS }),
    requests: options.unseen
      ? [sharedRotation(options.requests)]
      : options.requests.map(({ method, path, headers, body }) => (body === '' ? { method, path, headers } : { method, path, headers, body })),
  });
  // autocannon's own histogram keeps whole milliseconds; loopback latencies need finer.
  const latenciesMs: number[] = [];
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
  });
  const result = await instance;
  const own = process.cpuUsage(ownBefore);
  const serverAfter = serverCpuS ? await serverCpuS() : null;
  const durationS = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    figures: figures(latenciesMs, result.non2xx, result.errors, result.timeouts, durationS),
    latenciesMs,
    serverCpuS: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    loadGeneratorCpuS: (own.user + own.system) / 1e6,
  };
}

/** Where each list of unseen documents goes on: its rotation carries over from one run to the next, and from one side to the other. */
const rotations = new WeakMap<readonly BenchRequest[], { next: number }>();

/**
 * One request whose body is the next of `requests` each time any connection sends it, so that a
 * document comes back only after all the others.
 * @throws Error when the requests differ in anything but their body
 */
function sharedRotation(requests: readonly BenchRequest[]): autocannon.Request {
  const { method, path, headers } = requests[0]!;
  if (requests.some((r) => r.method !== method || r.path !== path)) throw new Error('unseen documents must share their method and path');
  let rotation = rotations.get(requests);
  if (!rotation) rotations.set(requests, (rotation = { next: 0 }));
  const turn = rotation;
  return { method, path, headers, setupRequest: (request) => ({ ...request, body: requests[turn.next++ % requests.length]!.body }) };
}

function combine(runs: readonly Measured[]): SideFigures {
  const latencies = runs.flatMap((r) => r.latenciesMs);
  const sum = (pick: (f: SideFigures) => number) => runs.reduce((total, r) => total + pick(r.figures), 0);
  return figures(latencies, sum((f) => f.non2xx), sum((f) => f.errors), sum((f) => f.timeouts), sum((f) => f.durationS));
}

function figures(latenciesMs: number[], non2xx: number, errors: number, timeouts: number, durationS: number): SideFigures {
  const sorted = Float64Array.from(latenciesMs).sort();
  const mean = sorted.length === 0 ? 0 : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    reqPerS: round(sorted.length / durationS, 1),
    ok: sorted.length,
    non2xx,
    errors,
    timeouts,
    durationS: round(durationS, 3),
    p50Ms: round(percentile(sorted, 0.5), 1),
    p99Ms: round(percentile(sorted, 0.99), 1),
    meanMs: round(mean, 2),
  };
}

/**
 * The value at quantile `q` of ascending `sorted` values (nearest rank); 0 when empty.
 * @param q between 0 and 1
 */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** `value` rounded to `digits` decimals. */
export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
