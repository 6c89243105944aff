/**
 * The processes of a benchmark run: the real server (its bundle, as the container runs it),
 * the raw twin (bench/raw.ts) and the peers (bench/peers/), each started in its own process group on loopback so that it and
 * any cluster workers it forks are stopped together, on success, on error and on exit.
 */

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RawAnswer } from './raw.ts';

/** Loopback only: the benchmark never listens on another interface. */
const HOST = '127.0.0.1';

/** Runs the raw twin's and the peers' TypeScript the way `npm start` runs the server's. */
const TSX = ['--import', 'tsx'];

/**
 * The real server as the container runs it (Dockerfile): the bundle `npm run build` writes.
 * Not `npm start`'s tsx, which keeps function names by wrapping every function expression in a
 * call that sets its name, each time it is made: closures made per request cost more there.
 */
export const SERVER_BUNDLE = 'dist/server.mjs';

/** Builds {@link SERVER_BUNDLE} from the working tree with `npm run build`. */
export function buildServer(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Kept output of a child, per stream: enough for the error that stopped it. */
const OUTPUT_TAIL_CHARS = 16_384;

/** How long a stopped process group gets after SIGTERM before SIGKILL, in ms. */
const STOP_GRACE_MS = 3000;

/** A process the benchmark started. */
export interface Child {
  readonly pid: number;
  /** The last stdout and stderr output. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Stops the process and its process group: SIGTERM, then SIGKILL after a grace period. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/**
 * Kills every process group still running, at once; for exit and signal handlers, which
 * cannot wait.
 */
export function killAllNow(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
  running.clear();
}

process.once('exit', killAllNow);

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // detached: the child leads its own process group, whose id is its pid.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Starts `node` with `args`. */
function startChild(args: string[], env: NodeJS.ProcessEnv, ipc: boolean): { child: ChildProcess; handle: Child } {
  const child = spawn(process.execPath, args, {
    env,
    detached: true,
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`cannot start ${args.join(' ')}`);
  running.add(child);
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const pid = child.pid;
  return {
    child,
    handle: {
      pid,
      output: () => out,
      exited,
      async stop() {
        if (!running.has(child)) return;
        killGroup(child, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
        // Cluster workers may outlive their primary for a moment.
        killGroup(child, 'SIGKILL');
      },
    },
  };
}

/** A free TCP port on loopback (free when asked; the caller binds it right after). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The real server, listening. */
export interface RealServer {
  readonly child: Child;
  /** e.g. `http://127.0.0.1:40123` */
  readonly url: string;
  /** From spawn to the first ready answer, in ms: process start, snapshot load, indexes. */
  readonly readyMs: number;
  /** Processes in the server's process group once ready (1 without cluster workers); null when unknown. */
  readonly processes: number | null;
}

/**
 * Starts {@link SERVER_BUNDLE} (built by {@link buildServer}) on a free loopback port and waits
 * until it is ready: `GET /readyz` answers 200 (or, on a server without that path, a trivial
 * GraphQL query does) and its processes have stopped working (below 0.1 core over half a second).
 *
 * @param settings extra environment, e.g. `{ RESPONSE_CACHE: '0', WORKERS: '2' }`
 * @throws Error with the server's output when it exits or is not ready within `timeoutMs`
 */
export async function startRealServer(options: { dataDir: string; logLevel: string; settings: Record<string, string>; timeoutMs: number }): Promise<RealServer> {
  const port = await freePort();
  const url = `http://${HOST}:${port}`;
  const startedAt = performance.now();
  const { handle } = startChild([SERVER_BUNDLE], {
    ...process.env,
    // As the container sets it (Dockerfile ENV): graphql-js then skips the check, on every
    // failed instanceof, that its classes come from one copy of the library.
    NODE_ENV: 'production',
    ...options.settings,
    PORT: String(port),
    HOST,
    DATA_DIR: options.dataDir,
    LOG_LEVEL: options.logLevel,
  }, false);
  let exitCode: number | null | undefined;
  void handle.exited.then((code) => {
    exitCode = code;
  });
  const deadline = startedAt + options.timeoutMs;
  try {
    for (;;) {
      if (exitCode !== undefined) throw new Error(`the server exited with ${exitCode} before it was ready`);
      if (performance.now() > deadline) throw new Error(`the server was not ready within ${options.timeoutMs} ms`);
      if (await isReady(url)) break;
      await sleep(100);
    }
  } catch (error) {
    await handle.stop();
    throw new Error(`${(error as Error).message}; its output:\n${handle.output()}`);
  }
  const readyMs = performance.now() - startedAt;
  // With cluster workers the first answer may come while others still load the snapshot:
  // measure only once the whole process group has gone quiet.
  let group = await readProcessGroup(handle.pid);
  while (group !== null && performance.now() < deadline) {
    await sleep(SETTLE_WINDOW_MS);
    const next = await readProcessGroup(handle.pid);
    if (next === null) break;
    const busyCores = (next.cpuTicks - group.cpuTicks) / CLOCK_TICKS_PER_S / (SETTLE_WINDOW_MS / 1000);
    group = next;
    if (busyCores < SETTLED_BELOW_CORES) break;
  }
  return { child: handle, url, readyMs, processes: group?.processes ?? null };
}

/** Window over which the server's CPU use is sampled after it answers, in ms. */
const SETTLE_WINDOW_MS = 500;
/** The server counts as settled below this much CPU (in cores) over a window. */
const SETTLED_BELOW_CORES = 0.1;
/**
 * This Node.js binary, which runs the servers, as /proc/<pid>/exe names it. A process of theirs
 * is known by it rather than by its name, which differs between Node.js versions ("node" or
 * "MainThread").
 */
const NODE_EXECUTABLE = realpathSync(process.execPath);
/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on Linux (man 5 proc). */
const CLOCK_TICKS_PER_S = 100;

async function isReady(url: string): Promise<boolean> {
  try {
    const readyz = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
    await readyz.arrayBuffer();
    if (readyz.status === 200) return true;
    if (readyz.status !== 404) return false;
    const graphql = await fetch(`${url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
      signal: AbortSignal.timeout(2000),
    });
    await graphql.arrayBuffer();
    return graphql.status === 200;
  } catch {
    // Not listening yet.
    return false;
  }
}

/** CPU seconds (user and system) the live processes of a child's process group have used so far; null without /proc. */
export async function groupCpuSeconds(child: Child): Promise<number | null> {
  const group = await readProcessGroup(child.pid);
  return group === null ? null : group.cpuTicks / CLOCK_TICKS_PER_S;
}

/**
 * The live Node.js processes of a process group (a primary and its cluster workers; not
 * helpers such as tsx's esbuild service) and their CPU time so far, in clock ticks, read from
 * /proc; null where /proc is missing.
 */
export async function readProcessGroup(pgid: number): Promise<{ processes: number; cpuTicks: number } | null> {
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return null;
  }
  let processes = 0;
  let cpuTicks = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8');
      // "pid (command) state ppid pgrp ... utime stime ...": utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      cpuTicks += Number(fields[11]) + Number(fields[12]);
      if ((await fs.readlink(`/proc/${entry}/exe`)) === NODE_EXECUTABLE) processes++;
    } catch {
      // The process ended while we looked.
    }
  }
  return { processes, cpuTicks };
}

/** The raw twin, listening. */
export interface RawTwin {
  readonly child: Child;
  readonly url: string;
}

/**
 * Starts bench/raw.ts with the answers of one scenario and waits until every worker listens.
 * @throws Error with the twin's output when it exits or is not ready within 30 s
 */
export async function startRawTwin(answers: readonly RawAnswer[], workers: number): Promise<RawTwin> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-raw-'));
  const file = path.join(dir, 'answers.json');
  await fs.writeFile(file, JSON.stringify(answers));
  try {
    return await startAnnouncing('the raw twin', ['bench/raw.ts', file], { WORKERS: String(workers) });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Time a process started by {@link startAnnouncing} gets to say it is ready, in ms. */
const ANNOUNCE_TIMEOUT_MS = 60_000;

/**
 * Starts a TypeScript entry (the raw twin, a peer under bench/peers/) on a free loopback port
 * with an IPC channel, and waits for its `ready` message.
 * @param what names the process in errors
 * @param env on top of this process's environment, PORT and HOST
 * @throws Error with the process's output when it exits or is not ready within a minute
 */
export async function startAnnouncing(what: string, args: string[], env: Record<string, string>): Promise<RawTwin> {
  const port = await freePort();
  const { child, handle } = startChild([...TSX, ...args], { ...process.env, ...env, PORT: String(port), HOST }, true);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} was not ready within ${ANNOUNCE_TIMEOUT_MS / 1000} s`)), ANNOUNCE_TIMEOUT_MS);
      child.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      void handle.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited with ${code}`));
      });
    });
  } catch (error) {
    await handle.stop();
    throw new Error(`${(error as Error).message}; its output:\n${handle.output()}`);
  }
  return { child: handle, url: `http://${HOST}:${port}` };
}

/** Whether the server reads a setting. */
export interface SettingProbe {
  name: string;
  implemented: boolean;
  /** What the server said about the invalid value, or why the setting counts as not implemented. */
  evidence: string;
}

/**
 * Tells whether the server reads an environment setting: every setting is validated at start
 * and a bad value stops it with a message naming the variable (server/config/config.ts), so a server
 * that starts past an invalid value, failing only later for want of a snapshot, ignores it.
 */
export async function probeSetting(name: string, invalidValue: string): Promise<SettingProbe> {
  const emptyDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-probe-'));
  try {
    const { handle } = startChild([SERVER_BUNDLE], {
      ...process.env,
      PORT: '0',
      HOST,
      DATA_DIR: emptyDataDir,
      LOG_LEVEL: 'warn',
      [name]: invalidValue,
    }, false);
    const timer = setTimeout(() => void handle.stop(), 60_000);
    await handle.exited;
    clearTimeout(timer);
    await handle.stop();
    const lines = handle.output().split('\n');
    const named = lines.find((line) => line.includes(name));
    if (named) return { name, implemented: true, evidence: `${name}=${invalidValue} is refused: ${messageOf(named)}` };
    const other = lines.find((line) => line.trim() !== '') ?? '(no output)';
    return { name, implemented: false, evidence: `${name}=${invalidValue} is not refused; the server went on to: ${messageOf(other)}` };
  } finally {
    await fs.rm(emptyDataDir, { recursive: true, force: true });
  }
}

/** The message of a JSON log line, or the line itself. */
function messageOf(line: string): string {
  try {
    const parsed = JSON.parse(line) as { msg?: unknown };
    if (typeof parsed.msg === 'string') return parsed.msg;
  } catch {
    // Not a JSON log line.
  }
  return line.trim();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
