/**
 * The sync on a good day: the real CLI, as a child process, against a loopback upstream whose
 * data changes as real data does (sync/fixtures/goodDays.ts), and against the real MySwitzerland
 * attraction samples. Each publishes with exit 0: these are the twins of the bad days that
 * badDay.slow.test.ts sees refused.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_DAYS, type GoodDay, goodDayData } from '../../sync/fixtures/goodDays.ts';
import { readSampleAttractionRows } from '../../sync/fixtures/myswitzerland/attractions.ts';
import { generateUpstreamData, startUpstream, type Upstream, type UpstreamData } from '../../sync/fixtures/upstream.ts';
import type { AttractionRecord, Manifest, SourceName } from '../../sync/format.ts';
import { readManifest } from '../../sync/publish/manifest.ts';
import { readVersionReport } from '../../sync/publish/versionReport.ts';
import { type CliRun, runSyncCli } from './helpers/syncCli.ts';

const SEED = 2026;
const SCALE = 0.3;
let base: UpstreamData;
let goodDir: string;
let upstream: Upstream | null = null;
const scratch: string[] = [];

beforeAll(async () => {
  base = generateUpstreamData(SEED, SCALE);
  goodDir = await fs.mkdtemp(path.join(os.tmpdir(), 'good-day-'));
  const up = await startUpstream(base);
  try {
    const run = await runSyncCli(up.env, goodDir, [], null);
    if (run.exitCode !== 0) throw new Error(`the first sync failed: ${run.stderr}`);
  } finally {
    await up.close();
  }
}, 180_000);
afterEach(async () => {
  await upstream?.close();
  upstream = null;
});
afterAll(async () => {
  for (const dir of [goodDir, ...scratch]) await fs.rm(dir, { recursive: true, force: true });
});

async function dataDir(previous: boolean): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'good-day-'));
  scratch.push(dir);
  if (previous) await fs.cp(goodDir, dir, { recursive: true });
  return dir;
}

async function published<T>(dir: string, manifest: Manifest, source: SourceName, locale: string, area: string): Promise<T[]> {
  const entry = (manifest.sources[source]!.locales as Record<string, Record<string, { file: string }>>)[locale]![area]!;
  return JSON.parse(gunzipSync(await fs.readFile(path.join(dir, entry.file))).toString('utf8'));
}

function expectPublished(run: CliRun, manifest: Manifest, sources: readonly SourceName[]): void {
  expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
  expect(run.stderr).not.toMatch(/not published|refused/);
  for (const source of sources) expect(manifest.sources[source], source).toMatchObject({ stale: false });
}

/** The source each good day changes. */
const SOURCES_OF: Record<GoodDay, SourceName[]> = {
  'catalogue-grows': ['activities', 'snowdata', 'tours', 'attractions'],
  'prices-up': ['activities', 'snowdata'],
  'heavy-snowfall': ['snowdata'],
  'spring-closing': ['snowdata'],
  'tour-renamed': ['tours'],
  'locale-gains-texts': ['tours'],
};

describe('the sync CLI publishes a good day with exit 0', () => {
  for (const kind of Object.keys(GOOD_DAYS) as GoodDay[]) {
    it(`${kind}: ${GOOD_DAYS[kind]}`, async () => {
      const dir = await dataDir(true);
      upstream = await startUpstream(goodDayData(base, kind, SEED, SCALE));
      const run = await runSyncCli(upstream.env, dir, SOURCES_OF[kind], null);
      const manifest = (await readManifest(dir))!;
      expectPublished(run, manifest, SOURCES_OF[kind]);
    }, 90_000);
  }
});

describe('the real MySwitzerland attraction samples', () => {
  it('1,299 rows holding 1,069 ids, served in pages: a first sync publishes the 1,069, and reports the 230 duplicates', async () => {
    const rows = readSampleAttractionRows();
    expect(rows).toHaveLength(1299);
    const dir = await dataDir(false);
    upstream = await startUpstream({ ...base, attractions: { de: rows, en: rows, fr: rows, it: rows } });
    const run = await runSyncCli(upstream.env, dir, ['attractions'], null);
    const manifest = (await readManifest(dir))!;
    expectPublished(run, manifest, ['attractions']);
    const ids = new Set(rows.map((row) => (row as { identifier: string }).identifier));
    for (const locale of ['de-CH', 'en-CH', 'fr-CH', 'it-CH']) {
      const attractions = await published<AttractionRecord>(dir, manifest, 'attractions', locale, 'attractions');
      expect(attractions).toHaveLength(1069);
      expect(new Set(attractions.map((a) => String(a.id)))).toEqual(ids);
    }
    const report = (await readVersionReport(dir, manifest.version))!;
    for (const area of report.sources.attractions!.gate!.areas) {
      expect(area).toMatchObject({ declared: 1299, received: 1299, after: 1069, duplicates: { count: 230 } });
      expect(area.duplicates.differing).toBeGreaterThan(0);
      expect(area.duplicates.differing).toBeLessThanOrEqual(230);
    }
  }, 90_000);
});
