/**
 * The bookable days of activities on small snapshots through real HTTP: a snapshot of format
 * version 1, whose activities keep only their next available date, and a malformed list of days.
 */

import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { startServer } from '../../server/main.ts';
import { SnapshotError } from '../../server/snapshot/load.ts';
import type { Manifest } from '../../sync/format.ts';
import { IN_PROCESS, tempStateDir } from '../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../helpers/tinySnapshot.ts';

let tiny: TinySnapshot | undefined;
afterEach(() => tiny?.remove());

/** Rewrites every activities file of the snapshot with `edit` applied to each record, checksums included. */
async function editActivities(dir: string, edit: (record: Record<string, unknown>, index: number) => void, formatVersion?: number) {
  const manifestPath = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  for (const files of Object.values(manifest.sources.activities!.locales)) {
    const entry = files!.activities!;
    const records = JSON.parse(gunzipSync(await readFile(path.join(dir, entry.file))).toString('utf8')) as Record<string, unknown>[];
    records.forEach(edit);
    const bytes = gzipSync(JSON.stringify(records));
    await writeFile(path.join(dir, entry.file), bytes);
    entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  }
  if (formatVersion !== undefined) (manifest as { formatVersion: number }).formatVersion = formatVersion;
  await writeFile(manifestPath, JSON.stringify(manifest));
}

async function serve(dir: string, clock: () => number) {
  return startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'silent', STATE_DIR: tempStateDir() }), undefined, { clock });
}

async function activities(url: string) {
  const response = await fetch(`${url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ activities { data { id isBookable nextAvailableDate } } }' }),
  });
  return ((await response.json()) as { data: { activities: { data: unknown[] } } }).data.activities.data;
}

describe('bookable days of a snapshot', () => {
  it('reads a snapshot of format version 1, taking each next available date as its one bookable day', async () => {
    tiny = await createTinySnapshot({ count: 2 });
    await editActivities(tiny.dir, (record) => delete record.availableDates, 1);
    let now = Date.parse('2026-11-20T12:00:00Z');
    const server = await serve(tiny.dir, () => now);
    try {
      expect(await activities(server.url)).toEqual([
        { id: 'act-0', isBookable: true, nextAvailableDate: '2026-11-20' },
        { id: 'act-1', isBookable: true, nextAvailableDate: '2026-11-20' },
      ]);
      // That day over, nothing is known to be bookable any more.
      now = Date.parse('2026-11-21T12:00:00Z');
      expect(await activities(server.url)).toEqual([
        { id: 'act-0', isBookable: false, nextAvailableDate: null },
        { id: 'act-1', isBookable: false, nextAvailableDate: null },
      ]);
    } finally {
      await server.close();
    }
  });

  it('serves the days of a version 2 snapshot, runs of days included', async () => {
    tiny = await createTinySnapshot({ count: 2 });
    const dates = [['2026-11-20', '2026-11-23/2026-11-25'], ['2026-12-01']];
    await editActivities(tiny.dir, (record, i) => (record.availableDates = dates[i]));
    const server = await serve(tiny.dir, () => Date.parse('2026-11-23T23:30:00Z'));
    try {
      // 00:30 on 24 November in Zurich: within the run, and after act-0's first day.
      expect(await activities(server.url)).toEqual([
        { id: 'act-0', isBookable: true, nextAvailableDate: '2026-11-24' },
        { id: 'act-1', isBookable: true, nextAvailableDate: '2026-12-01' },
      ]);
    } finally {
      await server.close();
    }
  });

  it.each([
    [['2026-11-20', '2026-11-20'], '[1]: 2026-11-20 is not after the entry before it'],
    [['2026-11-25/2026-11-20'], '[0]: 2026-11-25/2026-11-20 ends before it starts'],
    [['20.11.2026'], '[0]: "20.11.2026" is not YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD'],
    ['2026-11-20', 'expected a list of days, found "2026-11-20"'],
  ])('refuses to load availableDates %j, naming the problem', async (dates, problem) => {
    tiny = await createTinySnapshot({ count: 1 });
    await editActivities(tiny.dir, (record) => (record.availableDates = dates));
    const error = await serve(tiny.dir, Date.now).then(
      async (server) => {
        await server.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toContain(`field "availableDates": ${problem}`);
  });
});
