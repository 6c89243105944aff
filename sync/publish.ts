/**
 * Publishing with nothing lost: turns what each source fetched into a new snapshot version,
 * carries over the last good data of every source that failed or was refused, commits the
 * manifest, and prunes old versions. Also {@link rollback} to the previous version.
 *
 * Guards, per source (a source is published whole or not at all):
 * - validation: more than {@link MAX_REJECTED_SHARE} of a locale and area's upstream records
 *   failed normalisation;
 * - shrink: a locale and area has fewer than {@link MIN_KEPT_SHARE} of the records it had in
 *   the current snapshot.
 * A guard refuses the source unless `force` is set; its last good data stays, marked stale.
 *
 * Publishing and rolling back hold the data directory's publish lock (publishLock.ts): a second
 * sync waits for the first to commit, then builds on its manifest.
 */

import fs from 'node:fs/promises';
import path from 'node:path';
import type { HttpClient, RetryEvent } from './client.ts';
import { withPublishLock } from './publishLock.ts';
import { type AreaName, type AreaRecords, type FixtureOrigin, LOCALES, type Locale, type Manifest, SOURCE_AREAS, SOURCE_NAMES, type SourceEntry, type SourceName, versionId } from './format.ts';
import { type CarriedFile, readManifest, type SourceSnapshot, sha256, writeManifest, writeSnapshot } from './write.ts';
import { joinSnapshotRoutes } from './winterJoin.ts';

/** Largest share of rejected upstream records a locale and area may have and still publish. */
export const MAX_REJECTED_SHARE = 0.02;
/** Smallest share of the previous item count a locale and area must keep to publish. */
export const MIN_KEPT_SHARE = 0.5;
/** Versions kept by default, the current one included. */
export const DEFAULT_KEEP = 5;

/** Version directories are named by {@link versionId}, with `-<n>` when two runs share a second. */
const VERSION_DIR = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?$/;
/** A temp file of a manifest being replaced (see writeManifest in sync/write.ts). */
const MANIFEST_TEMP = /^manifest\.json\.\d+(\.tmp)?$/;

/** An upstream record that failed normalisation, left out of the snapshot. */
export interface Rejection {
  /** The record's id as far as it could be read. */
  id: string | null;
  reason: string;
}

/** One locale and area as fetched: normalised records (duplicates allowed) and rejections. */
export interface AreaBatch<R> {
  records: R[];
  rejected: Rejection[];
}

/** What a source's fetch function returns. */
export interface SourceData {
  /** Human-readable upstream name, served as `meta.source`. */
  label: string;
  locales: Partial<Record<Locale, Partial<{ [A in AreaName]: AreaBatch<AreaRecords[A]> }>>>;
}

/** A source's data with the time its fetch started. */
export interface FetchedSource extends SourceData {
  /** ISO 8601. */
  fetchedAt: string;
}

/** Progress of one part of a fetch (a locale, or a part shared by all locales). */
export interface PageProgress {
  /** Pages (or requests) done so far. */
  pages: number;
  /** Pages expected in all, when the upstream says. */
  totalPages: number | null;
  /** Upstream records received so far. */
  items: number;
}

/** What a source's fetch function gets from the CLI. */
export interface FetchContext {
  http: HttpClient;
  /** Locales to fetch, in order. */
  locales: readonly Locale[];
  /** Called after each page; `part` is a locale or a name such as `content`. */
  onPage(part: string, progress: PageProgress): void;
  /** Pass to every request of `part` as its `onRetry`. */
  onRetry(part: string, event: RetryEvent): void;
}

/** A requested source's fetch: its data, or why there is none. */
export type SourceOutcome = { ok: true; fetched: FetchedSource } | { ok: false; error: unknown };

export interface AreaReport {
  locale: Locale;
  area: AreaName;
  /** Records in the new snapshot (after merging duplicates), or in the carried file. */
  count: number;
  /** Records in the snapshot this run started from; null when it had none. */
  previous: number | null;
  rejected: number;
  /** Records dropped because an earlier page had the same id. */
  duplicates: number;
}

export interface SourceReport {
  source: SourceName;
  /** published: fresh data is live; refused: a guard stopped it; failed: the fetch failed. */
  status: 'published' | 'refused' | 'failed';
  /** Why it was refused or failed, in one line. */
  reason: string | null;
  /** Guards that `force` overrode. */
  forced: string[];
  /** True when the last good data was carried into the new version (stale in the manifest). */
  carried: boolean;
  areas: AreaReport[];
}

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
  /** Longest wait for another sync's publish to finish, in ms; default 2 minutes (publishLock.ts). */
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
      const problems = guard(merged.areas);
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

  await joinSnapshotRoutes(dataDir, sources);
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

/** The reasons a source must not be published, empty when it may. */
function guard(areas: readonly AreaReport[]): string[] {
  const problems: string[] = [];
  for (const a of areas) {
    const received = a.count + a.duplicates + a.rejected;
    if (received > 0 && a.rejected / received > MAX_REJECTED_SHARE) {
      problems.push(`${a.locale} ${a.area}: ${a.rejected} of ${received} records failed validation (${percent(a.rejected / received)}, at most ${percent(MAX_REJECTED_SHARE)} allowed)`);
    }
    if (a.previous !== null && a.previous > 0 && a.count < a.previous * MIN_KEPT_SHARE) {
      problems.push(`${a.locale} ${a.area}: ${a.count} items, down from ${a.previous} (more than ${percent(1 - MIN_KEPT_SHARE)} fewer)`);
    }
  }
  return problems;
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
      areas.push({ locale, area, count: file.count, previous: file.count, rejected: 0, duplicates: 0 });
    }
  }
  return areas;
}

/** `base`, or `base-1`, `base-2`… when a run in the same second already took it. */
async function freeVersion(dataDir: string, base: string): Promise<string> {
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if (!(await exists(path.join(dataDir, candidate)))) return candidate;
  }
}

/**
 * Removes all but the newest `keep` version directories, never the one the manifest points
 * at, plus leftovers of interrupted runs (`*.tmp`). Only safe under the publish lock, which
 * publish() holds: another run's files in the making look like leftovers.
 *
 * @returns the names removed
 */
export async function prune(dataDir: string, keep: number): Promise<string[]> {
  const current = (await readManifest(dataDir))?.version;
  const entries = await fs.readdir(dataDir, { withFileTypes: true });
  const versions = entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name))
    .map((e) => e.name)
    .sort(compareVersions)
    .reverse();
  const doomed = versions.slice(keep).filter((name) => name !== current);
  // Leftovers of a run that was killed: its version dir before the rename, its manifest temp
  // file (write-file-atomic's `manifest.json.<n>`, or `manifest.json.<pid>.tmp` in a data
  // directory an older sync wrote into).
  const leftovers = entries
    .filter((e) => (e.isDirectory() && e.name.endsWith('.tmp') && VERSION_DIR.test(e.name.slice(0, -4))) || (e.isFile() && MANIFEST_TEMP.test(e.name)))
    .map((e) => e.name);
  for (const name of [...doomed, ...leftovers]) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  return doomed;
}

/**
 * Points the manifest back at the newest version older than the current one whose files are
 * all present and intact (each version keeps a copy of its manifest). When `manifest.json` is
 * missing or unreadable, restores the newest intact version instead.
 *
 * @returns the version left (null when the manifest was unreadable) and the version now current
 * @throws when `dataDir` does not exist or there is no version to go back to; PublishLockedError
 *   when a sync is publishing into it for longer than `lockWaitMs` (default 2 minutes)
 */
export async function rollback(dataDir: string, options: { lockWaitMs?: number } = {}): Promise<{ from: string | null; to: string }> {
  // Checked first: taking the lock would create the directory.
  if (!(await exists(dataDir))) throw new Error(`${dataDir} does not exist: there is no snapshot to roll back`);
  return withPublishLock(dataDir, () => rollbackLocked(dataDir), { waitMs: options.lockWaitMs });
}

async function rollbackLocked(dataDir: string): Promise<{ from: string | null; to: string }> {
  const current = await readManifest(dataDir).catch(() => null);
  const from = typeof current?.version === 'string' ? current.version : null;
  const entries = await fs.readdir(dataDir, { withFileTypes: true });
  const older = entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name) && (from === null || compareVersions(e.name, from) < 0))
    .map((e) => e.name)
    .sort(compareVersions)
    .reverse();
  const problems: string[] = [];
  for (const version of older) {
    const problem = await checkVersion(dataDir, version);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const manifest = (await readManifest(path.join(dataDir, version)))!;
    await writeManifest(dataDir, manifest);
    return { from, to: version };
  }
  const what = from === null ? `no intact version in ${dataDir} to restore` : `no version older than ${from} to roll back to`;
  throw new Error(`${what}${problems.length ? ` (${problems.join('; ')})` : ''}`);
}

/** Why a version cannot be served, or null when its manifest copy and every file are intact. */
async function checkVersion(dataDir: string, version: string): Promise<string | null> {
  let manifest: Manifest | null;
  try {
    manifest = await readManifest(path.join(dataDir, version));
  } catch (error) {
    return `${version}: ${(error as Error).message}`;
  }
  if (!manifest || manifest.version !== version) return `${version}: no manifest copy`;
  for (const entry of Object.values(manifest.sources)) {
    for (const files of Object.values(entry?.locales ?? {})) {
      for (const file of Object.values(files ?? {})) {
        const bytes = await fs.readFile(path.join(dataDir, file.file)).catch(() => null);
        if (!bytes) return `${version}: ${file.file} is missing`;
        if (sha256(bytes) !== file.sha256) return `${version}: ${file.file} does not match its sha256`;
      }
    }
  }
  return null;
}

/** Orders `2026-11-21T04-00-00Z` < `2026-11-21T04-00-00Z-1` < `2026-11-21T04-00-00Z-10`. */
function compareVersions(a: string, b: string): number {
  const [baseA, nA = '0'] = a.split(/Z-?/);
  const [baseB, nB = '0'] = b.split(/Z-?/);
  return baseA! < baseB! ? -1 : baseA! > baseB! ? 1 : Number(nA || 0) - Number(nB || 0);
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
