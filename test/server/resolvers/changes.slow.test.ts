/**
 * `changes` across a hot reload: a running server picks up a version a sync publishes beside
 * it, and the next `changes` answers from that version's change lists. Slow: it waits on file
 * watching.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { publishTours, tour } from '../../helpers/tourVersions.ts';

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 4));
const V0 = Array.from({ length: 12 }, (_, i) => tour(i));
const V1 = V0.filter((t) => t.id !== tour(4).id).map((t) => (t.id === tour(8).id ? { ...t, abstract: 'Neu beschrieben.' } : t));

let dataDir: string;
let api: TestApi;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'changes-reload-'));
  await publishTours(dataDir, V0, day(19));
  api = await startTestApi({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await api?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Resolves once `probe` holds, checking every 50 ms for at most `ms`. */
async function until(probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CHANGES = '{ changes(area: tours, since: "2026-11-19T04-00-00Z") { fromVersion toVersion deleted upserted { ... on Tour { id abstract } } } }';

it('answers changes from the version a hot reload brought in', async () => {
  const before = await api.query(CHANGES);
  expect(before.data!.changes).toEqual({ fromVersion: '2026-11-19T04-00-00Z', toVersion: '2026-11-19T04-00-00Z', deleted: [], upserted: [] });

  await publishTours(dataDir, V1, day(20));
  await until(async () => (await api.query('{ tours(limit: 0) { meta { version } } }')).data?.tours.meta.version === '2026-11-20T04-00-00Z');

  const after = await api.query(CHANGES);
  expect(after.data!.changes).toEqual({
    fromVersion: '2026-11-19T04-00-00Z',
    toVersion: '2026-11-20T04-00-00Z',
    deleted: [tour(4).id],
    upserted: [{ id: tour(8).id, abstract: 'Neu beschrieben.' }],
  });
});
