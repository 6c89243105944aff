/**
 * The change lists of a new version: per earlier version still on disk, per locale and change
 * area, the ids of the records added or changed since it and of those gone. "Changed" is
 * decided by the records' content as published (their JSON), not by an upstream timestamp,
 * which may not move when the content does. Computed here, where the earlier versions are at
 * hand, so that a server needs only the version it serves (docs/snapshot-format.md).
 */

import { isAscii } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type AreaChanges, CHANGE_AREAS, type ChangeArea, type ChangeLists, type ChangesSince, type FileEntry, LOCALES, type Locale, type Manifest, SOURCE_AREAS, type SourceName } from '../format.ts';
import { readManifest } from './manifest.ts';
import { recordLine } from './recordLine.ts';
import { compareVersions, VERSION_DIR } from './versions.ts';
import { readCarried } from './files.ts';

/** Earlier versions a new version's change lists reach back to by default. */
export const DEFAULT_CHANGE_VERSIONS = 5;

/** What a new version holds in one area and locale: fresh records, or a file carried over as it is. */
export type NewContent = readonly unknown[] | { carry: FileEntry };

/**
 * The change lists of `version` against the newest `depth` other versions of `dataDir` that
 * have an intact manifest copy (each version keeps one). A file of an earlier version that
 * cannot be read or fails its sha256 ends the lists at that version: what lies behind it is
 * left out rather than guessed.
 *
 * @param content the new version's records (or carried file) per locale and change area; an
 *   area absent from it has no records in the new version
 */
export async function computeChanges(
  dataDir: string,
  version: string,
  content: (locale: Locale, area: ChangeArea) => NewContent | undefined,
  depth: number,
): Promise<ChangeLists> {
  const earlier = depth > 0 ? await earlierVersions(dataDir, version, depth) : [];
  const since: ChangesSince[] = earlier.map((manifest) => ({ version: manifest.version, createdAt: manifest.createdAt, locales: {} }));
  let reach = earlier.length;
  for (const locale of LOCALES) {
    for (const area of CHANGE_AREAS) {
      const now = content(locale, area);
      let current: Map<unknown, string> | null = null;
      for (let i = 0; i < reach; i++) {
        const before = fileOf(earlier[i]!, locale, area);
        // A carried file unchanged since that version: nothing changed.
        if (now !== undefined && !Array.isArray(now) && before?.sha256 === (now as { carry: FileEntry }).carry.sha256) continue;
        let old: Map<unknown, string>;
        try {
          old = before === undefined ? new Map() : await recordsOfFile(dataDir, before);
        } catch {
          reach = i;
          break;
        }
        current ??= now === undefined ? new Map() : Array.isArray(now) ? contentById(now) : await recordsOfFile(dataDir, (now as { carry: FileEntry }).carry);
        const changes = diff(old, current);
        if (changes.upserted.length > 0 || changes.deleted.length > 0) (since[i]!.locales[locale] ??= {})[area] = changes;
      }
    }
  }
  return { version, since: since.slice(0, reach) };
}

/** The newest `depth` versions of `dataDir` other than `version`, as their manifest copies, newest first. */
async function earlierVersions(dataDir: string, version: string, depth: number): Promise<Manifest[]> {
  const entries = await fs.readdir(dataDir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name) && e.name !== version)
    .map((e) => e.name)
    .sort(compareVersions)
    .reverse();
  const out: Manifest[] = [];
  for (const name of names) {
    if (out.length === depth) break;
    const manifest = await readManifest(path.join(dataDir, name)).catch(() => null);
    if (manifest?.version === name && typeof manifest.createdAt === 'string' && manifest.sources) out.push(manifest);
  }
  return out;
}

function fileOf(manifest: Manifest, locale: Locale, area: ChangeArea): FileEntry | undefined {
  for (const [source, entry] of Object.entries(manifest.sources) as [SourceName, NonNullable<Manifest['sources'][SourceName]>][]) {
    if ((SOURCE_AREAS[source] as readonly string[]).includes(area)) return entry.locales[locale]?.[area];
  }
  return undefined;
}

/** Each record's content as published (its JSON line in the file, sync/publish/write.ts encodeRecords), by id. */
function contentById(records: readonly unknown[]): Map<unknown, string> {
  const out = new Map<unknown, string>();
  for (const record of records) out.set((record as { id: unknown }).id, recordLine(record));
  return out;
}

/**
 * The records of a file as {@link contentById} gives them. A file the sync wrote holds one
 * record per line, each the JSON {@link contentById} would make of it: the lines are taken as
 * they are, and only their ids read, which spares parsing and writing every record again. A
 * file of another layout is parsed whole.
 *
 * @throws when the file is missing, fails its sha256 or is not a JSON array
 */
async function recordsOfFile(dataDir: string, entry: FileEntry): Promise<Map<unknown, string>> {
  // The sync writes ASCII (encodeRecords escapes the rest), which Latin-1 decodes at the speed of a copy.
  const bytes = gunzipSync(await readCarried(dataDir, entry));
  const text = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const lines = text === '[]\n' ? [] : text.startsWith('[\n') && text.endsWith('\n]\n') ? text.slice(2, -3).split(',\n') : null;
  const out = new Map<unknown, string>();
  if (lines !== null && lines.length === entry.count) {
    for (const line of lines) {
      const id = leadingId(line);
      if (id === undefined) break;
      out.set(id, line);
    }
    if (out.size === lines.length) return out;
  }
  const records: unknown = JSON.parse(text);
  if (!Array.isArray(records)) throw new Error(`${entry.file}: expected a JSON array`);
  return contentById(records);
}

/** The id of a record's JSON that starts with it (`{"id":"…",` or `{"id":123,`); undefined for any other. */
function leadingId(json: string): string | number | undefined {
  const match = LEADING_ID.exec(json);
  if (!match) return undefined;
  return match[1] !== undefined ? (JSON.parse(match[1]) as string) : Number(match[2]);
}

const LEADING_ID = /^\{"id":(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)),/;

function diff(before: ReadonlyMap<unknown, string>, now: ReadonlyMap<unknown, string>): AreaChanges {
  const upserted: (string | number)[] = [];
  const deleted: (string | number)[] = [];
  for (const [id, json] of now) if (before.get(id) !== json) upserted.push(id as string | number);
  for (const id of before.keys()) if (!now.has(id)) deleted.push(id as string | number);
  return { upserted, deleted };
}
