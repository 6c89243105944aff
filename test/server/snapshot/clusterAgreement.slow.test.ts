/**
 * A cluster (WORKERS=2, `node --import tsx server/main.ts`) over the tiny snapshot, with the
 * booking sandbox in the primary: the primary, which keeps only the activities, refuses the same
 * new snapshots as the workers, which keep every area, so /v1 and GraphQL serve one version.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../sync/format.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, writeTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let cluster: ServerProcess;
let url: string;

beforeAll(async () => {
  snapshot = await createTinySnapshot({ count: 3 });
  cluster = startServerProcess({ WORKERS: '2', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), BOOKING_MODE: 'sandbox' });
  url = `http://127.0.0.1:${(await cluster.loggedMsg('2 workers listening')).port}`;
});

afterAll(async () => {
  cluster.child.kill('SIGTERM');
  await cluster.exited;
  await snapshot.remove();
});

/** How many activities /v1 lists and how many GraphQL counts, in de-CH. */
async function activityCounts(): Promise<{ booking: number; graphql: number }> {
  const listed = (await (await fetch(`${url}/v1/activities?locale=de_CH`)).json()) as unknown[];
  const counted = (await (await fetch(`${url}/api/graphql?query=${encodeURIComponent('{ activities { total } }')}`)).json()) as { data: { activities: { total: number } } };
  return { booking: listed.length, graphql: counted.data.activities.total };
}

describe('a new snapshot with one broken file outside the activities', () => {
  it('is refused by the primary as by the workers, and both go on serving the old one', async () => {
    expect(await activityCounts()).toEqual({ booking: 3, graphql: 3 });

    // A version with a fourth activity, whose manifest promises one tour more than its file holds.
    const staging = await fs.mkdtemp(path.join(os.tmpdir(), 'staging-'));
    const version = '2026-11-22T04-00-00Z';
    const manifest: Manifest = await writeTinySnapshot(staging, { version, count: 4, lastSync: '2026-11-22T04:00:00.000Z' });
    manifest.sources.tours!.locales['it-CH']!.tours!.count += 1;
    await fs.cp(path.join(staging, version), path.join(snapshot.dir, version), { recursive: true });
    await fs.writeFile(path.join(snapshot.dir, 'manifest.tmp'), JSON.stringify(manifest));
    await fs.rename(path.join(snapshot.dir, 'manifest.tmp'), path.join(snapshot.dir, 'manifest.json'));
    await fs.rm(staging, { recursive: true, force: true });

    const refusedByPrimary = await cluster.loggedMsg('booking: new snapshot refused, still booking from 2026-11-21T04-00-00Z');
    expect(refusedByPrimary.msg).toContain('tours.json.gz: 4 records, expected 5');
    await cluster.logged((line) => line.worker !== undefined && String(line.msg).startsWith('new snapshot refused'), 'a worker refusing');
    expect(await activityCounts()).toEqual({ booking: 3, graphql: 3 });
  });
});
