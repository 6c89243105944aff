/**
 * Publishing with nothing lost: turns what each source fetched into a new snapshot version,
 * carries over the last good data of every source that failed or was refused, commits the
 * manifest, and prunes old versions.
 *
 * Each fetched source is merged (duplicates by id), then judged by guard.ts's guardSource; a
 * source it refuses is not published unless `force` is set, and its last good data stays,
 * marked stale.
 *
 * Publishing holds the data directory's publish lock (lock.ts): a second sync waits for the
 * first to commit, then builds on its manifest.
 */

import path from 'node:path';
import { type AreaName, type FixtureOrigin, LOCALES, type Locale, type Manifest, SOURCE_AREAS, SOURCE_NAMES, type SourceEntry, type SourceName, versionId } from '../format.ts';
import type { AreaBatch, FetchedSource } from '../source.ts';
import { guardSource } from './guard.ts';
import { withPublishLock } from './lock.ts';
import { readManifest } from './manifest.ts';
import { prune } from './prune.ts';
import type { AreaReport, SourceOutcome, SourceReport } from './report.ts';
import { freeVersion } from './versions.ts';
import { type CarriedFile, type SourceSnapshot, writeSnapshot } from './write.ts';

/** Versions kept by default, the current one included. */
export const DEFAULT_KEEP = 5;

export interface PublishOptions {
  dataDir: string;
  /** The sources this run fetched; any other source already in the snapshot is carried as is. */
  outcomes: Partial<Record<SourceName, SourceOutcome>>;
  /** Publish despite the shrink and validation guards. */
  force?: boolean;
  /** Versions to keep, the new one included; default {@link DEFAULT_KEEP}. */
  keep?: number;
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
}

export interface PublishResult {
  /** The new version; null when every requested source failed and nothing was written. */
  version: string | null;
  /** The manifest now committed (the previous one, or null, when nothing was written). */
  manifest: Manifest | null;
  sources: SourceReport[];
  /** Version directories removed. */
  pruned: string[];
}

/**
 * Writes a new version from the outcomes and the current snapshot, commits its manifest and
 * prunes old versions. When every requested source failed, writes nothing: a version with no
 * fresh data would only churn the served snapshot and the version history. Fresh sources replace their data; failed or refused ones keep their
 * last good files, marked stale with their old lastSync; locales a source did not fetch keep
 * theirs too, and the source's lastSync is then that of its oldest data.
 *
 * @throws PublishLockedError when another sync publishes into `dataDir` for longer than
 *   `lockWaitMs`; Error when the current manifest cannot be read, a carried file fails its
 *   checksum, or the disk write fails; the current snapshot is then untouched
 */
export async function publish(options: PublishOptions): Promise<PublishResult> {
  const keep = options.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 1) throw new Error(`keep must be an integer of at least 1, got ${keep}`);
  const now = options.now ?? new Date();
  return withPublishLock(options.dataDir, () => publishLocked({ ...options, keep, now }), { waitMs: options.lockWaitMs });
}

async function publishLocked(options: PublishOptions & { keep: number; now: Date }): Promise<PublishResult> {
  const { dataDir, outcomes, force = false, keep, now } = options;
  const previous = await readManifest(dataDir);
  if (previous && !previous.sources) throw new Error(`${path.join(dataDir, 'manifest.json')}: no "sources"; fix it or run --rollback`);

  const sources: Partial<Record<SourceName, SourceSnapshot>> = {};
  const reports: SourceReport[] = [];
  for (const name of SOURCE_NAMES) {
    const outcome = outcomes[name];
    const before = previous?.sources[name];
    if (!outcome) {
      if (before) sources[name] = carry(before, before.stale);
      continue;
    }
    const report: SourceReport = { source: name, status: 'published', reason: null, forced: [], carried: false, areas: [] };
    reports.push(report);
    if (!outcome.ok) {
      report.status = 'failed';
      report.reason = oneLine(outcome.error);
    } else {
      const merged = mergeSource(name, outcome.fetched, before);
      report.areas = merged.areas;
      const problems = guardSource({ name, fetched: outcome.fetched, areas: merged.areas, previous: before });
      if (problems.length > 0 && !force) {
        report.status = 'refused';
        report.reason = `${problems.join('; ')} (use --force to publish anyway)`;
      } else {
        report.forced = problems;
        sources[name] = merged.snapshot;
      }
    }
    if (report.status !== 'published' && before) {
      sources[name] = carry(before, true);
      report.carried = true;
      if (report.areas.length === 0) report.areas = carriedAreas(before);
    }
  }

  if (reports.length > 0 && reports.every((r) => r.status === 'failed')) return { version: null, manifest: previous, sources: reports, pruned: [] };

  const version = options.version ?? (await freeVersion(dataDir, versionId(now)));
  const manifest = await writeSnapshot(dataDir, version, sources, now, { fixture: options.fixture });
  const pruned = await prune(dataDir, keep);
  return { version, manifest, sources: reports, pruned };
}

/** Merges duplicates by id, fills in locales and areas the fetch left out, counts everything. */
function mergeSource(name: SourceName, fetched: FetchedSource, before: SourceEntry | undefined): { snapshot: SourceSnapshot; areas: AreaReport[] } {
  const snapshot: SourceSnapshot = { label: fetched.label, lastSync: fetched.fetchedAt, locales: {} };
  const areas: AreaReport[] = [];
  let carriedAny = false;
  for (const locale of LOCALES) {
    const batches = fetched.locales[locale];
    const old = before?.locales[locale];
    if (!batches) {
      if (old && Object.keys(old).length > 0) {
        snapshot.locales[locale] = carryLocale(old);
        carriedAny = true;
      }
      continue;
    }
    const out: Partial<Record<AreaName, unknown[] | CarriedFile>> = {};
    for (const area of SOURCE_AREAS[name]) {
      const batch = (batches as Partial<Record<AreaName, AreaBatch<{ id: string | number }>>>)[area];
      if (!batch) {
        const file = old?.[area];
        if (file) {
          out[area] = { carry: file };
          carriedAny = true;
        }
        continue;
      }
      const records = mergeById(batch.records);
      out[area] = records;
      areas.push({
        locale,
        area,
        count: records.length,
        previous: old?.[area]?.count ?? null,
        rejected: batch.rejected.length,
        duplicates: batch.records.length - records.length,
        declared: batch.declared,
        received: batch.received,
      });
    }
    snapshot.locales[locale] = out as SourceSnapshot['locales'][Locale];
  }
  // The source's lastSync is that of its oldest data, so meta never claims fresher than it is.
  if (carriedAny && before && before.lastSync < snapshot.lastSync) snapshot.lastSync = before.lastSync;
  return { snapshot, areas };
}

/**
 * Keeps one record per id: the last copy seen, in the place of the first, since a record that
 * moved while we paged appears on two pages and its later copy is the one fetched last.
 */
export function mergeById<R extends { id: string | number }>(records: readonly R[]): R[] {
  const byId = new Map<string | number, R>();
  for (const record of records) byId.set(record.id, record);
  return [...byId.values()];
}

function carry(entry: SourceEntry, stale: boolean): SourceSnapshot {
  const locales: SourceSnapshot['locales'] = {};
  for (const locale of LOCALES) {
    const files = entry.locales[locale];
    if (files) locales[locale] = carryLocale(files);
  }
  return { label: entry.label, lastSync: entry.lastSync, stale, locales };
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
