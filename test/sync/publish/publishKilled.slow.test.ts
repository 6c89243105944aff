/**
 * A publish SIGKILLed in a child process at each step of writing a version: the data directory
 * always holds a loadable snapshot, and the next run takes over and publishes. Slow: it starts
 * processes.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { LOCK_NAME } from '../../../sync/publish/lock.ts';
import { readManifest } from '../../../sync/publish/manifest.ts';
import { loadSchema, snowdata } from '../helpers/records.ts';

const schema = loadSchema();
let dataDir: string;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'publish-killed-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const at = (day: number, hour = 4) => new Date(Date.UTC(2026, 10, day, hour));

async function versions(): Promise<string[]> {
  return (await fs.readdir(dataDir)).filter((name) => name !== 'manifest.json').sort();
}

describe('a publish killed at any moment', () => {
  const child = fileURLToPath(new URL('../helpers/publishChild.ts', import.meta.url));

  /**
   * Starts a publish of 4 × `count` routes in a child process and SIGKILLs it as soon as an
   * entry whose name matches `when` appears in the data directory.
   * @returns whether the child finished before the kill landed
   */
  async function killDuring(when: RegExp, count: number): Promise<boolean> {
    const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', child, dataDir, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', (chunk) => (output += chunk));
    proc.stderr!.on('data', (chunk) => (output += chunk));
    const watcher = watch(dataDir, (_event, name) => {
      if (name && when.test(name)) proc.kill('SIGKILL');
    });
    try {
      const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
      if (signal !== 'SIGKILL' && code !== 0) throw new Error(`child failed: ${output}`);
      return signal !== 'SIGKILL';
    } finally {
      watcher.close();
    }
  }

  /**
   * Makes the publish lock a killed child left behind as old as the next scheduled run would
   * find it: past its staleness, so that run takes it over instead of waiting for it. There is
   * none when the child finished first.
   */
  async function ageLeftLock(): Promise<void> {
    const minuteAgo = new Date(Date.now() - 60_000);
    await fs.utimes(path.join(dataDir, LOCK_NAME), minuteAgo, minuteAgo).catch(() => {});
  }

  beforeEach(async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
  });

  it('leaves the previous snapshot loadable when killed while content files are written', async () => {
    const finished = await killDuring(/^2026-11-22T04-00-00Z\.tmp$/, 60_000);
    expect(finished).toBe(false);
    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.version).toBe('2026-11-21T04-00-00Z');
    expect(snapshot.locales['de-CH'].routes).toHaveLength(10);
    // The next run takes over the lock, cleans up and publishes.
    await ageLeftLock();
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(11, at(23).toISOString()) } }, now: at(23) });
    expect(await versions()).toEqual(['2026-11-21T04-00-00Z', result.version]);
  });

  it('leaves a loadable snapshot, old or new, when killed as the version is renamed or the manifest replaced', async () => {
    for (const when of [/^2026-11-22T04-00-00Z$/, /^manifest\.json\.\d+$/, /^manifest\.json$/]) {
      await ageLeftLock();
      await killDuring(when, 2_000);
      const snapshot = await loadSnapshot(dataDir, schema);
      expect(['2026-11-21T04-00-00Z', '2026-11-22T04-00-00Z']).toContain(snapshot.version);
      expect(snapshot.locales['de-CH'].routes).toHaveLength(snapshot.version === '2026-11-21T04-00-00Z' ? 10 : 2_000);
      await fs.rm(path.join(dataDir, '2026-11-22T04-00-00Z'), { recursive: true, force: true });
      await fs.rm(path.join(dataDir, '2026-11-22T04-00-00Z.tmp'), { recursive: true, force: true });
      if (snapshot.version !== '2026-11-21T04-00-00Z') await rollbackTo('2026-11-21T04-00-00Z');
    }
  });

  async function rollbackTo(version: string): Promise<void> {
    const m = (await readManifest(path.join(dataDir, version)))!;
    await fs.writeFile(path.join(dataDir, 'manifest.json'), JSON.stringify(m));
  }
});
