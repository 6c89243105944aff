/** The change lists publish() writes into each version (sync/publish/changes.ts), read back from disk. */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeLists } from '../../../sync/format.ts';
import { readManifest } from '../../../sync/publish/manifest.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { publishTours, tour } from '../../helpers/tourVersions.ts';
import { snowdata } from '../helpers/records.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'change-lists-'));
});
afterEach(() => fs.rm(dataDir, { recursive: true, force: true }));

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 4));
const tours = (n: number) => Array.from({ length: n }, (_, i) => tour(i));

async function changeLists(): Promise<ChangeLists> {
  const manifest = (await readManifest(dataDir))!;
  const lists = JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, manifest.changes!.file))).toString('latin1')) as ChangeLists;
  expect(manifest.changes!.count).toBe(lists.since.length);
  return lists;
}

describe('change lists', () => {
  it('a first version has none; the next lists what changed since it, per locale', async () => {
    await publishTours(dataDir, tours(5), day(16));
    expect(await changeLists()).toEqual({ version: '2026-11-16T04-00-00Z', since: [] });
    await publishTours(dataDir, [...tours(5).slice(1), tour(9)].map((t) => (t.id === tour(2).id ? { ...t, ascent: 1 } : t)), day(17), { locales: ['de-CH'] });
    // en-CH was not fetched: its file is carried, and unchanged.
    expect(await changeLists()).toEqual({
      version: '2026-11-17T04-00-00Z',
      since: [{ version: '2026-11-16T04-00-00Z', createdAt: '2026-11-16T04:00:00.000Z', locales: { 'de-CH': { tours: { upserted: [tour(2).id, tour(9).id], deleted: [tour(0).id] } } } }],
    });
  });

  it('a source carried over changes nothing, and a source added lists all its records as upserted', async () => {
    await publishTours(dataDir, tours(3), day(16));
    await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(2, day(17).toISOString(), ['de-CH']) } }, now: day(17) });
    expect((await changeLists()).since).toEqual([
      { version: '2026-11-16T04-00-00Z', createdAt: '2026-11-16T04:00:00.000Z', locales: { 'de-CH': { routes: { upserted: ['route-0', 'route-1'], deleted: [] } } } },
    ]);
  });

  it('reaches back changeVersions versions, newest first, and outlives the versions pruned after it', async () => {
    for (let i = 0; i < 5; i++) await publishTours(dataDir, tours(3 + i), day(16 + i), { keep: 3, changeVersions: 3 });
    const lists = await changeLists();
    expect(lists.since.map((s) => s.version)).toEqual(['2026-11-19T04-00-00Z', '2026-11-18T04-00-00Z', '2026-11-17T04-00-00Z']);
    expect(lists.since.map((s) => s.locales['de-CH']!.tours!.upserted.length)).toEqual([1, 2, 3]);
    // Pruned to 3 versions: the lists still reach the one pruned.
    expect((await fs.readdir(dataDir)).filter((name) => /^\d{4}-/.test(name)).sort()).toEqual(['2026-11-18T04-00-00Z', '2026-11-19T04-00-00Z', '2026-11-20T04-00-00Z']);
  });

  it('writes empty lists with changeVersions 0, and stops at an earlier version whose file is damaged', async () => {
    await publishTours(dataDir, tours(3), day(16));
    await publishTours(dataDir, tours(4), day(17));
    await publishTours(dataDir, tours(5), day(18), { changeVersions: 0 });
    expect((await changeLists()).since).toEqual([]);
    await fs.writeFile(path.join(dataDir, '2026-11-17T04-00-00Z/de-CH/tours.json.gz'), 'damaged');
    await publishTours(dataDir, tours(6), day(19));
    expect((await changeLists()).since.map((s) => s.version)).toEqual(['2026-11-18T04-00-00Z']);
  });

  it('compares with an earlier file of another layout (written by another tool, in UTF-8) by its records', async () => {
    const named = tours(4).map((t, i) => (i === 1 ? { ...t, name: 'Höhenweg Zürich' } : t));
    await publishTours(dataDir, named, day(16), { locales: ['de-CH'] });
    const manifestFile = path.join(dataDir, '2026-11-16T04-00-00Z', 'manifest.json');
    const copy = JSON.parse(await fs.readFile(manifestFile, 'utf8'));
    const entry = copy.sources.tours.locales['de-CH'].tours;
    const bytes = gzipSync(JSON.stringify(named, null, 1));
    await fs.writeFile(path.join(dataDir, entry.file), bytes);
    entry.sha256 = createHash('sha256').update(bytes).digest('hex');
    await fs.writeFile(manifestFile, JSON.stringify(copy));
    await publishTours(dataDir, named.map((t, i) => (i === 2 ? { ...t, name: 'Über den Pass' } : t)), day(17), { locales: ['de-CH'] });
    expect((await changeLists()).since[0]!.locales).toEqual({ 'de-CH': { tours: { upserted: [tour(2).id], deleted: [] } } });
  });
});
