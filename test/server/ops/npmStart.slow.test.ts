/**
 * `npm start` as the README gives it: a signal sent to the pid npm has stops the server, with
 * whatever npm runs in between, so that nothing is left answering on the port.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let snapshot: TinySnapshot;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});
afterAll(() => snapshot.remove());

/** Whether something accepts connections on the port of 127.0.0.1. */
async function accepts(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/** Whether a process of the pid is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each([
  ['SIGTERM', '1', 'listening on'],
  ['SIGINT', '2', '2 workers listening'],
] as const)('npm start, sent %s, with WORKERS=%s', (signal, workers, listening) => {
  // npm start runs the TypeScript under tsx: each process compiles it as it starts.
  it('stops the server and every process it started, leaving the port closed', { timeout: 300_000 }, async () => {
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKERS: workers, DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(npm, 'exit');
    const lines: Record<string, any>[] = [];
    let port = 0;
    let pending = '';
    const listeningNow = new Promise<void>((resolve, reject) => {
      npm.stdout.on('data', (data: Buffer) => {
        pending += data;
        let end;
        while ((end = pending.indexOf('\n')) !== -1) {
          const text = pending.slice(0, end);
          pending = pending.slice(end + 1);
          // npm's own lines (`> … start`) come first.
          if (!text.startsWith('{')) continue;
          const line = JSON.parse(text);
          lines.push(line);
          if (String(line.msg).startsWith(listening)) {
            port = line.port;
            resolve();
          }
        }
      });
      void exited.then(() => reject(new Error('npm start exited before listening')));
    });
    try {
      await listeningNow;
      expect(await accepts(port)).toBe(true);
      const pids = lines.filter((line) => typeof line.pid === 'number').map((line) => line.pid as number);
      expect(pids).toHaveLength(Number(workers) > 1 ? Number(workers) : 0);

      process.kill(npm.pid!, signal);
      await exited;
      expect(await accepts(port)).toBe(false);
      expect(pids.filter(alive)).toEqual([]);
      expect(lines.some((line) => line.signal === signal)).toBe(true);
    } finally {
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    }
  });
});
