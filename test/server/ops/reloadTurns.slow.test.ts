/**
 * Staggered reloads on the real process: `node --import tsx server/main.ts` with WORKERS=2 over a
 * copy of the fixture snapshot, to which the test publishes new versions as the sync does. Each
 * worker must load and index a new snapshot in a turn of its own.
 */

import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../../../sync/publish/publish.ts';
import { snowdata } from '../../sync/helpers/records.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type LogLine, type ServerProcess } from '../../helpers/serverProcess.ts';

const FIXTURE_DIR = path.resolve(import.meta.dirname, '../../../data');

let dataDir: string;
let cluster: ServerProcess & { url: string };

beforeAll(async () => {
  // The fixture snapshot rather than a tiny one: indexing it takes a worker long enough that two
  // reloads at once would overlap, and that a worker can be killed in the middle of its own.
  dataDir = await mkdtemp(path.join(tmpdir(), 'reload-turns-'));
  await cp(FIXTURE_DIR, dataDir, { recursive: true });
  const server = startServerProcess({ WORKERS: '2', DATA_DIR: dataDir, STATE_DIR: tempStateDir() });
  const { port } = await server.loggedMsg('2 workers listening');
  cluster = { ...server, url: `http://127.0.0.1:${port}` };
}, 120_000);

afterAll(async () => {
  if (cluster?.child.exitCode === null) {
    cluster.child.kill('SIGTERM');
    await cluster.exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** Publishes a new version into the data directory as the sync does (snowdata fetched anew, the rest carried), on 2026-12-<day>. */
async function publishVersion(day: number): Promise<string> {
  const now = new Date(Date.UTC(2026, 11, day, 4));
  const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(7, now.toISOString()) } }, now, force: true });
  return result.version!;
}

/** A worker's reload, from its log lines: when it started and, unless it died first, when it finished. */
interface Reload {
  worker: number;
  startedMs: number;
  finishedMs?: number;
  snapshot?: string;
}

/** The reloads the workers logged among the lines from `from` on. */
function reloads(from: number): Reload[] {
  const found: Reload[] = [];
  for (const line of cluster.lines.slice(from)) {
    if (String(line.msg).startsWith('snapshot reload started')) found.push({ worker: line.worker, startedMs: Date.parse(line.time) });
    if (String(line.msg).startsWith('snapshot reload finished')) {
      const reload = found.findLast((candidate) => candidate.worker === line.worker && candidate.finishedMs === undefined)!;
      reload.finishedMs = Date.parse(line.time);
      reload.snapshot = line.snapshot;
    }
  }
  return found;
}

/** The worker's line saying it finished reloading and serves `version`, among the lines from `from` on. */
function reloaded(worker: number, version: string, from: number): Promise<LogLine> {
  return cluster.logged(
    (line) => cluster.lines.indexOf(line) >= from && line.worker === worker && line.msg === `snapshot reload finished: serving ${version}`,
    `worker ${worker} serving ${version}`,
  );
}

/** What `/readyz` reports, on a connection of its own so that the requests spread over the workers. */
async function readyVersion(): Promise<string> {
  const response = await fetch(`${cluster.url}/readyz`, { headers: { connection: 'close' } });
  return ((await response.json()) as { snapshot: string }).snapshot;
}

/** Resolves once `probe` holds, checking every 100 ms for at most `ms`. */
async function until(probe: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a cluster of two workers given a new snapshot', () => {
  it('reloads it in one worker at a time, and then serves it from both', async () => {
    const from = cluster.lines.length;
    const version = await publishVersion(1);
    await Promise.all([reloaded(1, version, from), reloaded(2, version, from)]);
    await until(async () => (await Promise.all(Array.from({ length: 6 }, readyVersion))).every((served) => served === version), 30_000);

    const seen = reloads(from).sort((a, b) => a.startedMs - b.startedMs);
    expect(seen.map((reload) => [reload.worker, reload.snapshot])).toEqual(
      expect.arrayContaining([
        [1, version],
        [2, version],
      ]),
    );
    for (let i = 1; i < seen.length; i++) {
      // The one before had finished when this one started.
      expect(seen[i - 1]!.finishedMs).toBeLessThanOrEqual(seen[i]!.startedMs);
    }
  }, 120_000);

  it('passes the turn on when the worker holding it is killed during its reload', async () => {
    const from = cluster.lines.length;
    const version = await publishVersion(2);
    const first = await cluster.logged((line) => cluster.lines.indexOf(line) >= from && String(line.msg).startsWith('snapshot reload started'), 'a reload started');
    const holder = first.worker as number;
    const other = holder === 1 ? 2 : 1;
    const started = cluster.lines.findLast((line) => line.msg === `worker ${holder} started`)!;
    process.kill(started.pid as number, 'SIGKILL');

    const passedOn = await cluster.loggedMsg(`worker ${holder} exited during its snapshot reload`);
    expect(passedOn).toMatchObject({ level: 'warn', worker: holder });
    await reloaded(other, version, from);
    const [killed, survivor] = [holder, other].map((worker) => reloads(from).filter((reload) => reload.worker === worker));
    // Killed while holding the turn: its reload never finished.
    expect(killed).toEqual([{ worker: holder, startedMs: expect.any(Number) }]);
    expect(survivor).toEqual([{ worker: other, startedMs: expect.any(Number), finishedMs: expect.any(Number), snapshot: version }]);
  }, 120_000);
});
