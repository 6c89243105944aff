/**
 * `changes`, `meta.version` and the tours' `updatedSince` over real HTTP, against a data
 * directory of several versions written by the real publish code.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TourRecord } from '../../../sync/format.ts';
import { rollback } from '../../../sync/publish/rollback.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { publishTours, tour } from '../../helpers/tourVersions.ts';

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 4));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

// Five versions, one a day from the 16th: V0 is the oldest, V4 the one served. Change lists
// reach 3 versions back, so V4's reach V3, V2 and V1, and V0 lies beyond them.
const V0 = range(0, 30).map((i) => tour(i));
const V1 = V0.map((t, i) => (i === 3 ? { ...t, name: 'Wanderung geändert 3' } : t)).concat([tour(30)]);
const V2 = V1.filter((t) => t.id !== tour(9).id);
// The same content republished: nothing changes.
const V3 = V2.map((t) => ({ ...t }));
// Tour 5's content changes while its upstream time stays: it counts as changed all the same.
const V4 = V3.filter((t) => t.id !== tour(7).id).map((t) => (t.id === tour(5).id ? { ...t, distance: 99 } : t)).concat([tour(31)]);
const VERSIONS = [V0, V1, V2, V3, V4];
const ID = ['2026-11-16T04-00-00Z', '2026-11-17T04-00-00Z', '2026-11-18T04-00-00Z', '2026-11-19T04-00-00Z', '2026-11-20T04-00-00Z'];

let dataDir: string;
let api: TestApi;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'changes-'));
  for (const [i, tours] of VERSIONS.entries()) {
    const result = await publishTours(dataDir, tours, day(16 + i), { changeVersions: 3 });
    expect(result.version).toBe(ID[i]);
  }
  api = await startTestApi({ DATA_DIR: dataDir });
});

afterAll(async () => {
  await api?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** What changed from `before` to `after`, by brute force over the records, in `after`'s list order. */
function expectedChanges(before: readonly TourRecord[], after: readonly TourRecord[], listOrder: readonly string[]) {
  const old = new Map(before.map((t) => [t.id, JSON.stringify(t)]));
  const now = new Set(after.map((t) => t.id));
  const changed = new Set(after.filter((t) => old.get(t.id) !== JSON.stringify(t)).map((t) => t.id));
  return { upserted: listOrder.filter((id) => changed.has(id)), deleted: before.filter((t) => !now.has(t.id)).map((t) => t.id) };
}

const CHANGES = `query ($area: ChangesArea!, $since: String!, $locale: String, $limit: Int, $offset: Int) {
  changes(area: $area, since: $since, locale: $locale, limit: $limit, offset: $offset) {
    fromVersion toVersion total hasMore deleted
    upserted { __typename ... on Tour { id name distance } }
  }
}`;

async function changes(since: string, extra: Record<string, unknown> = {}) {
  return api.query(CHANGES, { area: 'tours', since, ...extra });
}

async function listOrder(): Promise<string[]> {
  const answer = await api.query('{ tours(limit: 500) { data { id } } }');
  return answer.data!.tours.data.map((t: { id: string }) => t.id);
}

describe('changes', () => {
  it('lists what was added, changed and removed since each version the change lists reach, and nothing unchanged', async () => {
    const order = await listOrder();
    for (const from of [1, 2, 3]) {
      const answer = await changes(ID[from]!, { limit: 500 });
      expect(answer.errors).toBeUndefined();
      const { upserted, deleted } = expectedChanges(VERSIONS[from]!, V4, order);
      expect(answer.data!.changes).toEqual({
        fromVersion: ID[from],
        toVersion: ID[4],
        total: upserted.length + deleted.length,
        hasMore: false,
        deleted,
        upserted: upserted.map((id) => {
          const record = V4.find((t) => t.id === id)!;
          return { __typename: 'Tour', id, name: record.name, distance: record.distance };
        }),
      });
    }
  });

  it('since V1: the tour added then, the one changed then and the ones changed and added later; the two removed', async () => {
    const answer = await changes(ID[1]!, { limit: 500 });
    const ids = answer.data!.changes.upserted.map((t: { id: string }) => t.id).sort();
    expect(ids).toEqual([tour(31).id, tour(5).id].sort());
    expect(answer.data!.changes.deleted).toEqual([tour(7).id, tour(9).id]);
    // Changed in V1 itself: not since.
    expect(ids).not.toContain(tour(3).id);
  });

  it('a version republished with the same content lists nothing as changed', async () => {
    const answer = await changes(ID[3]!, { limit: 500 });
    expect(answer.data!.changes.upserted.map((t: { id: string }) => t.id).sort()).toEqual([tour(5).id, tour(31).id].sort());
    expect(answer.data!.changes.deleted).toEqual([tour(7).id]);
  });

  it('since the version served: nothing, from and to that version', async () => {
    expect((await changes(ID[4]!)).data!.changes).toEqual({ fromVersion: ID[4], toVersion: ID[4], total: 0, hasMore: false, deleted: [], upserted: [] });
  });

  it('a time picks the newest version created at or before it', async () => {
    const from = async (since: string) => (await changes(since)).data?.changes.fromVersion;
    expect(await from('2026-11-18T04:00:00Z')).toBe(ID[2]);
    expect(await from('2026-11-18T03:59:59.999Z')).toBe(ID[1]);
    expect(await from('2026-11-18T12:00:00+01:00')).toBe(ID[2]);
    expect(await from('2026-11-19')).toBe(ID[2]);
    expect(await from('2030-01-01T00:00:00Z')).toBe(ID[4]);
    const sinceTime = await changes('2026-11-17T05:00:00Z', { limit: 500 });
    const sinceVersion = await changes(ID[1]!, { limit: 500 });
    expect(sinceTime.data).toEqual(sinceVersion.data);
  });

  it('refuses a version older than the change lists reach, an unknown one and a time before them, naming the oldest version covered', async () => {
    for (const since of [ID[0]!, '2026-11-19T04-00-00Z-7', '2020-01-01T00-00-00Z', '2026-11-17T03:00:00Z']) {
      const answer = await changes(since);
      expect(answer.data).toBeNull();
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors![0]).toMatchObject({ path: ['changes'], extensions: { code: 'CHANGES_SINCE_TOO_OLD', oldestVersion: ID[1] } });
      expect(answer.errors![0]!.message).toContain(`(${ID[1]})`);
    }
  });

  it('refuses a since that is neither a version nor a time, and a bad limit, as BAD_USER_INPUT naming the argument', async () => {
    for (const since of ['yesterday', '2026-11-18T04:00:00', '2026-02-30', '']) {
      const answer = await changes(since);
      expect(answer.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
      expect(answer.errors![0]!.message).toMatch(/^since: /);
    }
    const tooMany = await changes(ID[1]!, { limit: 501 });
    expect(tooMany.errors![0]!.message).toBe('limit: 501 is out of range; allowed: 0 to 500');
  });

  it('pages run over the upserted records, then the deleted ids, and add up to the whole answer', async () => {
    const whole = (await changes(ID[1]!, { limit: 500 })).data!.changes;
    expect(whole.total).toBe(4);
    const items: unknown[] = [];
    for (let offset = 0; ; offset += 1) {
      const page = (await changes(ID[1]!, { limit: 1, offset })).data!.changes;
      expect(page.total).toBe(whole.total);
      items.push(...page.upserted, ...page.deleted);
      expect(page.upserted.length + page.deleted.length).toBe(offset < whole.total ? 1 : 0);
      expect(page.hasMore).toBe(offset + 1 < whole.total);
      if (!page.hasMore) break;
    }
    expect(items).toEqual([...whole.upserted, ...whole.deleted]);
    const counts = (await changes(ID[1]!, { limit: 0 })).data!.changes;
    expect(counts).toMatchObject({ total: 4, hasMore: true, upserted: [], deleted: [] });
  });

  it('answers per locale, and an area without changes is empty', async () => {
    const en = await changes(ID[2]!, { locale: 'en-CH', limit: 500 });
    expect(en.data!.changes.total).toBe(3);
    const fr = await changes(ID[2]!, { locale: 'fr-CH' });
    expect(fr.data!.changes).toMatchObject({ total: 0, upserted: [], deleted: [] });
    const stations = await api.query(`{ changes(area: snowdataStations, since: "${ID[2]}") { total } }`);
    expect(stations.data!.changes.total).toBe(0);
  });
});

describe('meta.version and updatedSince', () => {
  it('every list with a meta carries the version served', async () => {
    const answer = await api.query(
      '{ tours(limit: 0) { meta { version } } attractions(limit: 0) { meta { version } } snowdataStations(limit: 0) { meta { version } } snowdataRoutes(limit: 0) { meta { version } } activities(limit: 0) { meta { version } } }',
    );
    expect(answer.errors).toBeUndefined();
    for (const list of Object.values(answer.data!)) expect(list.meta.version).toBe(ID[4]);
  });

  it('updatedSince keeps the tours updated at or after the time, as a scan of the records finds them', async () => {
    for (const since of ['2026-11-08T10:00:00Z', '2026-11-08T10:00:01Z', '2026-11-08', '2026-11-15T11:00:00+01:00', '2026-12-01T00:00:00Z']) {
      const answer = await api.query('query ($s: String) { tours(updatedSince: $s, limit: 500) { total data { id } } }', { s: since });
      const expected = V4.filter((t) => Date.parse(t.lastUpdated!) >= Date.parse(since)).map((t) => t.id).sort();
      expect(answer.data!.tours.data.map((t: { id: string }) => t.id).sort()).toEqual(expected);
      expect(answer.data!.tours.total).toBe(expected.length);
    }
  });

  it('updatedSince combines with the filters', async () => {
    const answer = await api.query('{ tours(updatedSince: "2026-11-08", difficulty: "easy", limit: 500) { data { id difficulty lastUpdated } } }');
    const expected = V4.filter((t) => t.difficulty === 'easy' && Date.parse(t.lastUpdated!) >= Date.parse('2026-11-08')).map((t) => t.id).sort();
    expect(answer.data!.tours.data.map((t: { id: string }) => t.id).sort()).toEqual(expected);
  });

  it('refuses a malformed updatedSince on each list that takes it, naming the argument', async () => {
    for (const list of ['tours', 'activities', 'snowdataStations', 'snowdataRoutes']) {
      const answer = await api.query(`{ ${list}(updatedSince: "last week") { total } }`);
      expect(answer.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
      expect(answer.errors![0]!.message).toMatch(/^updatedSince: "last week" is not an ISO 8601 time/);
    }
  });
});

describe('rollback', () => {
  it('serves the change lists of the version it rolls back to', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'changes-rollback-'));
    try {
      for (const [i, tours] of VERSIONS.entries()) await publishTours(dir, tours, day(16 + i));
      expect(await rollback(dir)).toEqual({ from: ID[4], to: ID[3] });
      const rolledBack = await startTestApi({ DATA_DIR: dir });
      try {
        const answer = await rolledBack.query(CHANGES, { area: 'tours', since: ID[1], limit: 500 });
        const { upserted, deleted } = expectedChanges(V1, V3, await (async () => {
          const list = await rolledBack.query('{ tours(limit: 500) { data { id } } }');
          return list.data!.tours.data.map((t: { id: string }) => t.id);
        })());
        expect(answer.data!.changes).toMatchObject({ fromVersion: ID[1], toVersion: ID[3], deleted });
        expect(answer.data!.changes.upserted.map((t: { id: string }) => t.id)).toEqual(upserted);
        // The version rolled back from is not among V3's earlier versions.
        const fromNewer = await rolledBack.query(CHANGES, { area: 'tours', since: ID[4] });
        expect(fromNewer.errors![0]).toMatchObject({ extensions: { code: 'CHANGES_SINCE_TOO_OLD', oldestVersion: ID[0] } });
      } finally {
        await rolledBack.close();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
