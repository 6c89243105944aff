import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../../server/main.ts';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { watchSnapshot } from '../../../server/snapshot/reload.ts';
import { createStore, type Store } from '../../../server/snapshot/store.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { rollback } from '../../../sync/publish/rollback.ts';
import { activities, loadSchema, snowdata } from '../../sync/helpers/records.ts';
import { IN_PROCESS, tempStateDir } from '../../helpers/api.ts';
import { lowPriorityThreads } from '../../helpers/threads.ts';

let dataDir: string;
let running: RunningServer | undefined;
let logs: string[];

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'reload-'));
  logs = [];
  await publishRoutes(10, 21);
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Publishes a snapshot with `count` routes per locale as the sync would, on 2026-11-<day>. */
async function publishRoutes(count: number, day: number): Promise<void> {
  const now = new Date(Date.UTC(2026, 10, day, 4));
  await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(count, now.toISOString()) } }, now, force: true });
}

async function start(): Promise<RunningServer> {
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) });
  running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, STATE_DIR: tempStateDir() }), logger);
  return running;
}

async function routeTotal(): Promise<number> {
  const response = await fetch(`${running!.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ snowdataRoutes(limit: 1) { total } }' }),
  });
  const body = (await response.json()) as { data: { snowdataRoutes: { total: number } } };
  return body.data.snowdataRoutes.total;
}

/** The snapshot version `/api/status` reports. */
async function servedVersion(): Promise<string> {
  const report = (await (await fetch(`${running!.url}/api/status`)).json()) as { snapshot: { version: string } };
  return report.snapshot.version;
}

/** Commits `text` as the manifest the way the sync does: a temp file renamed over it. */
async function replaceManifest(text: string): Promise<void> {
  await fs.writeFile(path.join(dataDir, 'manifest.json.tmp'), text);
  await fs.rename(path.join(dataDir, 'manifest.json.tmp'), path.join(dataDir, 'manifest.json'));
}

/** Resolves once `probe` holds, checking every 50 ms for at most `ms`. */
async function until(probe: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a running server', () => {
  it('keeps the records and indexes of the files a sync carried over unchanged, and loads the others', async () => {
    await start();
    const before = running!.holder.store;
    // A sync of the activities alone carries the snow data's files over as they are.
    const now = new Date(Date.UTC(2026, 10, 22, 4));
    await publish({ dataDir, outcomes: { activities: { ok: true, fetched: activities(3, now.toISOString()) } }, now });
    await until(() => running!.holder.store !== before);
    const after = running!.holder.store;
    expect(after.snapshot.version).toBe('2026-11-22T04-00-00Z');
    for (const locale of ['de-CH', 'en-CH'] as const) {
      expect(after.locales[locale].routes).toBe(before.locales[locale].routes);
      expect(after.locales[locale].stations).toBe(before.locales[locale].stations);
      expect(after.locales[locale].locations.records).toHaveLength(3);
    }
    expect(await routeTotal()).toBe(10);
    const swapped = logs.map((line) => JSON.parse(line)).find((entry) => String(entry.msg).startsWith('serving new snapshot 2026-11-22T04-00-00Z'));
    // Two locales: the snow data's stations and routes kept, the activities' three areas loaded.
    expect(swapped).toMatchObject({ files: 10, filesKept: 4 });
    expect(swapped.msg).toContain('6 of 10 files loaded, the others unchanged (their records and indexes kept)');
  });

  it('serves a newly published snapshot without a restart', async () => {
    await start();
    expect(await routeTotal()).toBe(10);
    await publishRoutes(12, 22);
    await until(async () => (await routeTotal()) === 12);
    expect(running!.holder.store.snapshot.version).toBe('2026-11-22T04-00-00Z');
    expect(logs.some((line) => line.includes('serving new snapshot 2026-11-22T04-00-00Z'))).toBe(true);
  });

  it('keeps serving the old snapshot when the new manifest is broken, and takes the next good one', async () => {
    await start();
    await publishRoutes(12, 22);
    await until(async () => (await routeTotal()) === 12);

    // A manifest naming a file that does not match its checksum.
    const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8'));
    manifest.version = '2026-11-23T04-00-00Z';
    manifest.sources.snowdata.locales['de-CH'].routes.sha256 = '0'.repeat(64);
    await fs.writeFile(path.join(dataDir, 'manifest.json.tmp'), JSON.stringify(manifest));
    await fs.rename(path.join(dataDir, 'manifest.json.tmp'), path.join(dataDir, 'manifest.json'));
    await until(() => logs.some((line) => line.includes('new snapshot refused, still serving 2026-11-22T04-00-00Z')));
    expect(logs.find((line) => line.includes('refused'))).toMatch(/routes\.json\.gz: sha256 [0-9a-f]{64}, expected 0{64}/);
    expect(await routeTotal()).toBe(12);

    // Not even JSON.
    await fs.writeFile(path.join(dataDir, 'manifest.json'), '{"formatVersion": 1, "vers');
    await until(() => logs.filter((line) => line.includes('refused')).length >= 2);
    expect(logs.filter((line) => line.includes('refused')).at(-1)).toContain('manifest.json: not valid JSON');
    expect(await routeTotal()).toBe(12);

    // What an operator does: restore the newest intact version, then sync again.
    expect(await rollback(dataDir)).toEqual({ from: null, to: '2026-11-22T04-00-00Z' });
    await publishRoutes(14, 24);
    await until(async () => (await routeTotal()) === 14);
  });

  it('refuses a new snapshot naming a file that links out of the data directory, without reading it, and keeps serving the old', async () => {
    await start();
    // Elsewhere on the disk: a valid routes file, 14 records, whose checksum the manifest states.
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'elsewhere-'));
    try {
      const now = new Date(Date.UTC(2026, 10, 22, 4));
      await publish({ dataDir: elsewhere, outcomes: { snowdata: { ok: true, fetched: snowdata(14, now.toISOString()) } }, now, force: true });
      const outside = JSON.parse(await fs.readFile(path.join(elsewhere, 'manifest.json'), 'utf8')).sources.snowdata.locales['de-CH'].routes;
      await fs.symlink(path.join(elsewhere, outside.file), path.join(dataDir, 'routes-link.json.gz'));
      const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8'));
      manifest.sources.snowdata.locales['de-CH'].routes = { ...outside, file: 'routes-link.json.gz' };
      await replaceManifest(JSON.stringify(manifest));

      await until(() => logs.some((line) => line.includes('new snapshot refused')));
      const refusal = logs.find((line) => line.includes('new snapshot refused'))!;
      expect(refusal).toContain(
        `still serving 2026-11-21T04-00-00Z: ${path.join(dataDir, 'routes-link.json.gz')}: resolves to ${await fs.realpath(path.join(elsewhere, outside.file))}, outside the data directory`,
      );
      expect(refusal).not.toContain('sha256');
      expect(await routeTotal()).toBe(10);
      expect(await servedVersion()).toBe('2026-11-21T04-00-00Z');
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses a FIFO, as a content file or as the manifest, without hanging, and takes the next good snapshot', async () => {
    await start();
    const fifo = path.join(dataDir, 'routes-fifo.json.gz');
    execFileSync('mkfifo', [fifo]);
    const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8'));
    manifest.sources.snowdata.locales['de-CH'].routes.file = 'routes-fifo.json.gz';
    await replaceManifest(JSON.stringify(manifest));
    await until(() => logs.some((line) => line.includes('new snapshot refused')));
    expect(logs.find((line) => line.includes('new snapshot refused'))).toContain(`${fifo}: a FIFO (named pipe), not a regular file`);
    expect(await servedVersion()).toBe('2026-11-21T04-00-00Z');

    // A reload that hung on the FIFO would never take this one.
    await publishRoutes(12, 22);
    await until(async () => (await routeTotal()) === 12);

    const good = await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8');
    const fifoManifest = path.join(dataDir, 'manifest.fifo');
    execFileSync('mkfifo', [fifoManifest]);
    await fs.rename(fifoManifest, path.join(dataDir, 'manifest.json'));
    await until(() => logs.filter((line) => line.includes('new snapshot refused')).length >= 2);
    expect(logs.filter((line) => line.includes('new snapshot refused')).at(-1)).toContain(
      `${path.join(dataDir, 'manifest.json')}: a FIFO (named pipe), not a regular file`,
    );
    expect(await servedVersion()).toBe('2026-11-22T04-00-00Z');
    await replaceManifest(good);
    await publishRoutes(14, 24);
    await until(async () => (await routeTotal()) === 14);
  });

  it('finishes a request that started on the old snapshot with the old snapshot', async () => {
    await start();
    const before = running!.holder.served;
    await publishRoutes(12, 22);
    await until(() => running!.holder.served !== before);
    // The old store is untouched: whoever holds it still reads the old data.
    expect(before.store.locales['de-CH'].routes.records).toHaveLength(10);
    expect(running!.holder.store.locales['de-CH'].routes.records).toHaveLength(12);
  });
});

describe('watchSnapshot', () => {
  const schema = loadSchema();

  it('reports nothing and loads nothing while the manifest does not change', async () => {
    const swaps: Store[] = [];
    const errors: Error[] = [];
    const watcher = watchSnapshot({ dataDir, schema, onSwap: (s) => swaps.push(s), onError: (e) => errors.push(e), pollMs: 50, debounceMs: 10 });
    try {
      // Without `current`, the first poll loads the snapshot once.
      await until(() => swaps.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(swaps).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      watcher.close();
    }
  });

  it.runIf(process.platform === 'linux')('reads every reload in one thread, started with the watcher and ended when it closes', async () => {
    // Servers of the tests before end their readers as they close.
    await until(() => lowPriorityThreads().length === 0);
    const swaps: Store[] = [];
    const errors: Error[] = [];
    const current = createStore(await loadSnapshot(dataDir, schema));
    const watcher = watchSnapshot({ dataDir, schema, current, onSwap: (s) => swaps.push(s), onError: (e) => errors.push(e), pollMs: 50, debounceMs: 10 });
    try {
      // Before any reload: the thread is there and waiting.
      await until(() => lowPriorityThreads().length === 1);
      const reader = lowPriorityThreads();
      await publishRoutes(12, 22);
      await until(() => swaps.length === 1);
      await publishRoutes(14, 23);
      await until(() => swaps.length === 2);
      expect(swaps.map((store) => store.snapshot.version)).toEqual(['2026-11-22T04-00-00Z', '2026-11-23T04-00-00Z']);
      expect(lowPriorityThreads()).toEqual(reader);
      expect(errors).toEqual([]);
    } finally {
      watcher.close();
    }
    await until(() => lowPriorityThreads().length === 0);
  });

  it.runIf(process.platform === 'linux')('ends the reader thread of a load that began reading as the watcher closed', async () => {
    await until(() => lowPriorityThreads().length === 0);
    const current = createStore(await loadSnapshot(dataDir, schema));
    let granted = false;
    // The turn is granted, and the watcher closed while the load reads the manifest, before its files.
    const turn = async () => {
      granted = true;
      setImmediate(() => watcher.close());
      return () => {};
    };
    const watcher = watchSnapshot({ dataDir, schema, current, turn, onSwap: () => {}, onError: () => {}, pollMs: 50, debounceMs: 10 });
    await until(() => lowPriorityThreads().length === 1);
    const first = lowPriorityThreads();
    await publishRoutes(12, 22);
    await until(() => granted);
    // Closing ended the first thread; the load, reading its files then, started another.
    await until(() => lowPriorityThreads().some((task) => !first.includes(task)));
    await until(() => lowPriorityThreads().length === 0);
  });

  it('stops retrying a broken manifest after maxAttempts until it changes', async () => {
    const errors: Error[] = [];
    const swaps: Store[] = [];
    await fs.writeFile(path.join(dataDir, 'manifest.json'), '[]');
    const watcher = watchSnapshot({ dataDir, schema, onSwap: (s) => swaps.push(s), onError: (e) => errors.push(e), pollMs: 30, debounceMs: 10, maxAttempts: 2 });
    try {
      await until(() => errors.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(errors).toHaveLength(2);
      expect(errors[0]!.message).toContain('manifest.json: expected a JSON object');
      await rollback(dataDir);
      await until(() => swaps.length === 1);
      expect(swaps[0]!.snapshot.version).toBe('2026-11-21T04-00-00Z');
    } finally {
      watcher.close();
    }
  });
});
