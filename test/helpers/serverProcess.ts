/**
 * The real server as a child process, with its JSON log lines collected as they arrive: for the
 * tests of signals, draining and clusters. It runs this run's bundle (`node dist/server.mjs`, as
 * the image does), which each process, and each worker of a cluster, starts without compiling
 * TypeScript first.
 */

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { bundleDist } from './bundle.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type LogLine = Record<string, any>;

export interface ServerProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Every log line so far, parsed. */
  readonly lines: LogLine[];
  readonly exited: Promise<[code: number | null, signal: NodeJS.Signals | null]>;
  /** Resolves with the first log line (seen or to come) that passes `test`; rejects if the process exits first. */
  logged(test: (line: LogLine) => boolean, what: string): Promise<LogLine>;
  /** {@link ServerProcess.logged} for the first line whose msg starts with `prefix`. */
  loggedMsg(prefix: string): Promise<LogLine>;
  stderr(): string;
}

/**
 * Starts the server on 127.0.0.1, port 0, logging at info, with `env` over the test process's
 * environment.
 *
 * @param options.detached in a process group of its own, so a signal can go to the whole group
 * @param options.args node's arguments; default the bundle's `server.mjs`
 */
export function startServerProcess(env: Record<string, string>, options: { detached?: boolean; args?: string[] } = {}): ServerProcess {
  const args = options.args ?? [path.join(bundleDist(), 'server.mjs')];
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const lines: LogLine[] = [];
  const waiters: { test: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let pending = '';
  child.stdout.on('data', (data: Buffer) => {
    pending += data;
    let end;
    while ((end = pending.indexOf('\n')) !== -1) {
      const line = JSON.parse(pending.slice(0, end)) as LogLine;
      pending = pending.slice(end + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  const logged = (test: (line: LogLine) => boolean, what: string) =>
    new Promise<LogLine>((resolve, reject) => {
      const seen = lines.find(test);
      if (seen) return resolve(seen);
      waiters.push({ test, resolve });
      exited.then(([code]) => reject(new Error(`exited with ${code} before logging ${what}: ${stderr}`)));
    });
  const loggedMsg = (prefix: string) => logged((line) => String(line.msg).startsWith(prefix), `"${prefix}"`);
  return { child, lines, exited, logged, loggedMsg, stderr: () => stderr };
}
