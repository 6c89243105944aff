import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lock } from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publish, rollback } from '../../sync/publish.ts';
import { LOCK_NAME, PublishLockedError } from '../../sync/publishLock.ts';
import { type Manifest, readManifest } from '../../sync/snapshot.ts';
import { activities, snowdata } from './helpers/records.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'publish-lock-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const at = (day: number, hour = 4) => new Date(Date.UTC(2026, 10, day, hour));

async function manifest(): Promise<Manifest> {
  return (await readManifest(dataDir))!;
}

/** Holds the publish lock as another sync process would, until the returned function is called. */
function holdLock(): Promise<() => Promise<void>> {
  return lock(dataDir, { lockfilePath: path.join(dataDir, LOCK_NAME), realpath: false });
}

describe('the publish lock', () => {
  it('lets two syncs that publish at once both land: the second builds on the first', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(3, at(20).toISOString()) } }, now: at(20) });
    // As cron would run the stations and the activities sync at the same minute.
    const [stations, bookable] = await Promise.all([
      publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(5, at(21, 4).toISOString()) } }, now: at(21, 4) }),
      publish({ dataDir, outcomes: { activities: { ok: true, fetched: activities(2, at(21, 5).toISOString()) } }, now: at(21, 5) }),
    ]);
    const m = await manifest();
    expect([stations.version, bookable.version]).toContain(m.version);
    // Neither source is carried over from the manifest both runs started with.
    expect(m.sources.snowdata).toMatchObject({ lastSync: '2026-11-21T04:00:00.000Z', stale: false });
    expect(m.sources.activities).toMatchObject({ lastSync: '2026-11-21T05:00:00.000Z', stale: false });
    expect(await fs.readdir(dataDir)).not.toContain(LOCK_NAME);
  });

  it('waits for another sync to finish publishing', async () => {
    const release = await holdLock();
    const publishing = publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, at(21).toISOString()) } }, now: at(21), lockWaitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await readManifest(dataDir)).toBeNull();
    await release();
    expect((await publishing).version).toBe('2026-11-21T04-00-00Z');
    expect((await manifest()).version).toBe('2026-11-21T04-00-00Z');
  });

  it('gives up after the wait, naming the lock, and leaves the snapshot as it was', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, at(20).toISOString()) } }, now: at(20) });
    const before = await manifest();
    const release = await holdLock();
    try {
      const attempt = publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(4, at(21).toISOString()) } }, now: at(21), lockWaitMs: 400 });
      await expect(attempt).rejects.toThrow(PublishLockedError);
      await expect(attempt).rejects.toThrow(`another sync is publishing into ${dataDir} (it holds ${path.join(dataDir, LOCK_NAME)}); gave up after`);
      await expect(rollback(dataDir, { lockWaitMs: 200 })).rejects.toThrow(PublishLockedError);
    } finally {
      await release();
    }
    expect(await manifest()).toEqual(before);
    expect((await fs.readdir(dataDir)).sort()).toEqual(['2026-11-20T04-00-00Z', 'manifest.json']);
  });

  it('takes over a lock its holder left behind when it was killed', async () => {
    const lockDir = path.join(dataDir, LOCK_NAME);
    await fs.mkdir(lockDir);
    const minuteAgo = new Date(Date.now() - 60_000);
    await fs.utimes(lockDir, minuteAgo, minuteAgo);
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, at(21).toISOString()) } }, now: at(21), lockWaitMs: 1_000 });
    expect(result.version).toBe('2026-11-21T04-00-00Z');
    expect(await fs.readdir(dataDir)).not.toContain(LOCK_NAME);
  });

  it('does not create a missing data directory to roll it back', async () => {
    const missing = path.join(dataDir, 'nowhere');
    await expect(rollback(missing)).rejects.toThrow(`${missing} does not exist: there is no snapshot to roll back`);
    expect(await fs.readdir(dataDir)).toEqual([]);
  });
});
