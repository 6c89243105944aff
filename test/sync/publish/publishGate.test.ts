import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Locale, TourRecord } from '../../../sync/format.ts';
import { readManifest } from '../../../sync/publish/manifest.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { readVersionReport, REPORT_FILE } from '../../../sync/publish/versionReport.ts';
import type { FetchedSource } from '../../../sync/source.ts';
import { snowdata } from '../helpers/records.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'publish-gate-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

const at = (day: number) => new Date(Date.UTC(2026, 10, day, 4));

/** `count` tours in Switzerland, `distance` km long (about), per locale. */
function tours(count: number, fetchedAt: string, options: { distance?: number; name?: (i: number) => string | null; locales?: Locale[] } = {}): FetchedSource {
  const { distance = 10, name = (i) => `Tour ${i}`, locales = ['de-CH', 'en-CH'] } = options;
  const fetched: FetchedSource = { label: 'Tours test feed', fetchedAt, locales: {} };
  for (const locale of locales) {
    const records = Array.from({ length: count }, (_, i) => ({ id: `tour-${i}`, name: name(i), distance: distance + (i % 3), latitude: 46.6, longitude: 7.9 }) as unknown as TourRecord);
    fetched.locales[locale] = { tours: { records, rejected: [], declared: count, received: count, fieldMisses: {} } };
  }
  return fetched;
}

/** Every file under the data directory with its sha256, by path from it. */
async function tree(dir = dataDir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dataDir, file)] = createHash('sha256').update(await fs.readFile(file)).digest('hex');
  }
  return out;
}

const inVersion = (files: Record<string, string>, version: string) => Object.fromEntries(Object.entries(files).filter(([file]) => file.startsWith(`${version}/`)));

describe('publish through the gate', () => {
  it('keeps a refused source’s last good data, leaves the previous version byte for byte, and writes the rule as its staleReason', async () => {
    const first = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    const before = inVersion(await tree(), first.version!);

    // Metres read as kilometres: the median moves a thousandfold.
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(22).toISOString(), { distance: 1000 }) } }, now: at(22) });

    expect(result.sources[0]).toMatchObject({ source: 'tours', status: 'refused', carried: true });
    expect(result.sources[0]!.reason).toBe(
      'refused by the publish gate: tours de-CH tours: unit-change: the median of distance moved from 11 to 1001 (91×, at most 10× allowed); --force would publish distance in what is likely another unit; ' +
        'tours en-CH tours: unit-change: the median of distance moved from 11 to 1001 (91×, at most 10× allowed); --force would publish distance in what is likely another unit',
    );
    expect(inVersion(await tree(), first.version!)).toEqual(before);
    const manifest = (await readManifest(dataDir))!;
    expect(manifest.version).toBe(result.version);
    expect(manifest.sources.tours).toMatchObject({ stale: true, staleReason: result.sources[0]!.reason, lastSync: at(21).toISOString() });
    // The carried file is the same bytes as the last good one.
    const carried = manifest.sources.tours!.locales['de-CH']!.tours!;
    expect(carried.sha256).toBe(before[`${first.version}/de-CH/tours.json.gz`]);
  });

  it('clears the staleReason once the source publishes again', async () => {
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    await publish({ dataDir, outcomes: { tours: { ok: false, error: new Error('503 Service Unavailable') }, snowdata: { ok: true, fetched: snowdata(3, at(22).toISOString()) } }, now: at(22) });
    expect((await readManifest(dataDir))!.sources.tours).toMatchObject({ stale: true, staleReason: '503 Service Unavailable' });
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(23).toISOString()) } }, now: at(23) });
    const entry = (await readManifest(dataDir))!.sources.tours!;
    expect(entry.stale).toBe(false);
    expect(entry).not.toHaveProperty('staleReason');
  });

  it('writes the gate’s report beside each version, and the next run compares against it', async () => {
    const first = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    const report = (await readVersionReport(dataDir, first.version!))!;
    expect(report).toMatchObject({ version: first.version, createdAt: at(21).toISOString(), syncDay: '2026-11-21' });
    expect(report.sources.tours).toMatchObject({ status: 'published', reason: null, gate: { source: 'tours', outcome: 'publish' } });
    expect(report.sources.tours!.statistics!['de-CH']!.tours).toMatchObject({ count: 20, medians: { distance: 11 }, fillRates: { name: 1, distance: 1 } });

    // Without the report there is nothing to compare with: the same fetch would publish.
    const dry = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(22).toISOString(), { distance: 1000 }) } }, now: at(22), dryRun: true });
    expect(dry.sources[0]!.status).toBe('refused');
    await fs.rm(path.join(dataDir, first.version!, REPORT_FILE));
    const unjudged = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(22).toISOString(), { distance: 1000 }) } }, now: at(22), dryRun: true });
    expect(unjudged.sources[0]!.status).toBe('published');
  });

  it('without a report, still refuses a shrink against the manifest’s counts and holds fields to the floors', async () => {
    const first = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    await fs.rm(path.join(dataDir, first.version!, REPORT_FILE));
    const shrunk = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(5, at(22).toISOString(), { locales: ['de-CH'] }) } }, now: at(22), dryRun: true });
    expect(shrunk.sources[0]!.gate!.refused.map((r) => [r.rule, r.figures])).toEqual([['shrink', { records: 5, before: 20 }]]);
    const unnamed = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(22).toISOString(), { name: () => null, locales: ['de-CH'] }) } }, now: at(22), dryRun: true });
    expect(unnamed.sources[0]!.gate!.refused.map((r) => r.rule)).toEqual(['fill-floor']);
  });

  it('counts every row sent against the declared total, as the upstream counts it, and reports the records sent again as duplicates', async () => {
    const fetched = tours(10, at(21).toISOString(), { locales: ['de-CH'] });
    const batch = fetched.locales['de-CH']!.tours!;
    batch.records = Array.from({ length: 10 }, () => batch.records).flat();
    Object.assign(batch, { declared: 100, received: 100 });
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched } }, now: at(21), dryRun: true });
    expect(result.sources[0]!.gate!.refused).toEqual([]);
    expect(result.sources[0]!.gate!.areas[0]).toMatchObject({ declared: 100, received: 100, after: 10, duplicates: { count: 90, differing: 0 } });
    expect(result.sources[0]!.areas[0]).toMatchObject({ count: 10, duplicates: 90, received: 100 });
  });

  it('carries a source’s statistics with its files when it is not fetched or is refused', async () => {
    const first = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    const statistics = (await readVersionReport(dataDir, first.version!))!.sources.tours!.statistics;

    const other = await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(3, at(22).toISOString()) } }, now: at(22) });
    expect((await readVersionReport(dataDir, other.version!))!.sources.tours).toEqual({ status: 'carried', reason: null, gate: null, statistics });

    const refused = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(5, at(23).toISOString()) } }, now: at(23) });
    const kept = (await readVersionReport(dataDir, refused.version!))!.sources.tours!;
    expect(kept).toMatchObject({ status: 'refused', statistics });
    expect(kept.gate!.refused.map((r) => r.rule)).toEqual(['shrink', 'shrink']);
  });

  it('holds a first sync to the fill floors', async () => {
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString(), { name: (i) => (i < 15 ? null : `Tour ${i}`), locales: ['de-CH'] }) } }, now: at(21) });
    expect(result.sources[0]).toMatchObject({ status: 'refused', carried: false });
    expect(result.sources[0]!.gate!.refused.map((r) => [r.rule, r.figures])).toEqual([['fill-floor', { field: 'name', filledNow: 0.25, floor: 0.9 }]]);
    expect((await readManifest(dataDir))!.sources.tours).toBeUndefined();
  });

  it('publishes a refused source with force, and the report says what was forced', async () => {
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(22).toISOString(), { distance: 1000, locales: ['de-CH'] }) } }, now: at(22), force: true });
    expect(result.sources[0]).toMatchObject({ status: 'published', carried: false });
    expect(result.sources[0]!.forced).toEqual([
      'tours de-CH tours: unit-change: the median of distance moved from 11 to 1001 (91×, at most 10× allowed); --force would publish distance in what is likely another unit',
    ]);
    const report = (await readVersionReport(dataDir, result.version!))!.sources.tours!;
    expect(report.gate).toMatchObject({ outcome: 'forced', refused: [] });
    expect(report.gate!.forced.map((r) => r.rule)).toEqual(['unit-change']);
    // The forced data is what the next run compares against; the locale not fetched keeps its statistics.
    expect(report.statistics!['de-CH']!.tours!.medians).toMatchObject({ distance: 1001 });
    expect(report.statistics!['en-CH']!.tours!.medians).toMatchObject({ distance: 11 });
    expect((await readManifest(dataDir))!.sources.tours).toMatchObject({ stale: false, lastSync: at(21).toISOString() });
  });

  it('publishes nothing on a dry run, and reports what it would publish', async () => {
    await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(20, at(21).toISOString()) } }, now: at(21) });
    const before = await tree();
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched: tours(30, at(22).toISOString()) } }, now: at(22), dryRun: true });
    expect(result).toMatchObject({ version: null, pruned: [], manifest: { version: '2026-11-21T04-00-00Z' } });
    expect(result.sources[0]!.gate).toMatchObject({ outcome: 'publish', areas: [{ locale: 'de-CH', area: 'tours', before: 20, after: 30 }, { locale: 'en-CH', area: 'tours', before: 20, after: 30 }] });
    expect(await tree()).toEqual(before);
  });

  it('counts a record the plausibility rules reject, and one that failed normalising, under their rules', async () => {
    const fetched = tours(100, at(21).toISOString(), { locales: ['de-CH'] });
    const batch = fetched.locales['de-CH']!.tours!;
    batch.records[0] = { ...batch.records[0]!, distance: 4500 };
    batch.rejected.push({ id: 'tour-x', reason: 'missing "name"' });
    batch.received += 1;
    const result = await publish({ dataDir, outcomes: { tours: { ok: true, fetched } }, now: at(21) });
    expect(result.sources[0]!.gate!.areas[0]).toMatchObject({ after: 99, received: 101, rejected: { 'tour-distance': 1, normalise: 1 } });
    expect(result.sources[0]!.areas[0]).toMatchObject({ count: 99, rejected: 2 });
  });
});
