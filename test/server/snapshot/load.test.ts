import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshot, SnapshotError } from '../../../server/snapshot/load.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { RECORD_LIMITS, type Manifest } from '../../../sync/format.ts';
import { DATA_DIR } from '../../helpers/api.ts';
import { createSmallSnapshot } from '../../helpers/smallSnapshot.ts';
import type { TinySnapshot } from '../../helpers/tinySnapshot.ts';

const schema = createSchema(readSdl(), resolvers);
/** A gzip member of 1 MiB of spaces. */
const SPACES_MEMBER = gzipSync(Buffer.alloc(1024 * 1024, ' '));
let small: TinySnapshot;
let dir: string;
let manifest: Manifest;

beforeAll(async () => {
  small = await createSmallSnapshot();
});
afterAll(() => small.remove());

// Each test gets a copy of the small snapshot, to change as it likes.
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'snapshot-'));
  await cp(small.dir, dir, { recursive: true });
  manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const toursFile = () => manifest.sources.tours!.locales['de-CH']!.tours!;
const writeManifest = () => writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));

const stationsFile = () => manifest.sources.snowdata!.locales['de-CH']!.stations!;

/** Rewrites the de-CH tours file with edited records and a matching checksum, as a buggy sync could. */
async function rewriteTours(edit: (records: Record<string, unknown>[]) => void) {
  await rewriteFile(toursFile(), edit);
}

/** Rewrites the file of `entry` as {@link rewriteTours} does. */
async function rewriteFile(entry: { file: string; sha256: string; count: number }, edit: (records: Record<string, unknown>[]) => void) {
  const file = path.join(dir, entry.file);
  const records = JSON.parse(gunzipSync(await readFile(file)).toString('utf8'));
  edit(records);
  const bytes = gzipSync(JSON.stringify(records));
  await writeFile(file, bytes);
  entry.sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
  entry.count = records.length;
  await writeManifest();
}

async function refusal(): Promise<string> {
  const error = await loadSnapshot(dir, schema).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SnapshotError);
  return (error as Error).message;
}

describe('loadSnapshot', () => {
  it('loads the committed snapshot with every area of every locale', async () => {
    const snapshot = await loadSnapshot(DATA_DIR, schema);
    expect(snapshot.version).toBe(JSON.parse(await readFile(path.join(DATA_DIR, 'manifest.json'), 'utf8')).version);
    for (const locale of ['de-CH', 'en-CH', 'fr-CH', 'it-CH'] as const) {
      for (const [area, records] of Object.entries(snapshot.locales[locale])) {
        expect(records.length, `${locale} ${area}`).toBeGreaterThan(0);
      }
    }
    expect(Object.isFrozen(snapshot.locales['de-CH'].tours[0])).toBe(true);
  });

  it('refuses a file changed after the manifest was written, naming the file and both checksums', async () => {
    const file = path.join(dir, toursFile().file);
    const bytes = await readFile(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
    await writeFile(file, bytes);
    expect(await refusal()).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: sha256 [0-9a-f]{64}, expected ${toursFile().sha256}`));
  });

  it('reads a file written as UTF-8, as other writers would, the same as the ASCII the sync writes', async () => {
    const ascii = await loadSnapshot(dir, schema);
    await rewriteTours(() => {});
    const utf8 = await readFile(path.join(dir, toursFile().file));
    expect(gunzipSync(utf8).toString('utf8')).toMatch(/[\u0080-\uffff]/);
    const reread = await loadSnapshot(dir, schema);
    expect(reread.locales['de-CH'].tours).toEqual(ascii.locales['de-CH'].tours);
    expect(reread.locales['de-CH'].tours.some((tour) => /[\u0080-\uffff]/.test(JSON.stringify(tour)))).toBe(true);
  });

  it('reads a file of two gzip members, whose trailer states the size of the second only', async () => {
    const whole = await loadSnapshot(dir, schema);
    const file = path.join(dir, toursFile().file);
    const text = gunzipSync(await readFile(file));
    const half = text.indexOf('\n', text.length >> 1);
    const bytes = Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))]);
    expect(bytes.readUInt32LE(bytes.length - 4)).toBe(text.length - half);
    await writeFile(file, bytes);
    toursFile().sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    // Every file named is read under the limit: the tours' alone are.
    for (const source of Object.keys(manifest.sources)) if (source !== 'tours') delete manifest.sources[source as keyof typeof manifest.sources];
    await writeManifest();
    expect((await loadSnapshot(dir, schema)).locales['de-CH'].tours).toEqual(whole.locales['de-CH'].tours);
  });

  it('keeps every value as the files have it, strings repeated within and across files included', async () => {
    const abstract = 'Gratwanderung mit Aussicht auf Eiger, Mönch und Jungfrau.';
    await rewriteTours((records) => {
      // Repeated values in a field and in an array, within the file; the other locales' files
      // repeat many of this one's strings, and differ in the rest.
      records[0]!.abstract = abstract;
      records[1]!.abstract = abstract;
      records[1]!.views = [...(records[0]!.views as string[]), ...(records[0]!.views as string[])];
      records[2]!.name = records[0]!.name;
    });
    const snapshot = await loadSnapshot(dir, schema);
    for (const entry of Object.values(manifest.sources)) {
      for (const [locale, areas] of Object.entries(entry!.locales)) {
        for (const [area, file] of Object.entries(areas!)) {
          const records = JSON.parse(gunzipSync(await readFile(path.join(dir, file!.file))).toString('utf8'));
          expect(snapshot.locales[locale as 'de-CH'][area as 'tours'], `${locale} ${area}`).toEqual(records);
        }
      }
    }
    expect(snapshot.locales['de-CH'].tours[1]!.abstract).toBe(abstract);
  });

  it('refuses another format version, saying which it expected', async () => {
    (manifest as { formatVersion: number }).formatVersion = 3;
    await writeManifest();
    expect(await refusal()).toBe(`${path.join(dir, 'manifest.json')}: formatVersion 3, expected 1 or 2`);
  });

  it('reads a format-1 manifest, which names no change lists, as a version that lists no changes', async () => {
    (manifest as { formatVersion: number }).formatVersion = 1;
    delete (manifest as Partial<Manifest>).changes;
    await writeManifest();
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).changes).toEqual({ version: manifest.version, since: [] });
  });

  it('reads the change lists the manifest names, and refuses a snapshot without them or with lists that are not its own', async () => {
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).changes).toEqual({ version: manifest.version, since: [] });
    const changesAt = path.join(dir, manifest.changes!.file);
    const writeChanges = async (value: unknown) => {
      const bytes = gzipSync(JSON.stringify(value));
      await writeFile(changesAt, bytes);
      manifest.changes!.sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
      await writeManifest();
    };
    const since = { version: '2026-11-19T04-00-00Z', createdAt: '2026-11-19T04:00:00.000Z', locales: { 'de-CH': { tours: { upserted: ['t1'], deleted: [7] } } } };
    await writeChanges({ version: manifest.version, since: [since] });
    manifest.changes!.count = 1;
    await writeManifest();
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).changes.since).toEqual([since]);
    manifest.changes!.count = 2;
    await writeManifest();
    expect(await refusal()).toBe(`${changesAt}: 1 earlier versions, expected 2`);
    manifest.changes!.count = 1;
    await writeChanges({ version: '2026-11-19T04-00-00Z', since: [since] });
    expect(await refusal()).toBe(`${changesAt}: lists the changes to version "2026-11-19T04-00-00Z", expected ${manifest.version}`);
    await writeChanges({ version: manifest.version, since: [{ ...since, locales: { 'de-CH': { types: { upserted: [], deleted: [] } } } }] });
    expect(await refusal()).toBe(`${changesAt}: since[0].locales.de-CH: unknown area "types" (expected one of activities, stations, routes, tours, attractions)`);
    await writeChanges({ version: manifest.version, since: [{ ...since, createdAt: 'yesterday' }] });
    expect(await refusal()).toBe(`${changesAt}: since[0] must be { version, createdAt: ISO time, locales }`);
    await writeFile(changesAt, 'not gzip');
    expect(await refusal()).toMatch(/sha256 [0-9a-f]{64}, expected/);
    delete (manifest as Partial<Manifest>).changes;
    await writeManifest();
    expect(await refusal()).toBe(`${path.join(dir, 'manifest.json')}: "changes" must be { file: string, count: integer, sha256: string } (the change lists, docs/snapshot-format.md)`);
  });

  it('reads the fixture mark when there is one, and a manifest without it as before', async () => {
    manifest.fixture = { seed: 2026, scale: 1 };
    await writeManifest();
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).manifest.fixture).toEqual({ seed: 2026, scale: 1 });
    delete manifest.fixture;
    await writeManifest();
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).manifest.fixture).toBeUndefined();
  });

  it('refuses a fixture mark other than the one the generator writes, saying what it must be', async () => {
    (manifest as unknown as { fixture: unknown }).fixture = { seed: 2026 };
    await writeManifest();
    expect(await refusal()).toBe(
      `${path.join(dir, 'manifest.json')}: "fixture" must be { seed: integer, scale: number > 0 } (written by npm run fixtures) or absent, found {"seed":2026}`,
    );
  });

  it('reads the one-line stale reason of a source, and a manifest without it as before', async () => {
    manifest.sources.tours!.stale = true;
    manifest.sources.tours!.staleReason = 'refused by the gate: de-CH tours: unit change';
    await writeManifest();
    expect((await loadSnapshot(dir, schema, { areas: ['types'] })).manifest.sources.tours!.staleReason).toBe('refused by the gate: de-CH tours: unit change');
  });

  it('refuses a stale reason that is not one line of text, saying what it must be', async () => {
    (manifest.sources.tours as unknown as { staleReason: unknown }).staleReason = 42;
    await writeManifest();
    expect(await refusal()).toBe(`${path.join(dir, 'manifest.json')}: sources.tours.staleReason must be a one-line string or absent, found 42`);
    manifest.sources.tours!.staleReason = 'first line\nsecond line';
    await writeManifest();
    expect(await refusal()).toBe(`${path.join(dir, 'manifest.json')}: sources.tours.staleReason must be a one-line string or absent, found "first line\\nsecond line"`);
  });

  it('refuses a record that does not match its GraphQL type, naming the record and the field', async () => {
    await rewriteTours((records) => {
      records[3]!.isRoundtrip = null;
    });
    const message = await refusal();
    expect(message).toContain(`${toursFile().file}: record 3 (id `);
    expect(message).toContain('field "isRoundtrip": expected Boolean!, found null');
  });

  it("reads a tour's stated licence, refuses one that is not text, and refuses a record carrying its own license", async () => {
    await rewriteTours((records) => {
      records[0]!.upstreamLicense = 'CC-BY-4.0';
      records[1]!.upstreamLicense = null;
      delete records[2]!.upstreamLicense;
    });
    const snapshot = await loadSnapshot(dir, schema);
    expect(snapshot.locales['de-CH'].tours.slice(0, 3).map((record) => record.upstreamLicense)).toEqual(['CC-BY-4.0', null, undefined]);
    await rewriteTours((records) => {
      records[3]!.upstreamLicense = 4;
    });
    expect(await refusal()).toContain('field "upstreamLicense": expected a non-empty string or null, found 4');
    await rewriteTours((records) => {
      records[3]!.upstreamLicense = null;
      records[4]!.license = 'CC-BY-4.0';
    });
    expect(await refusal()).toContain('field "license" is computed by the server and must be absent');
  });

  it('refuses a record with a string past the longest a record may hold, naming the file, the record and the field, raw included', async () => {
    await rewriteTours((records) => {
      records[0]!.abstract = 'a'.repeat(RECORD_LIMITS.maxStringChars + 1);
    });
    expect(await refusal()).toMatch(new RegExp(`${toursFile().file}: record 0 \\(id "[^"]+"\\): field "abstract": ${RECORD_LIMITS.maxStringChars + 1} characters, at most ${RECORD_LIMITS.maxStringChars} allowed$`));
    await rewriteTours((records) => {
      records[0]!.abstract = 'short';
    });
    await rewriteFile(stationsFile(), (records) => {
      (records[1]!.raw as Record<string, unknown>).note = 'b'.repeat(RECORD_LIMITS.maxStringChars + 1);
    });
    expect(await refusal()).toContain(`${stationsFile().file}: record 1 (id `);
    expect(await refusal()).toContain(`field "raw.note": ${RECORD_LIMITS.maxStringChars + 1} characters`);
  });

  it('refuses a record with a list past the most items a list may hold, raw included, naming the field', async () => {
    await rewriteTours((records) => {
      records[2]!.landscapes = Array.from({ length: RECORD_LIMITS.maxListItems + 1 }, () => 'alongwater');
    });
    expect(await refusal()).toContain(`: record 2 (id `);
    expect(await refusal()).toContain(`field "landscapes": a list of ${RECORD_LIMITS.maxListItems + 1} items, at most ${RECORD_LIMITS.maxListItems} allowed`);
    await rewriteTours((records) => {
      records[2]!.landscapes = [];
    });
    await rewriteFile(stationsFile(), (records) => {
      (records[0]!.raw as Record<string, unknown>).points = Array.from({ length: RECORD_LIMITS.maxListItems + 1 }, (_, i) => i);
    });
    expect(await refusal()).toContain(`field "raw.points": a list of ${RECORD_LIMITS.maxListItems + 1} items`);
  });

  it('refuses a record nested deeper than a record may be, in raw', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < RECORD_LIMITS.maxDepth; i++) deep = [deep];
    await rewriteFile(stationsFile(), (records) => {
      (records[0]!.raw as Record<string, unknown>).deep = deep;
    });
    expect(await refusal()).toMatch(/: record 0 \(id \d+\): field "raw\.deep(\[0\])+": nested deeper than \d+ levels$/);
  });

  it('refuses a record whose strings together pass the most a record may hold, though each is short', async () => {
    const piece = 'c'.repeat(RECORD_LIMITS.maxStringChars);
    await rewriteFile(stationsFile(), (records) => {
      records[0]!.raw = Object.fromEntries(Array.from({ length: RECORD_LIMITS.maxRecordChars / RECORD_LIMITS.maxStringChars + 1 }, (_, i) => [`k${i}`, piece]));
    });
    expect(await refusal()).toMatch(/field "raw\.k\d+": the record's strings pass \d+ characters in all$/);
  });

  it('refuses a file in which two records share an id, naming the file and the id', async () => {
    let id = '';
    await rewriteTours((records) => {
      id = records[0]!.id as string;
      records[4] = { ...records[4]!, id };
    });
    expect(await refusal()).toBe(`${path.join(dir, toursFile().file)}: records 0 and 4 share the id ${JSON.stringify(id)}; each id may appear once in a file`);
  });

  it('refuses a file whose item count differs from the manifest', async () => {
    await rewriteTours(() => {});
    toursFile().count += 1;
    await writeManifest();
    expect(await refusal()).toContain(`records, expected ${toursFile().count}`);
  });

  it('refuses a missing content file', async () => {
    await rm(path.join(dir, toursFile().file));
    expect(await refusal()).toContain(`${toursFile().file}: listed in the manifest but missing`);
  });

  it('refuses a manifest that points outside the data directory', async () => {
    toursFile().file = '../../etc/passwd';
    await writeManifest();
    expect(await refusal()).toContain('must be a relative path inside the data directory');
  });

  it('refuses a file that is a symbolic link out of the data directory, before reading it', async () => {
    // A valid file with the checksum the manifest states: only where it lies is wrong.
    const outside = await mkdtemp(path.join(tmpdir(), 'outside-'));
    try {
      const file = path.join(dir, toursFile().file);
      await rename(file, path.join(outside, 'tours.json.gz'));
      await symlink(path.join(outside, 'tours.json.gz'), file);
      const message = await refusal();
      expect(message).toBe(
        `${file}: resolves to ${await realpath(path.join(outside, 'tours.json.gz'))}, outside the data directory ${await realpath(dir)}; a snapshot's files must be inside it (symbolic links leading out are refused)`,
      );
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('refuses a data directory whose version directory links out of it', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'outside-'));
    try {
      await rename(path.join(dir, manifest.version), path.join(outside, manifest.version));
      await symlink(path.join(outside, manifest.version), path.join(dir, manifest.version));
      expect(await refusal()).toContain('outside the data directory');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reads a file that is a symbolic link to another file inside the data directory', async () => {
    const file = path.join(dir, toursFile().file);
    await rename(file, path.join(dir, 'tours-de.json.gz'));
    await symlink(path.join(dir, 'tours-de.json.gz'), file);
    expect((await loadSnapshot(dir, schema, { areas: ['tours'] })).locales['de-CH'].tours).toHaveLength(toursFile().count);
  });

  it('refuses a FIFO named by the manifest without waiting for a writer', async () => {
    const file = path.join(dir, toursFile().file);
    await rm(file);
    execFileSync('mkfifo', [file]);
    expect(await refusal()).toBe(`${file}: a FIFO (named pipe), not a regular file; a snapshot's files must be regular files inside the data directory`);
  });

  it('refuses a manifest that is a FIFO without waiting for a writer', async () => {
    const file = path.join(dir, 'manifest.json');
    await rm(file);
    execFileSync('mkfifo', [file]);
    expect(await refusal()).toBe(`${file}: a FIFO (named pipe), not a regular file; a snapshot's files must be regular files inside the data directory`);
  });

  it('gives up on a file not read, checked and inflated within readTimeoutMs, naming the file and the setting', async () => {
    // 256 MiB of spaces, as 256 gzip members of 1 MiB: inflating them takes far longer than
    // 50 ms, while the small manifest, read under the same limit, takes far less.
    const bytes = Buffer.concat(Array.from({ length: 256 }, () => SPACES_MEMBER));
    const file = path.join(dir, toursFile().file);
    await writeFile(file, bytes);
    toursFile().sha256 = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    // Every file named is read under the limit: the tours' alone are.
    for (const source of Object.keys(manifest.sources)) if (source !== 'tours') delete manifest.sources[source as keyof typeof manifest.sources];
    await writeManifest();
    const error = await loadSnapshot(dir, schema, { areas: ['tours'], readTimeoutMs: 50 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(`${file}: not read within 50 ms (SNAPSHOT_READ_TIMEOUT_MS); is the file system stalled?`);
  });

  it('tells how to create a snapshot when there is none', async () => {
    await rm(path.join(dir, 'manifest.json'));
    expect(await refusal()).toContain('manifest.json not found: run `npm run sync`');
  });

  it('loads a data directory where only some sources were synced, with the other areas empty', async () => {
    delete manifest.sources.activities;
    delete manifest.sources.snowdata;
    await writeManifest();
    const snapshot = await loadSnapshot(dir, schema);
    expect(snapshot.locales['fr-CH'].activities).toEqual([]);
    expect(snapshot.locales['fr-CH'].stations).toEqual([]);
    expect(snapshot.locales['fr-CH'].tours.length).toBe(manifest.sources.tours!.locales['fr-CH']!.tours!.count);
  });

  it('keeps only the areas asked for, leaving the others empty, and still checks every file', async () => {
    const snapshot = await loadSnapshot(dir, schema, { areas: ['activities'] });
    expect(snapshot.locales['it-CH'].activities.length).toBeGreaterThan(0);
    expect(snapshot.locales['it-CH'].locations).toEqual([]);
    expect(snapshot.locales['de-CH'].tours).toEqual([]);
    expect(Object.isFrozen(snapshot.locales['it-CH'].activities[0]!.summary)).toBe(true);
    // A process that serves some areas refuses what one serving all of them refuses.
    await rm(path.join(dir, toursFile().file));
    await expect(loadSnapshot(dir, schema, { areas: ['activities'] })).rejects.toThrow(SnapshotError);
  });
});
