/**
 * What stays on the heap after hot reloads: starts the server in this process on a copy of a
 * dataset, publishes the snapshot again `--reloads` times (default 3), waiting for each swap,
 * then collects garbage and reports, as JSON, how many of the replaced stores and snapshots are
 * still reachable (held by WeakRefs only here, so any other holder is a leak), the heap in use
 * after startup and after the reloads, and optionally writes a heap snapshot.
 *
 *   node --expose-gc --import tsx bench/reloadHeap.ts [--scale N] [--reloads N] [--heap-snapshot FILE]
 */

import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { readConfig } from '../server/config/config.ts';
import { startServer } from '../server/main.ts';
import { createLogger } from '../server/ops/log.ts';
import { datasetDir } from './datasets.ts';
import { copyDataset, publishVersion } from './reload.ts';

const { values } = parseArgs({ options: { scale: { type: 'string', default: '1' }, reloads: { type: 'string', default: '3' }, 'heap-snapshot': { type: 'string' } } });
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const dataDir = await copyDataset(datasetDir(Number(values.scale)));
const stateDir = await fs.mkdtemp(`${dataDir}-state`);
const running = await startServer(readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, STATE_DIR: stateDir, WORKERS: '1' }), createLogger('silent'));
try {
  const heapAfterStartup = await collectedHeapBytes(gc);
  const replaced: WeakRef<object>[] = [];
  for (let reload = 1; reload <= Number(values.reloads); reload++) {
    const version = `reload-${reload}`;
    replaced.push(new WeakRef(running.holder.store), new WeakRef(running.holder.store.snapshot));
    await publishVersion(dataDir, version);
    while (running.holder.store.snapshot.version !== version) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const heapAfterReloads = await collectedHeapBytes(gc);
  let heapSnapshot: { file: string; bytes: number } | undefined;
  if (values['heap-snapshot'] !== undefined) {
    const file = v8.writeHeapSnapshot(values['heap-snapshot']);
    heapSnapshot = { file, bytes: (await fs.stat(file)).size };
  }
  const result = {
    scale: Number(values.scale),
    reloads: Number(values.reloads),
    replacedStillReachable: replaced.filter((ref) => ref.deref() !== undefined).length,
    replaced: replaced.length,
    heapAfterStartupBytes: heapAfterStartup,
    heapAfterReloadsBytes: heapAfterReloads,
    heapSnapshot,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await running.close();
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(stateDir, { recursive: true, force: true });
}

/** The heap in use once everything unreachable is collected (a few turns and full collections). */
async function collectedHeapBytes(collect: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    collect();
  }
  return process.memoryUsage().heapUsed;
}
