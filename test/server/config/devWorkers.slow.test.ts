/**
 * `npm run dev` as a developer runs it (npm, then `tsx watch server/main.ts`), over the tiny
 * snapshot: it serves from one process, whatever the number of cores, unless WORKERS says otherwise.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
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

/** Runs `npm run dev` in a process group of its own until it listens, then stops the group; resolves with its JSON log lines. */
async function runDev(): Promise<Record<string, unknown>[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() };
  delete env.WORKERS;
  const child = spawn('npm', ['run', 'dev'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = once(child, 'exit');
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      pending += data;
      let end;
      while ((end = pending.indexOf('\n')) !== -1) {
        const text = pending.slice(0, end);
        pending = pending.slice(end + 1);
        // npm and tsx print lines of their own; the server's are JSON.
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        if (String(line.msg).startsWith('listening on') || String(line.msg).includes('workers listening')) resolve();
      }
    });
    void exited.then(() => reject(new Error('npm run dev exited before it listened')));
  });
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  return lines;
}

describe('npm run dev', () => {
  it('serves from one process by default, loading the snapshot once', async () => {
    const lines = await runDev();
    expect(lines.filter((line) => String(line.msg).startsWith('snapshot loaded'))).toHaveLength(1);
    expect(lines.some((line) => String(line.msg).includes('workers listening'))).toBe(false);
    expect(lines.find((line) => String(line.msg).startsWith('listening on'))).not.toHaveProperty('worker');
  });
});
