import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { loadSnapshot, SnapshotError, type Snapshot } from '../../../server/snapshot/load.ts';
import { AREA_TYPES } from '../../../server/snapshot/load.ts';
import { LOCALES, type Locale } from '../../../server/snapshot/locales.ts';
import { loadSnapshotOffThread } from '../../../server/snapshot/offThread.ts';
import { SnapshotReader } from '../../../server/snapshot/snapshotReader.ts';
import { areaPartsSteps, createStore, createStoreAsync } from '../../../server/snapshot/store.ts';
import { runSteps } from '../../../server/util/timeSlice.ts';
import type { AreaName } from '../../../sync/format.ts';
import type { Manifest } from '../../../sync/format.ts';
import { recordsDigest } from '../../helpers/recordsDigest.ts';
import { createSmallSnapshot } from '../../helpers/smallSnapshot.ts';
import type { TinySnapshot } from '../../helpers/tinySnapshot.ts';
import { lowPriorityThreads } from '../../helpers/threads.ts';

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
  dir = await mkdtemp(path.join(tmpdir(), 'off-thread-'));
  await cp(small.dir, dir, { recursive: true });
  manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const toursFile = (locale: Locale = 'de-CH') => manifest.sources.tours!.locales[locale]!.tours!;

/** Rewrites the tours file of `locale` as `text` of the edited records, with a matching checksum and count. */
async function rewriteTours(edit: (records: Record<string, unknown>[]) => void, encode = (records: unknown[]) => JSON.stringify(records), locale: Locale = 'de-CH') {
  const file = path.join(dir, toursFile(locale).file);
  const records = JSON.parse(gunzipSync(await readFile(file)).toString('utf8'));
  edit(records);
  const bytes = gzipSync(encode(records));
  await writeFile(file, bytes);
  toursFile(locale).sha256 = createHash('sha256').update(bytes).digest('hex');
  toursFile(locale).count = records.length;
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

/** Resolves once no reader thread of an earlier test is left (terminating one takes a moment). */
const noReaderLeft = () => vi.waitFor(() => expect(lowPriorityThreads()).toEqual([]), { timeout: 5_000, interval: 20 });

/** Two loads of one snapshot: the same manifest, and the same records in the same order. */
function expectSameSnapshot(actual: Snapshot, expected: Snapshot): void {
  expect(actual.version).toBe(expected.version);
  expect(actual.manifest).toEqual(expected.manifest);
  expect(recordsDigest(actual.locales)).toEqual(recordsDigest(expected.locales));
}

/** The errors of both loaders, the thread's with `reader`, which must be the same SnapshotError. */
async function refusals(reader: SnapshotReader): Promise<[string, string]> {
  const refused = (load: Promise<unknown>) =>
    load.then(
      () => null,
      (e: unknown) => e,
    );
  const inThread = await refused(loadSnapshot(dir, schema));
  const offThread = await refused(loadSnapshotOffThread(dir, schema, { reader }));
  expect(inThread).toBeInstanceOf(SnapshotError);
  expect(offThread).toBeInstanceOf(SnapshotError);
  return [(inThread as Error).message, (offThread as Error).message];
}

describe('loadSnapshotOffThread', () => {
  // One reader thread for the loads of this block, kept between them as the server keeps its
  // own between reloads; the first and the timed-out load start their own, as a plain load does.
  let reader: SnapshotReader;
  beforeAll(() => {
    reader = new SnapshotReader(schema);
  });
  afterAll(() => reader.close());

  it('loads the same frozen snapshot as loadSnapshot', async () => {
    const { snapshot: offThread } = await loadSnapshotOffThread(dir, schema);
    expectSameSnapshot(offThread, await loadSnapshot(dir, schema));
    expect(Object.isFrozen(offThread.locales['fr-CH'].tours[0])).toBe(true);
    expect(Object.isFrozen(offThread.locales['fr-CH'].tours[0]!.views)).toBe(true);
  });

  it('computes the parts of every area as the serving thread would, and a store built with them orders and searches as one built without', async () => {
    const { snapshot, parts } = await loadSnapshotOffThread(dir, schema, { reader });
    for (const locale of LOCALES) {
      for (const area of Object.keys(AREA_TYPES) as AreaName[]) {
        expect(parts[locale]?.[area], `${locale} ${area}`).toEqual(runSteps(areaPartsSteps(locale, area, snapshot.locales[locale][area])));
      }
    }
    const withParts = await createStoreAsync(snapshot, parts);
    const without = createStore(snapshot);
    for (const locale of LOCALES) {
      for (const area of Object.keys(AREA_TYPES) as AreaName[]) {
        const ours = withParts.locales[locale][area];
        const theirs = without.locales[locale][area];
        expect(ours.records.map((r) => r.id), `${locale} ${area}`).toEqual(theirs.records.map((r) => r.id));
        for (const query of ['s', 'a', 'unterwegs aufstieg', 'grindelwlad', 'zermatt', 'berg see', 'ski']) {
          expect(ours.text.search(query, { end: 20 }), `${locale} ${area} "${query}"`).toEqual(theirs.text.search(query, { end: 20 }));
        }
      }
    }
  });

  it('keeps the records of the files unchanged since the previous snapshot and reads the others, to the snapshot loadSnapshot reads', async () => {
    const previous = await loadSnapshot(dir, schema);
    await rewriteTours((records) => {
      records[0]!.name = 'Neuer Name';
    });
    const { snapshot, parts, files } = await loadSnapshotOffThread(dir, schema, { previous, reader });
    expectSameSnapshot(snapshot, await loadSnapshot(dir, schema));
    expect(snapshot.locales['de-CH'].tours[0]!.name).toBe('Neuer Name');
    expect(snapshot.locales['de-CH'].tours).not.toBe(previous.locales['de-CH'].tours);
    expect(parts['de-CH']?.tours).toBeDefined();
    let listed = 0;
    for (const locale of LOCALES) {
      for (const area of Object.keys(AREA_TYPES) as AreaName[]) {
        if (previous.locales[locale][area].length === 0 || (locale === 'de-CH' && area === 'tours')) continue;
        listed++;
        expect(snapshot.locales[locale][area], `${locale} ${area}`).toBe(previous.locales[locale][area]);
        expect(parts[locale]?.[area], `${locale} ${area}`).toBeUndefined();
      }
    }
    expect(files).toEqual({ total: listed + 1, kept: listed });

    // The store keeps the indexes of the areas it shares, and builds the changed one as a new store would.
    const served = createStore(previous);
    const store = await createStoreAsync(snapshot, parts, served);
    const fresh = createStore(snapshot);
    expect(store.locales['fr-CH'].tours).toBe(served.locales['fr-CH'].tours);
    expect(store.locales['de-CH'].attractions).toBe(served.locales['de-CH'].attractions);
    expect(store.locales['de-CH'].tours).not.toBe(served.locales['de-CH'].tours);
    expect(store.locales['de-CH'].tours.records.map((r) => r.id)).toEqual(fresh.locales['de-CH'].tours.records.map((r) => r.id));
    expect(store.locales['de-CH'].tours.text.search('neuer', { end: 5 })).toEqual(fresh.locales['de-CH'].tours.text.search('neuer', { end: 5 }));
    expect(store.sizes).toEqual(fresh.sizes);
  });

  it('still checks a file whose records it keeps: one missing since refuses the snapshot', async () => {
    const previous = await loadSnapshot(dir, schema);
    const file = manifest.sources.tours!.locales['fr-CH']!.tours!.file;
    await rm(path.join(dir, file));
    const error = await loadSnapshotOffThread(dir, schema, { previous, reader }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(`${path.join(dir, file)}: listed in the manifest but missing`);
  });

  it('finds every record of a file in UTF-8, pretty-printed, with quotes, backslashes and brackets inside strings', async () => {
    await rewriteTours(
      (records) => {
        records[0]!.name = 'Grat "{[ ]}" \\ weg, über Mönch';
        records[1]!.abstract = '\\"}]';
      },
      (records) => JSON.stringify(records, null, 2),
    );
    const { snapshot: offThread } = await loadSnapshotOffThread(dir, schema, { areas: ['tours'], reader });
    expect(offThread.locales['de-CH'].tours).toEqual((await loadSnapshot(dir, schema, { areas: ['tours'] })).locales['de-CH'].tours);
    expect(offThread.locales['de-CH'].tours[0]!.name).toBe('Grat "{[ ]}" \\ weg, über Mönch');
  });

  it('refuses a record that does not match its GraphQL type as loadSnapshot does', async () => {
    await rewriteTours((records) => {
      records[3]!.isRoundtrip = null;
    });
    const [inThread, offThread] = await refusals(reader);
    expect(offThread).toBe(inThread);
    expect(offThread).toContain('field "isRoundtrip": expected Boolean!, found null');
  });

  it('refuses a file changed after the manifest was written as loadSnapshot does', async () => {
    const file = path.join(dir, toursFile().file);
    const bytes = await readFile(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
    await writeFile(file, bytes);
    const [inThread, offThread] = await refusals(reader);
    expect(offThread).toBe(inThread);
  });

  it('refuses a snapshot whose file is not answered within readTimeoutMs, naming the file and the setting', async () => {
    // 256 MiB of spaces, as 256 gzip members of 1 MiB: inflating them takes far longer than 50 ms.
    const bytes = Buffer.concat(Array.from({ length: 256 }, () => SPACES_MEMBER));
    const file = path.join(dir, toursFile().file);
    await writeFile(file, bytes);
    toursFile().sha256 = createHash('sha256').update(bytes).digest('hex');
    // Every file named is read under the limit: the tours' alone are.
    for (const source of Object.keys(manifest.sources)) if (source !== 'tours') delete manifest.sources[source as keyof typeof manifest.sources];
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await loadSnapshotOffThread(dir, schema, { areas: ['tours'], readTimeoutMs: 50 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(`${file}: not read within 50 ms (SNAPSHOT_READ_TIMEOUT_MS); is the file system stalled?`);
  });
});

describe('a reader thread kept between loads (SnapshotReader)', () => {
  let reader: SnapshotReader;
  beforeEach(() => {
    reader = new SnapshotReader(schema);
  });
  afterEach(() => reader.close());

  it.runIf(process.platform === 'linux')('reads one load after another in the one thread it started, which waits between them', async () => {
    await noReaderLeft();
    const first = await loadSnapshotOffThread(dir, schema, { reader });
    const threads = lowPriorityThreads();
    expect(threads).toHaveLength(1);
    const second = await loadSnapshotOffThread(dir, schema, { reader });
    expect(lowPriorityThreads()).toEqual(threads);
    expectSameSnapshot(second.snapshot, first.snapshot);
    expectSameSnapshot(second.snapshot, await loadSnapshot(dir, schema));
  });

  it('reads the next load in full after one refused part-way, none of whose answers reach it', async () => {
    // The file after the broken one, which the reader was asked for ahead, differs at the next load.
    const file = path.join(dir, toursFile().file);
    const bytes = await readFile(file);
    const broken = Buffer.from(bytes);
    broken.writeUInt8(broken.readUInt8(broken.length - 10) ^ 0xff, broken.length - 10);
    await writeFile(file, broken);
    const error = await loadSnapshotOffThread(dir, schema, { reader }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toContain(file);
    await writeFile(file, bytes);
    await rewriteTours((records) => void (records[0]!.name = 'Renamed since the refused load'), undefined, 'en-CH');
    const { snapshot } = await loadSnapshotOffThread(dir, schema, { reader });
    expect(snapshot.locales['en-CH'].tours[0]).toMatchObject({ name: 'Renamed since the refused load' });
    expectSameSnapshot(snapshot, await loadSnapshot(dir, schema));
  });

  it.runIf(process.platform === 'linux')('fails the load its thread ends during, naming the file, and starts another thread for the next', async () => {
    await noReaderLeft();
    const loading = loadSnapshotOffThread(dir, schema, { reader });
    while (lowPriorityThreads().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    reader.close();
    const error = await loading.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(/^.+\.json\.gz: the snapshot reader thread failed \(exited with code 1\)$/);
    const { snapshot } = await loadSnapshotOffThread(dir, schema, { reader });
    expectSameSnapshot(snapshot, await loadSnapshot(dir, schema));
  });

  it('hands each file over in shared memory, which the server thread does not count as its external memory, and reuses it once given back', async () => {
    // One large file, read again and again: each fits the memory of the one before. Its size is
    // whitespace after the records, which costs the thread little to parse and nothing to index.
    await rewriteTours(() => {}, (records) => JSON.stringify(records) + ' '.repeat(2 * 1024 * 1024));
    const job = { locale: 'de-CH' as const, area: 'tours' as const, file: toursFile(), kept: false };
    const root = await realpath(dir);
    const run = reader.read({ dataDir: root, root, readTimeoutMs: 10_000 }, Array.from({ length: 6 }, () => job));
    try {
      const externalBefore = getHeapStatistics().external_memory;
      const first = await run.next(0, job.file.file);
      expect(first).toHaveProperty('bytes');
      if (!('bytes' in first)) return;
      expect(first.bytes).toBeInstanceOf(SharedArrayBuffer);
      expect(first.length).toBeGreaterThan(1_000_000);
      expect(getHeapStatistics().external_memory - externalBefore).toBeLessThan(first.length / 2);
      run.parsed(first);
      const later = [];
      for (let index = 1; index < 6; index++) later.push(await run.next(index, job.file.file));
      // The first file the thread began after it had the memory back was read into it, and no
      // other: which file that was depends on how far ahead the thread was.
      new Uint8Array(first.bytes)[0] = 0;
      const sharing = later.filter((result) => 'bytes' in result && new Uint8Array(result.bytes)[0] === 0);
      expect(sharing).toHaveLength(1);
      expect(later.every((result) => 'bytes' in result && result.length === first.length)).toBe(true);
    } finally {
      run.end();
    }
  });

  it('refuses a second run while one is not ended: their answers would mix', () => {
    const settings = { dataDir: dir, root: dir, readTimeoutMs: 1_000 };
    const run = reader.read(settings, []);
    expect(() => reader.read(settings, [])).toThrow('the snapshot reader reads one snapshot at a time');
    run.end();
    reader.read(settings, []).end();
  });
});
