import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { lock } from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../server/snapshot/load.ts';
import { mergeById } from '../../../sync/publish/gateSource.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { prune } from '../../../sync/publish/prune.ts';
import { rollback } from '../../../sync/publish/rollback.ts';
import { LOCK_NAME, PublishLockedError } from '../../../sync/publish/lock.ts';
import { type Manifest, type Position, type TourRecord } from '../../../sync/format.ts';
import type { FetchedSource } from '../../../sync/source.ts';
import { readManifest } from '../../../sync/publish/manifest.ts';
import { activities, loadSchema, route, snowdata } from '../helpers/records.ts';

const schema = loadSchema();
let dataDir: string;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'publish-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const at = (day: number, hour = 4) => new Date(Date.UTC(2026, 10, day, hour));

async function manifest(): Promise<Manifest> {
  return (await readManifest(dataDir))!;
}

async function records(file: string): Promise<unknown[]> {
  return JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, file))).toString('utf8'));
}

async function versions(): Promise<string[]> {
  return (await fs.readdir(dataDir)).filter((name) => name !== 'manifest.json').sort();
}

describe('publish', () => {
  it('writes a new version, commits the manifest and the server loads it', async () => {
    const result = await publish({
      dataDir,
      outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) }, activities: { ok: true, fetched: activities(4, at(21).toISOString()) } },
      now: at(21),
    });
    expect(result.version).toBe('2026-11-21T04-00-00Z');
    expect(result.sources.map((s) => [s.source, s.status])).toEqual([
      ['activities', 'published'],
      ['snowdata', 'published'],
    ]);
    const m = await manifest();
    expect(m.version).toBe('2026-11-21T04-00-00Z');
    expect(m.sources.snowdata).toMatchObject({ label: 'Snowdata test feed', lastSync: '2026-11-21T04:00:00.000Z', expiresAt: '2026-11-22T04:00:00.000Z', stale: false });
    expect(m.sources.snowdata!.locales['de-CH']!.routes).toMatchObject({ file: '2026-11-21T04-00-00Z/de-CH/routes.json.gz', count: 10 });
    // Each version keeps the manifest that committed it, for --rollback.
    expect(await readManifest(path.join(dataDir, result.version!))).toEqual(m);

    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.locales['en-CH'].routes).toHaveLength(10);
    expect(snapshot.locales['de-CH'].locations).toHaveLength(4);
    expect(snapshot.locales['fr-CH'].routes).toHaveLength(0);
  });

  it('merges duplicate records across pages by id, keeping the last copy in the place of the first', async () => {
    const fetched = snowdata(3, at(21).toISOString(), ['de-CH']);
    const routes = fetched.locales['de-CH']!.routes!;
    routes.records.push({ ...route(0), status: 'NOINFO' }, route(2));
    routes.received = routes.records.length;
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched } }, now: at(21) });
    expect(result.sources[0]!.areas).toContainEqual({ locale: 'de-CH', area: 'routes', count: 3, previous: null, rejected: 0, duplicates: 2, declared: null, received: 5 });
    const stored = (await records((await manifest()).sources.snowdata!.locales['de-CH']!.routes!.file)) as { id: string; status: string }[];
    expect(stored.map((r) => [r.id, r.status])).toEqual([
      ['route-0', 'NOINFO'],
      ['route-1', 'OPEN'],
      ['route-2', 'OPEN'],
    ]);
  });

  it('keeps the last good data of a failed source, marked stale with its old lastSync, while the others publish', async () => {
    await publish({
      dataDir,
      outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) }, activities: { ok: true, fetched: activities(4, at(21).toISOString()) } },
      now: at(21),
    });
    const result = await publish({
      dataDir,
      outcomes: { snowdata: { ok: false, error: new Error('[GET] "https://snow.example/stations": 503 Service Unavailable') }, activities: { ok: true, fetched: activities(5, at(22).toISOString()) } },
      now: at(22),
    });
    expect(result.sources).toMatchObject([
      { source: 'activities', status: 'published', carried: false },
      { source: 'snowdata', status: 'failed', carried: true, reason: '[GET] "https://snow.example/stations": 503 Service Unavailable' },
    ]);
    const m = await manifest();
    expect(m.version).toBe('2026-11-22T04-00-00Z');
    expect(m.sources.snowdata).toMatchObject({ stale: true, lastSync: '2026-11-21T04:00:00.000Z', expiresAt: '2026-11-22T04:00:00.000Z' });
    // Copied into the new version, so pruning the old one loses nothing.
    expect(m.sources.snowdata!.locales['de-CH']!.routes!.file).toBe('2026-11-22T04-00-00Z/de-CH/routes.json.gz');
    expect(m.sources.activities).toMatchObject({ stale: false, lastSync: '2026-11-22T04:00:00.000Z' });
    await fs.rm(path.join(dataDir, '2026-11-21T04-00-00Z'), { recursive: true });
    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.locales['de-CH'].routes).toHaveLength(10);
    expect(snapshot.locales['de-CH'].locations).toHaveLength(5);
  });

  it('leaves a source that was not requested as it was, stale flag included', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
    await publish({ dataDir, outcomes: { snowdata: { ok: false, error: new Error('down') }, activities: { ok: true, fetched: activities(1, at(22).toISOString()) } }, now: at(22) });
    const result = await publish({ dataDir, outcomes: { activities: { ok: true, fetched: activities(2, at(23).toISOString()) } }, now: at(23) });
    expect(result.sources.map((s) => s.source)).toEqual(['activities']);
    expect((await manifest()).sources.snowdata).toMatchObject({ stale: true, lastSync: '2026-11-21T04:00:00.000Z' });
  });

  it('reports a failed source with no earlier data as failed and publishes nothing for it', async () => {
    const result = await publish({
      dataDir,
      outcomes: { tours: { ok: false, error: new Error('MYSWITZERLAND_API_KEY is not set') }, snowdata: { ok: true, fetched: snowdata(3, at(21).toISOString()) } },
      now: at(21),
    });
    expect(result.sources[1]).toEqual({ source: 'tours', status: 'failed', reason: 'MYSWITZERLAND_API_KEY is not set', forced: [], carried: false, areas: [], gate: null });
    expect(Object.keys((await manifest()).sources)).toEqual(['snowdata']);
  });

  it('writes no version when every requested source failed, and leaves the current one as it was', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
    const before = await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8');
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: false, error: new Error('down') }, tours: { ok: false, error: new Error('down too') } }, now: at(22) });
    expect(result).toMatchObject({ version: null, pruned: [], manifest: { version: '2026-11-21T04-00-00Z' } });
    expect(result.sources.map((s) => [s.source, s.status])).toEqual([['snowdata', 'failed'], ['tours', 'failed']]);
    expect(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')).toBe(before);
    expect((await fs.readdir(dataDir)).filter((name) => name.startsWith('2026'))).toEqual(['2026-11-21T04-00-00Z']);
  });

  it('refuses a source whose item count falls by more than half, and keeps its old data', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(4, at(22).toISOString()) } }, now: at(22) });
    expect(result.sources[0]).toMatchObject({
      status: 'refused',
      carried: true,
      reason:
        'refused by the publish gate: snowdata de-CH routes: shrink: 4 records, down from 10 (40% kept, at least 50% needed); --force would replace 10 records with 4; ' +
        'snowdata en-CH routes: shrink: 4 records, down from 10 (40% kept, at least 50% needed); --force would replace 10 records with 4',
    });
    const m = await manifest();
    expect(m.sources.snowdata).toMatchObject({ stale: true, staleReason: result.sources[0]!.reason, lastSync: '2026-11-21T04:00:00.000Z' });
    expect(m.sources.snowdata!.locales['de-CH']!.routes!.count).toBe(10);
  });

  it('publishes a shrunk source when forced, and says which rule it overrode', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(4, at(22).toISOString(), ['de-CH']) } }, now: at(22), force: true });
    expect(result.sources[0]).toMatchObject({ status: 'published', forced: ['snowdata de-CH routes: shrink: 4 records, down from 10 (40% kept, at least 50% needed); --force would replace 10 records with 4'] });
    expect((await manifest()).sources.snowdata!.locales['de-CH']!.routes!.count).toBe(4);
  });

  it('publishes exactly half of the previous count', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString()) } }, now: at(21) });
    const result = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(5, at(22).toISOString()) } }, now: at(22) });
    expect(result.sources[0]!.status).toBe('published');
  });

  it('refuses a source with more than 2 % of its records failing validation, unless forced', async () => {
    const refused = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(97, at(21).toISOString(), ['de-CH'], 3) } }, now: at(21) });
    expect(refused.sources[0]).toMatchObject({
      status: 'refused',
      carried: false,
      reason:
        'refused by the publish gate: snowdata de-CH routes: too-many-rejected: 3 of 100 records rejected (3%, at most 2% allowed; normalise 3); --force would publish the 97 records kept, without the 3 rejected',
    });
    expect((await manifest()).sources.snowdata).toBeUndefined();

    const within = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(98, at(22).toISOString(), ['de-CH'], 2) } }, now: at(22) });
    expect(within.sources[0]!.status).toBe('published');
    const forced = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(97, at(23).toISOString(), ['de-CH'], 3) } }, now: at(23), force: true });
    expect(forced.sources[0]!.status).toBe('published');
  });

  it('keeps the locales a run did not fetch, and the older lastSync', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(10, at(21).toISOString(), ['de-CH', 'en-CH']) } }, now: at(21) });
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(12, at(22).toISOString(), ['de-CH']) } }, now: at(22) });
    const m = await manifest();
    expect(m.sources.snowdata).toMatchObject({ stale: false, lastSync: '2026-11-21T04:00:00.000Z' });
    expect(m.sources.snowdata!.locales['de-CH']!.routes!.count).toBe(12);
    expect(m.sources.snowdata!.locales['en-CH']!.routes).toMatchObject({ count: 10, file: '2026-11-22T04-00-00Z/en-CH/routes.json.gz' });
    await expect(loadSnapshot(dataDir, schema)).resolves.toBeDefined();
  });

  it('names a second version of the same second with a suffix', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(1, at(21).toISOString()) } }, now: at(21) });
    const second = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(1, at(21).toISOString()) } }, now: at(21) });
    expect(second.version).toBe('2026-11-21T04-00-00Z-1');
  });

  it('keeps the newest N versions and prunes the older ones', async () => {
    for (let day = 1; day <= 4; day++) {
      await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, at(day).toISOString()) } }, now: at(day), keep: 2 });
    }
    expect(await versions()).toEqual(['2026-11-03T04-00-00Z', '2026-11-04T04-00-00Z']);
  });

  it('never prunes the version the manifest points at, and removes leftovers of a killed run', async () => {
    for (let day = 1; day <= 3; day++) {
      await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, at(day).toISOString()) } }, now: at(day) });
    }
    await rollback(dataDir);
    await rollback(dataDir);
    await fs.mkdir(path.join(dataDir, '2026-11-04T04-00-00Z.tmp/de-CH'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'manifest.json.4242.tmp'), '{');
    await fs.writeFile(path.join(dataDir, 'manifest.json.2874106533'), '{');
    await fs.writeFile(path.join(dataDir, 'README'), 'not ours');
    const pruned = await prune(dataDir, 1);
    expect(pruned).toEqual(['2026-11-02T04-00-00Z']);
    expect(await versions()).toEqual(['2026-11-01T04-00-00Z', '2026-11-03T04-00-00Z', 'README']);
    expect((await manifest()).version).toBe('2026-11-01T04-00-00Z');
  });
});

describe('rollback', () => {
  it('points the manifest back at the previous version', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(6, at(21).toISOString()) } }, now: at(21) });
    const first = await manifest();
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(8, at(22).toISOString()) } }, now: at(22) });
    expect(await rollback(dataDir)).toEqual({ from: '2026-11-22T04-00-00Z', to: '2026-11-21T04-00-00Z' });
    expect(await manifest()).toEqual(first);
    expect((await loadSnapshot(dataDir, schema)).locales['de-CH'].routes).toHaveLength(6);
  });

  it('skips an older version whose files are damaged', async () => {
    for (let day = 1; day <= 3; day++) {
      await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(day, at(day).toISOString()) } }, now: at(day) });
    }
    await fs.writeFile(path.join(dataDir, '2026-11-02T04-00-00Z/de-CH/routes.json.gz'), 'tampered');
    expect(await rollback(dataDir)).toEqual({ from: '2026-11-03T04-00-00Z', to: '2026-11-01T04-00-00Z' });
  });

  it('restores the newest intact version when the manifest is unreadable', async () => {
    for (let day = 1; day <= 2; day++) {
      await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(day, at(day).toISOString()) } }, now: at(day) });
    }
    await fs.writeFile(path.join(dataDir, 'manifest.json'), '{"formatVersion": 1, "vers');
    await expect(publish({ dataDir, outcomes: {}, now: at(3) })).rejects.toThrow('manifest.json: not valid JSON');
    expect(await rollback(dataDir)).toEqual({ from: null, to: '2026-11-02T04-00-00Z' });
    expect((await loadSnapshot(dataDir, schema)).version).toBe('2026-11-02T04-00-00Z');
  });

  it('refuses when there is no older version', async () => {
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(1, at(21).toISOString()) } }, now: at(21) });
    await expect(rollback(dataDir)).rejects.toThrow('no version older than 2026-11-21T04-00-00Z to roll back to');
  });
});

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
      const started = performance.now();
      const attempt = publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(4, at(21).toISOString()) } }, now: at(21), lockWaitMs: 400 });
      await expect(attempt).rejects.toThrow(PublishLockedError);
      expect(performance.now() - started).toBeGreaterThanOrEqual(400);
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

describe('mergeById', () => {
  it('keeps one record per id', () => {
    expect(mergeById([{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 1, v: 'c' }])).toEqual([
      { id: 1, v: 'c' },
      { id: 2, v: 'b' },
    ]);
  });
});

/** A tour of 5 km starting in Bern. */
function tour(i: number): TourRecord {
  return {
    id: `tour-${i}`, name: `Aareweg ${i}`, abstract: null, url: null, routeType: 'hike', routeCategory: 'Local', difficulty: 'easy', season: 'summer',
    latitude: 46.95, longitude: 7.44, startPoint: 'Bern', endPoint: 'Bern', distance: 5, duration: 90, ascent: 50, descent: 50, minAltitude: 500, maxAltitude: 560,
    isRoundtrip: false, isBarrierFree: false, switzerlandMobilityRoute: null, switzerlandMobilityUrl: null, geodataUrl: null, providerName: null, providerEmail: null,
    providerPhone: null, providerUrl: null, imageUrl: null, logoUrl: null, landscapes: [], views: [], origin: null, lastUpdated: null,
  };
}

/** The tours source's fetch: `count` tours in de-CH, each with a line of 5 km due north. */
function toursFetched(count: number, fetchedAt: string): FetchedSource {
  const line = { type: 'LineString' as const, coordinates: Array.from({ length: 11 }, (_, i) => [7.44, 46.95 + (5 / 111.195) * (i / 10), 500 + i] as Position) };
  const records = Array.from({ length: count }, (_, i) => tour(i));
  return {
    label: 'MySwitzerland test feed',
    fetchedAt,
    locales: { 'de-CH': { tours: { records, rejected: [], declared: count, received: count, fieldMisses: {} } } },
    geometry: { lines: Object.fromEntries(records.map((r) => [r.id, line])), fetched: count, kept: 0, failed: [] },
  };
}

describe('the tours\' lines', () => {
  it('are written once for the version, carried with the tours, and come back with a rollback', async () => {
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched: toursFetched(4, at(21).toISOString()) } }, now: at(21) });
    const first = await manifest();
    expect(first.geometry).toMatchObject({ file: '2026-11-21T04-00-00Z/geometry.json.gz', count: 4 });
    const lines = (await loadSnapshot(dataDir, schema)).geometry;
    expect(Object.keys(lines)).toEqual(['tour-0', 'tour-1', 'tour-2', 'tour-3']);

    // The tours are not fetched: their lines are carried into the new version.
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(3, at(22).toISOString()) } }, now: at(22) });
    const second = await manifest();
    expect(second.geometry).toMatchObject({ file: '2026-11-22T04-00-00Z/geometry.json.gz', count: 4 });
    expect((await loadSnapshot(dataDir, schema)).geometry).toEqual(lines);

    // A failed fetch of the tours carries them and their lines too.
    await publish({ dataDir, outcomes: { tours: { ok: false, error: new Error('upstream down') }, snowdata: { ok: true, fetched: snowdata(3, at(23).toISOString()) } }, now: at(23) });
    expect((await manifest()).geometry).toMatchObject({ file: '2026-11-23T04-00-00Z/geometry.json.gz', count: 4 });
    expect((await manifest()).sources.tours!.stale).toBe(true);

    // A version whose lines are damaged is not rolled back to.
    await fs.writeFile(path.join(dataDir, second.geometry!.file), 'tampered');
    expect(await rollback(dataDir)).toEqual({ from: '2026-11-23T04-00-00Z', to: '2026-11-21T04-00-00Z' });
    expect((await manifest()).geometry).toEqual(first.geometry);
  });

  it('publishes no line for a tour the gate rejected', async () => {
    const fetched = toursFetched(60, at(21).toISOString());
    const batch = fetched.locales['de-CH']!.tours!;
    // A tour of 5,000 km is rejected (tour-distance); its line goes with it.
    batch.records[0] = { ...batch.records[0]!, distance: 5000 };
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched } }, now: at(21) });
    const { geometry } = await loadSnapshot(dataDir, schema);
    expect(geometry['tour-0']).toBeUndefined();
    expect(Object.keys(geometry)).toHaveLength(59);
  });
});
