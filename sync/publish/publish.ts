/**
 * Publishing with nothing lost: turns what each source fetched into a new snapshot version,
 * carries over the last good data of every source that failed or was refused, commits the
 * manifest, and prunes old versions.
 *
 * Each fetched source goes through the publish gate (gateSource.ts: duplicates merged by id,
 * plausibility rules, verdict) against the statistics in the current version's report.json; a
 * source it refuses is not published unless `force` is set, and its last good data stays,
 * marked stale with the refusal as its staleReason. The new version keeps the gate's report
 * beside its files (versionReport.ts).
 *
 * Publishing holds the data directory's publish lock (lock.ts): a second sync waits for the
 * first to commit, then builds on its manifest.
 */

import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { type AreaName, type FixtureOrigin, LOCALES, type Locale, type Manifest, SOURCE_AREAS, SOURCE_NAMES, type SourceEntry, type SourceName, type TourGeometry, versionId } from '../format.ts';
import { type FetchedSource, syncDay } from '../source.ts';
import type { SourceStatistics } from './gate/types.ts';
import { type GatedSource, gateSource } from './gateSource.ts';
import { DEFAULT_CHANGE_VERSIONS } from './changes.ts';
import { readGeometryOf } from './currentRecords.ts';
import { withPublishLock } from './lock.ts';
import { readManifest } from './manifest.ts';
import { prune } from './prune.ts';
import type { AreaReport, SourceOutcome, SourceReport } from './report.ts';
import { type VersionReport, readVersionReport } from './versionReport.ts';
import { freeVersion } from './versions.ts';
import { type CarriedFile, type SourceSnapshot, writeSnapshot } from './write.ts';

/** Versions kept by default, the current one included. */
export const DEFAULT_KEEP = 5;

export { DEFAULT_CHANGE_VERSIONS };

export interface PublishOptions {
  dataDir: string;
  /** The sources this run fetched; any other source already in the snapshot is carried as is. */
  outcomes: Partial<Record<SourceName, SourceOutcome>>;
  /** Publish a source despite the gate's refusals; its report lists them as forced. */
  force?: boolean;
  /** Run the gate and report, but take no lock and write nothing. */
  dryRun?: boolean;
  /** Versions to keep, the new one included; default {@link DEFAULT_KEEP}. */
  keep?: number;
  /**
   * Earlier versions the new version's change lists reach back to (changes.ts); default
   * {@link DEFAULT_CHANGE_VERSIONS}. Only versions still on disk count, so more than `keep` reach no further.
   */
  changeVersions?: number;
  /** Time of the run; names the version unless `version` is given. */
  now?: Date;
  version?: string;
  /** Longest wait for another sync's publish to finish, in ms; default 2 minutes (lock.ts). */
  lockWaitMs?: number;
  /**
   * Marks the new snapshot as the fixture generator's; only sync/fixtures/main.ts sets it. The
   * mark is never carried over: a sync on top of a fixture snapshot writes a synced one.
   */
  fixture?: FixtureOrigin;
  /** Signs the manifest (SNAPSHOT_SIGNING_KEY: sign.ts); default unsigned. */
  signingKey?: KeyObject | null;
}

export interface PublishResult {
  /** The new version; null when every requested source failed or on a dry run, and nothing was written. */
  version: string | null;
  /** The manifest now committed (the previous one, or null, when nothing was written). */
  manifest: Manifest | null;
  sources: SourceReport[];
  /** Version directories removed. */
  pruned: string[];
  /** The new version's change lists: how many earlier versions they reach, and the ms computing them took; null when nothing was written. */
  changeLists: { versions: number; ms: number } | null;
}

/**
 * Writes a new version from the outcomes and the current snapshot, commits its manifest and
 * prunes old versions. When every requested source failed, writes nothing: a version with no
 * fresh data would only churn the served snapshot and the version history. Fresh sources
 * replace their data; failed or refused ones keep their last good files, marked stale with
 * their old lastSync and a staleReason; locales a source did not fetch keep theirs too, and the
 * source's lastSync is then that of its oldest data. With `dryRun`, judges and reports only.
 *
 * @throws PublishLockedError when another sync publishes into `dataDir` for longer than
 *   `lockWaitMs`; Error when the current manifest cannot be read, a carried file fails its
 *   checksum, or the disk write fails; the current snapshot is then untouched
 */
export async function publish(options: PublishOptions): Promise<PublishResult> {
  const keep = options.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 1) throw new Error(`keep must be an integer of at least 1, got ${keep}`);
  const changeVersions = options.changeVersions ?? DEFAULT_CHANGE_VERSIONS;
  if (!Number.isInteger(changeVersions) || changeVersions < 0) throw new Error(`changeVersions must be an integer of at least 0, got ${changeVersions}`);
  const now = options.now ?? new Date();
  if (options.dryRun) return gateAndWrite({ ...options, keep, now });
  return withPublishLock(options.dataDir, () => gateAndWrite({ ...options, keep, now }), { waitMs: options.lockWaitMs });
}

async function gateAndWrite(options: PublishOptions & { keep: number; now: Date }): Promise<PublishResult> {
  const { dataDir, outcomes, force = false, keep, now } = options;
  const previous = await readManifest(dataDir);
  if (previous && !previous.sources) throw new Error(`${path.join(dataDir, 'manifest.json')}: no "sources"; fix it or run --rollback`);
  const previousReport = previous ? await readVersionReport(dataDir, previous.version) : null;
  const context = { syncDay: syncDay(now) };

  const sources: Partial<Record<SourceName, SourceSnapshot>> = {};
  const kept: VersionReport['sources'] = {};
  const reports: SourceReport[] = [];
  // The tours' lines of the new version: fresh with fresh tours, else the served ones carried.
  let freshLines: Record<string, TourGeometry> | null = null;
  for (const name of SOURCE_NAMES) {
    const outcome = outcomes[name];
    const before = previous?.sources[name];
    const statisticsBefore = previousReport?.sources[name]?.statistics ?? null;
    if (!outcome) {
      if (before) {
        sources[name] = carry(before, before.stale, before.staleReason);
        kept[name] = { status: 'carried', reason: before.staleReason ?? null, gate: null, statistics: statisticsBefore };
      }
      continue;
    }
    const report: SourceReport = { source: name, status: 'published', reason: null, forced: [], carried: false, areas: [], gate: null };
    reports.push(report);
    let statistics = statisticsBefore;
    if (!outcome.ok) {
      report.status = 'failed';
      report.reason = oneLine(outcome.error);
    } else {
      const gated = gateSource(name, outcome.fetched, statisticsBefore, before, context, force);
      report.gate = gated.report;
      report.areas = areaCounts(gated, before);
      const messages = gated.verdict.refusals.map((refusal) => refusal.message);
      if (gated.verdict.outcome === 'refuse') {
        report.status = 'refused';
        report.reason = `refused by the publish gate: ${messages.join('; ')}`;
      } else {
        report.forced = messages;
        sources[name] = snapshotOf(name, outcome.fetched, gated.records, before);
        if (gated.lines) freshLines = gated.lines;
        statistics = withCarriedStatistics(gated.verdict.statistics, statisticsBefore);
      }
    }
    if (report.status !== 'published' && before) {
      sources[name] = carry(before, true, report.reason ?? undefined);
      report.carried = true;
      if (report.areas.length === 0) report.areas = carriedAreas(before);
    }
    kept[name] = { status: report.status, reason: report.reason, gate: report.gate, statistics: sources[name] ? statistics : null };
  }

  if (options.dryRun || (reports.length > 0 && reports.every((r) => r.status === 'failed'))) return { version: null, manifest: previous, sources: reports, pruned: [], changeLists: null };

  const version = options.version ?? (await freeVersion(dataDir, versionId(now)));
  const versionReport: VersionReport = { version, createdAt: now.toISOString(), syncDay: context.syncDay, sources: kept };
  let changeLists: PublishResult['changeLists'] = null;
  const onChangeLists = (versions: number, ms: number) => void (changeLists = { versions, ms });
  const geometry = await linesOf(dataDir, previous, sources.tours, freshLines);
  const manifest = await writeSnapshot(dataDir, version, sources, now, { fixture: options.fixture, report: versionReport, changeVersions: options.changeVersions, onChangeLists, signingKey: options.signingKey, geometry });
  const pruned = await prune(dataDir, keep);
  return { version, manifest, sources: reports, pruned, changeLists };
}

/**
 * The tours' lines the new version publishes: the fresh ones when the tours were fetched and
 * published, with the served lines of the tours whose locales were carried and not fetched
 * again; the served ones when the tours are carried whole; none without tours.
 */
async function linesOf(dataDir: string, previous: Manifest | null, tours: SourceSnapshot | undefined, fresh: Record<string, TourGeometry> | null): Promise<Record<string, TourGeometry>> {
  if (!tours) return {};
  const carriedWhole = fresh === null;
  const carriesSome = Object.values(tours.locales).some((areas) => areas?.tours !== undefined && !Array.isArray(areas.tours));
  if (!carriedWhole && !carriesSome) return fresh;
  const served = await readGeometryOf(dataDir, previous);
  if (carriedWhole) return served;
  // A tour fetched this run has its fresh line, or none; the others keep theirs.
  const fetched = new Set(Object.values(tours.locales).flatMap((areas) => (Array.isArray(areas?.tours) ? areas.tours.map((tour) => tour.id) : [])));
  const out: Record<string, TourGeometry> = {};
  for (const [id, line] of Object.entries(served)) if (!fetched.has(id)) out[id] = line;
  return Object.assign(out, fresh);
}

/**
 * The snapshot of a source the gate let through: its gated records, and the last good files of
 * the locales and areas this run did not fetch.
 */
function snapshotOf(name: SourceName, fetched: FetchedSource, records: GatedSource['records'], before: SourceEntry | undefined): SourceSnapshot {
  const snapshot: SourceSnapshot = { label: fetched.label, lastSync: fetched.fetchedAt, locales: {} };
  let carriedAny = false;
  for (const locale of LOCALES) {
    const fresh = records[locale];
    const old = before?.locales[locale];
    if (!fresh) {
      if (old && Object.keys(old).length > 0) {
        snapshot.locales[locale] = carryLocale(old);
        carriedAny = true;
      }
      continue;
    }
    const out: Partial<Record<AreaName, unknown[] | CarriedFile>> = {};
    for (const area of SOURCE_AREAS[name]) {
      const file = old?.[area];
      if (fresh[area]) out[area] = fresh[area];
      else if (file) {
        out[area] = { carry: file };
        carriedAny = true;
      }
    }
    snapshot.locales[locale] = out as SourceSnapshot['locales'][Locale];
  }
  // The source's lastSync is that of its oldest data, so meta never claims fresher than it is.
  if (carriedAny && before && before.lastSync < snapshot.lastSync) snapshot.lastSync = before.lastSync;
  return snapshot;
}

/** The counts per locale and area of a gated source, against the current snapshot. */
function areaCounts(gated: GatedSource, before: SourceEntry | undefined): AreaReport[] {
  return gated.report.areas.map((area) => ({
    locale: area.locale,
    area: area.area,
    count: area.after,
    previous: before?.locales[area.locale]?.[area.area]?.count ?? null,
    rejected: Object.values(area.rejected).reduce((sum, n) => sum + n, 0),
    duplicates: gated.duplicates[area.locale]?.[area.area] ?? 0,
    declared: area.declared,
    received: area.received,
  }));
}

/** This run's statistics, with the previous ones of the locales and areas it did not fetch (their files are carried). */
function withCarriedStatistics(now: SourceStatistics, before: SourceStatistics | null): SourceStatistics {
  const out: SourceStatistics = {};
  for (const locale of LOCALES) {
    const areas = { ...before?.[locale], ...now[locale] };
    if (Object.keys(areas).length > 0) out[locale] = areas;
  }
  return out;
}

function carry(entry: SourceEntry, stale: boolean, staleReason: string | undefined): SourceSnapshot {
  const locales: SourceSnapshot['locales'] = {};
  for (const locale of LOCALES) {
    const files = entry.locales[locale];
    if (files) locales[locale] = carryLocale(files);
  }
  return { label: entry.label, lastSync: entry.lastSync, stale, ...(stale && staleReason !== undefined && { staleReason }), locales };
}

function carryLocale(files: NonNullable<SourceEntry['locales'][Locale]>): SourceSnapshot['locales'][Locale] {
  const out: Partial<Record<AreaName, CarriedFile>> = {};
  for (const [area, file] of Object.entries(files) as [AreaName, NonNullable<(typeof files)[AreaName]>][]) out[area] = { carry: file };
  return out;
}

function carriedAreas(entry: SourceEntry): AreaReport[] {
  const areas: AreaReport[] = [];
  for (const locale of LOCALES) {
    for (const [area, file] of Object.entries(entry.locales[locale] ?? {}) as [AreaName, { count: number }][]) {
      areas.push({ locale, area, count: file.count, previous: file.count, rejected: 0, duplicates: 0, declared: null, received: 0 });
    }
  }
  return areas;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
