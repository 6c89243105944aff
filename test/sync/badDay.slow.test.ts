/**
 * The sync on a bad day: the real CLI, as a child process, against a loopback upstream that
 * misbehaves in each way an upstream has been seen to (sync/fixtures/misbehavingPages.ts and
 * misbehavingData.ts). A refused source leaves the version served before byte for byte, the run
 * exits 1, and stderr names the source and the rule. The child's heap is kept small, so a run
 * that pages without end or keeps every page crashes instead of passing.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DataMisbehaviour, misbehaveData } from '../../sync/fixtures/misbehavingData.ts';
import type { PagingMisbehaviour } from '../../sync/fixtures/misbehavingPages.ts';
import { generateUpstreamData, startUpstream, STNET_PATH, type Upstream, type UpstreamData } from '../../sync/fixtures/upstream.ts';
import type { ActivityRecord, Manifest, SourceName, StationRecord } from '../../sync/format.ts';
import { readManifest } from '../../sync/publish/manifest.ts';
import { readVersionReport } from '../../sync/publish/versionReport.ts';
import { syncDay } from '../../sync/source.ts';
import { CHILD_HEAP_MB, type CliRun, fileHashes, runSyncCli } from './helpers/syncCli.ts';

type Run = CliRun;

/** Runs the sync CLI against `upstream`, publishing into `dataDir`. */
function runCli(upstream: Upstream, dataDir: string, args: string[], heapMb: number | null = CHILD_HEAP_MB): Promise<Run> {
  return runSyncCli(upstream.env, dataDir, args, heapMb);
}

const hashes = fileHashes;

/** The records of one area as published in `manifest`. */
async function published<T>(dataDir: string, manifest: Manifest, source: SourceName, locale: string, area: string): Promise<T[]> {
  const entry = (manifest.sources[source]!.locales as Record<string, Record<string, { file: string }>>)[locale]![area]!;
  return JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, entry.file))).toString('utf8'));
}

/** Per `locale/area`, the hash of the file the manifest serves for `source` (carried files are copied into each new version). */
function servedHashes(fileHashes: Record<string, string>, manifest: Manifest, source: SourceName): Record<string, string | undefined> {
  const locales = manifest.sources[source]!.locales as Record<string, Record<string, { file: string }>>;
  return Object.fromEntries(Object.entries(locales).flatMap(([locale, areas]) => Object.entries(areas).map(([area, entry]) => [`${locale}/${area}`, fileHashes[path.normalize(entry.file)]])));
}

let base: UpstreamData;
/** The previous good version: one well-behaved run of every source, copied for each case. */
let goodDir: string;
let goodRun: Run;
let goodManifest: Manifest;
let goodHashes: Record<string, string>;
let upstream: Upstream | null = null;
const scratch: string[] = [];

beforeAll(async () => {
  // 60 stations, 249 activities (3 content pages), 1,219 attractions, 600 tours: every list has
  // several pages, and one rejected station stays below the rejected share the gate allows.
  base = generateUpstreamData(2026, 0.3);
  goodDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bad-day-good-'));
  const up = await startUpstream(base);
  try {
    goodRun = await runCli(up, goodDir, [], null);
  } finally {
    await up.close();
  }
  goodManifest = (await readManifest(goodDir))!;
  goodHashes = await hashes(goodDir);
}, 180_000);
afterEach(async () => {
  await upstream?.close();
  upstream = null;
});
afterAll(async () => {
  for (const dir of [goodDir, ...scratch]) await fs.rm(dir, { recursive: true, force: true });
});

/** A data directory holding a copy of the previous good version, or nothing on a first sync. */
async function dataDir(previous: boolean): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bad-day-'));
  scratch.push(dir);
  if (previous) await fs.cp(goodDir, dir, { recursive: true });
  return dir;
}

/** Serves the good data as `data` misbehaves, and pages as `paging` does. */
async function serve(options: { data?: DataMisbehaviour; paging?: PagingMisbehaviour } = {}): Promise<Upstream> {
  const data = options.data ? structuredClone(base) : base;
  if (options.data) misbehaveData(data, options.data);
  upstream = await startUpstream(data);
  if (options.paging) upstream.misbehave(options.paging);
  return upstream;
}

/**
 * Asserts that `source` was not published: exit 1, one line of stderr names the source and
 * `rule`, every file of the previous version is unchanged, and the manifest serves the source's
 * previous data byte for byte. A refused source is marked stale with the reason; a failed fetch
 * of the only source requested writes no version, so the manifest stays as it was.
 */
async function expectRefused(dir: string, run: Run, source: SourceName, rule: RegExp, manifestAfter: 'stale' | 'unchanged' = 'stale'): Promise<void> {
  expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(1);
  const line = run.stderr.split('\n').find((l) => l.includes(source) && rule.test(l));
  expect(line, `a line naming ${source} and ${rule}; stderr: ${run.stderr}`).toBeDefined();
  const after = await hashes(dir);
  for (const [file, hash] of Object.entries(goodHashes)) {
    if (file === 'manifest.json') continue;
    expect(after[file], file).toBe(hash);
  }
  const manifest = (await readManifest(dir))!;
  expect(servedHashes(after, manifest, source)).toEqual(servedHashes(goodHashes, goodManifest, source));
  if (manifestAfter === 'unchanged') expect(after['manifest.json']).toBe(goodHashes['manifest.json']);
  else expect(manifest.sources[source]).toMatchObject({ stale: true, staleReason: expect.stringMatching(rule) });
}

/** What the gate counted per locale and area of `source`, from the report beside the version now served. */
async function gateCounts(dir: string, source: SourceName): Promise<Record<string, { rejected: Record<string, number>; cleared: Record<string, number> }>> {
  const manifest = (await readManifest(dir))!;
  const report = (await readVersionReport(dir, manifest.version))!;
  return Object.fromEntries(report.sources[source]!.gate!.areas.map((a) => [`${a.locale} ${a.area}`, { rejected: a.rejected, cleared: a.cleared }]));
}

/** Asserts a refusal on a first sync: exit 1, stderr names the source and `rule`, and nothing of the source is served. */
async function expectRefusedFirst(dir: string, run: Run, source: SourceName, rule: RegExp): Promise<void> {
  expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(1);
  expect(run.stderr.split('\n').find((l) => l.includes(source) && rule.test(l)), `a line naming ${source} and ${rule}; stderr: ${run.stderr}`).toBeDefined();
  const manifest = await readManifest(dir);
  const locales = manifest?.sources[source]?.locales ?? {};
  expect(Object.values(locales).flatMap((areas) => Object.values(areas ?? {}))).toEqual([]);
}

describe('the sync CLI against a well-behaved upstream', () => {
  it('publishes every source in one run', () => {
    expect(goodRun.exitCode, `exit status; stderr: ${goodRun.stderr}`).toBe(0);
    expect(goodRun.stderr).not.toMatch(/not published/);
    for (const source of ['activities', 'snowdata', 'tours', 'attractions'] as const) {
      expect(goodManifest.sources[source]).toMatchObject({ stale: false });
    }
    expect(goodManifest.sources.snowdata!.locales['de-CH']!.stations!.count).toBe(base.snowdata.stations.length);
    expect(goodManifest.sources.tours!.locales['fr-CH']!.tours!.count).toBe(base.tours.fr.length);
  });
});

describe('the sync CLI refuses what a misbehaving upstream sends, and keeps the last good data', () => {
  it('STnet renames { content, unit } to { value, unit }: snowdata is refused for the unreadable snow figures', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'snow-figures-as-value' }), dir, ['snowdata']);
    await expectRefused(dir, run, 'snowdata', /unreadable-field|field-drift/);
    expect(run.stderr).toMatch(/snow\.depthOfSnowResort|snow\.depthResort/);
  });

  it('first sync, STnet sends page 1 for every page: snowdata is refused, nothing of it is served', async () => {
    const dir = await dataDir(false);
    const run = await runCli(await serve({ paging: 'stnet-repeats-first-page' }), dir, ['snowdata']);
    await expectRefusedFirst(dir, run, 'snowdata', /completeness|repeats a page/);
  });

  it('first sync, the content API caps every list at 50: activities are refused for completeness', async () => {
    const dir = await dataDir(false);
    const run = await runCli(await serve({ paging: 'content-caps-at-50' }), dir, ['activities']);
    await expectRefusedFirst(dir, run, 'activities', /completeness/);
    expect(run.stderr).toContain(`of ${base.activities.content.activities.length}`);
  });

  it('the content API serves the same 100 ids on every page: the run stops, within a bounded heap', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ paging: 'content-repeats-page' }), dir, ['activities']);
    await expectRefused(dir, run, 'activities', /repeats a page/, 'unchanged');
    // The first page again, once, then the stop: not an endless run.
    const contentPages = upstream!.requests.filter((r) => r.path === '/swissactivities/content/graphql').length;
    expect(contentPages).toBeLessThan(20);
  }, 90_000);

  it('attractions state one page more than they serve, forever: the run stops, within a bounded heap', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ paging: 'attractions-total-pages-one-more' }), dir, ['attractions']);
    await expectRefused(dir, run, 'attractions', /repeats a page|more pages than/, 'unchanged');
    const perLocale = Math.ceil(base.attractions.de.length / 50);
    expect(upstream!.requests.filter((r) => r.path === '/myswitzerland/v1/attractions' && r.query.lang === 'de').length).toBeLessThan(perLocale * 3);
  }, 90_000);

  it('prices in cents: activities are refused for a unit change of the starting price', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'prices-in-cents' }), dir, ['activities']);
    await expectRefused(dir, run, 'activities', /unit-change|too-many-cleared/);
    expect(run.stderr).toMatch(/summary\.startingPrice|price-below-ceiling/);
  });

  it('with --dry-run, prices in cents are reported with their rule and nothing is written', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'prices-in-cents' }), dir, ['activities', '--dry-run']);
    expect(run.stdout + run.stderr).toMatch(/unit-change/);
    expect(await hashes(dir)).toEqual(goodHashes);
  });

  it('a day in 2020 among the bookable dates: it is no next available date, and the activities publish', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'past-bookable-date' }), dir, ['activities']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const activities = await published<ActivityRecord>(dir, (await readManifest(dir))!, 'activities', 'de-CH', 'activities');
    expect(activities.filter((a) => a.nextAvailableDate !== null).length).toBeGreaterThan(activities.length / 2);
    // The sync runs now: no next available date lies before today, in Switzerland.
    const today = syncDay(new Date());
    expect(activities.filter((a) => a.nextAvailableDate !== null && a.nextAvailableDate < today)).toEqual([]);
  });

  it('CHF 0.00 and EUR prices: cleared and counted, and so many clears refuse activities', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'zero-and-euro-prices' }), dir, ['activities']);
    await expectRefused(dir, run, 'activities', /too-many-cleared/);
    expect(run.stderr).toMatch(/price-above-zero cleared a field in \d+ of \d+ records/);
    expect(run.stderr).toMatch(/price-in-chf cleared a field in \d+ of \d+ records/);
  });

  it('with --force, no price of 0 or in another currency is published', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'zero-and-euro-prices' }), dir, ['activities', '--force']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const cleared = (await gateCounts(dir, 'activities'))['en-CH activities']!.cleared;
    expect(cleared['price-above-zero']).toBeGreaterThan(0);
    expect(cleared['price-in-chf']).toBeGreaterThan(0);
    const activities = await published<ActivityRecord>(dir, (await readManifest(dir))!, 'activities', 'en-CH', 'activities');
    const prices = activities.map((a) => a.summary.startingPrice).filter((p) => p !== null);
    expect(prices.length).toBeGreaterThan(0);
    expect(prices.filter((p) => p.currency !== 'CHF' || !(Number(p.amount) > 0))).toEqual([]);
  });

  it('latitude and longitude swapped on every track: snowdata is refused for the coordinates it would clear', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'swapped-coordinates' }), dir, ['snowdata']);
    await expectRefused(dir, run, 'snowdata', /too-many-cleared|unit-change|field-drift/);
    expect(run.stderr).toContain('coordinates-in-switzerland');
  });

  it('tour distances in metres: the tours are rejected and counted, and tours are refused', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'tour-distances-in-metres' }), dir, ['tours']);
    await expectRefused(dir, run, 'tours', /too-many-rejected|unit-change/);
    expect(run.stderr).toMatch(/tour-distance \d+/);
  });

  it('one 16 MiB snow report: its station is rejected by the record limits, and counted', async () => {
    const dir = await dataDir(true);
    // The text is held as sent, parsed and made plain, so it needs more than the small heap,
    // which bounds paging, not one record.
    const run = await runCli(await serve({ data: 'huge-text' }), dir, ['snowdata'], null);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    // The report is longer than any string a snapshot record may hold, so the record is left out
    // before its texts are read, in the German records that carry it.
    const counts = await gateCounts(dir, 'snowdata');
    expect(counts['de-CH stations']!.rejected).toEqual({ 'record-limits': 1 });
    const manifest = (await readManifest(dir))!;
    const stations = await published<StationRecord>(dir, manifest, 'snowdata', 'de-CH', 'stations');
    const huge = Number((base.snowdata.stations[0] as { id: unknown }).id);
    expect(stations.map((s) => s.id)).not.toContain(huge);
    expect(stations).toHaveLength(base.snowdata.stations.length - 1);
  }, 90_000);
});

describe('the sync CLI on the bad days of a second round', () => {
  it('STnet sends its headers, then a byte every 500 ms: the run ends at SYNC_DEADLINE_MS, naming the source and the deadline', async () => {
    const dir = await dataDir(true);
    const up = await serve();
    up.inject({ path: STNET_PATH, fault: { kind: 'trickle', intervalMs: 500 } });
    const run = await runSyncCli({ ...up.env, SYNC_DEADLINE_MS: '3000' }, dir, ['snowdata']);
    await expectRefused(dir, run, 'snowdata', /SYNC_DEADLINE_MS \(3 s\) passed while its 200 response body was still arriving/, 'unchanged');
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(/^sync: 1 of 1 sources not published: snowdata failed \(last good data kept\): \[GET\] ".*wispostations.*": stopped: SYNC_DEADLINE_MS/);
  });

  it('every station’s lastUpdate in 2031: not-in-future clears them, and so many clears refuse snowdata', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'future-timestamps' }), dir, ['snowdata']);
    await expectRefused(dir, run, 'snowdata', /too-many-cleared/);
    expect(run.stderr).toMatch(/not-in-future cleared a field in 60 of 60 records/);
  });

  it('with --force, no lastUpdate after the sync day is published', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'future-timestamps' }), dir, ['snowdata', '--force']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const stations = await published<StationRecord>(dir, (await readManifest(dir))!, 'snowdata', 'de-CH', 'stations');
    expect(stations.filter((s) => s.lastUpdate !== null && s.lastUpdate.slice(0, 4) === '2031')).toEqual([]);
    expect((await gateCounts(dir, 'snowdata'))['de-CH stations']!.cleared['not-in-future']).toBe(base.snowdata.stations.length);
  });

  it('UTF-8 read as Latin-1 in every text: repaired, counted, and the texts published are those of a good day', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'double-encoded-texts' }), dir, ['tours', 'attractions', 'snowdata']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const manifest = (await readManifest(dir))!;
    const report = (await readVersionReport(dir, manifest.version))!;
    for (const [source, area, field] of [['tours', 'tours', 'name'], ['attractions', 'attractions', 'name'], ['snowdata', 'stations', 'name']] as const) {
      for (const locale of ['de-CH', 'fr-CH']) {
        const now = await published<Record<string, unknown>>(dir, manifest, source, locale, area);
        const before = await published<Record<string, unknown>>(goodDir, goodManifest, source, locale, area);
        expect(now.map((r) => r[field]), `${source} ${locale}`).toEqual(before.map((r) => r[field]));
        const text = JSON.stringify(now.map(({ raw: _raw, ...rest }) => rest));
        expect(text.match(/.{60}(?:Ã|Â).{20}/)?.[0] ?? null, `${source} ${locale}`).toBeNull();
      }
      const counted = report.sources[source]!.gate!.areas.find((a) => a.locale === 'de-CH' && a.area === area)!;
      expect(counted.encoding.repaired, source).toBeGreaterThan(0);
      expect(counted.encoding.damaged, source).toBe(0);
    }
  });

  it('UTF-8 read as Latin-1 with bytes lost: the damage cannot be undone, and damaged-text refuses tours', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'double-encoded-lossy' }), dir, ['tours']);
    await expectRefused(dir, run, 'tours', /damaged-text: \d+ of \d+ records hold a text/);
  });

  it('with --dry-run, the report counts the damaged and the repaired records', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'double-encoded-lossy' }), dir, ['tours', '--dry-run']);
    expect(run.stdout).toMatch(/de-CH tours text encoding: \d+ records with damaged text that could not be repaired/);
    expect(await hashes(dir)).toEqual(goodHashes);
  });
});

describe('the sync CLI cleans what it publishes', () => {
  it('<script>, onclick and javascript: links are published as plain text, and raw keeps what was sent', async () => {
    const dir = await dataDir(true);
    const run = await runCli(await serve({ data: 'hostile-texts' }), dir, ['attractions', 'tours', 'snowdata']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const manifest = (await readManifest(dir))!;
    for (const [source, area] of [['attractions', 'attractions'], ['tours', 'tours'], ['snowdata', 'stations']] as const) {
      const records = await published<Record<string, unknown>>(dir, manifest, source, 'de-CH', area);
      expect(records.length).toBeGreaterThan(0);
      const served = JSON.stringify(records.map(({ raw: _raw, ...rest }) => rest));
      expect(served).not.toMatch(/<script|onclick|onerror|javascript:|data:text\/html|<\/?[ab][ >]/i);
    }
    const stations = await published<StationRecord>(dir, manifest, 'snowdata', 'de-CH', 'stations');
    expect(JSON.stringify(stations[0]!.raw)).toContain('onerror=');
  });

  it('a 500 on an STnet page is retried with a new stn-token, and snowdata publishes', async () => {
    const dir = await dataDir(true);
    const up = await serve();
    up.inject({ path: STNET_PATH, query: { 'stn-page': '1' }, times: 1, fault: { kind: 'status', status: 500 } });
    const run = await runCli(up, dir, ['snowdata']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(0);
    const firstPage = up.requests.filter((r) => r.path === STNET_PATH && r.query['stn-page'] === '1');
    expect(firstPage.map((r) => r.fault)).toEqual(['status', null]);
    expect(firstPage[1]!.query['stn-token']).not.toBe(firstPage[0]!.query['stn-token']);
    expect((await readManifest(dir))!.sources.snowdata).toMatchObject({ stale: false });
  });

  it('every requested source failing: exit 1, no new version, and the manifest stays as it was', async () => {
    const dir = await dataDir(true);
    const before = await fs.readFile(path.join(dir, 'manifest.json'), 'utf8');
    const up = await serve();
    for (const p of ['/myswitzerland/v1/tours', STNET_PATH]) up.inject({ path: p, fault: { kind: 'status', status: 403 } });
    const run = await runCli(up, dir, ['tours', 'snowdata']);
    expect(run.exitCode, `exit status; stderr: ${run.stderr}`).toBe(1);
    expect(run.stdout).toContain(`no new version: every requested source failed; ${path.join(dir, 'manifest.json')} stays at ${goodManifest.version}\n`);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(/^sync: 2 of 2 sources not published: snowdata failed \(last good data kept\): .*403 Forbidden.*; tours failed \(last good data kept\): .*403 Forbidden/);
    expect(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')).toBe(before);
    expect(await hashes(dir)).toEqual(goodHashes);
  });
});
