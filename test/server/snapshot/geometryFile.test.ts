import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { loadSnapshot, SnapshotError } from '../../../server/snapshot/load.ts';
import { loadSnapshotOffThread } from '../../../server/snapshot/offThread.ts';
import { createStore } from '../../../server/snapshot/store.ts';
import { geometryPath, type GeometryFile, type Manifest, type TourGeometry } from '../../../sync/format.ts';
import { writeTinySnapshot } from '../../helpers/tinySnapshot.ts';
import { createSmallSnapshot } from '../../helpers/smallSnapshot.ts';
import type { TinySnapshot } from '../../helpers/tinySnapshot.ts';

const schema = createSchema(readSdl(), resolvers);
const LINE: TourGeometry = { type: 'LineString', coordinates: [[7.44, 46.95, 540], [7.45, 46.96, 560], [7.46, 46.955, 600]] };

let small: TinySnapshot;
beforeAll(async () => {
  small = await createSmallSnapshot();
});
afterAll(() => small.remove());

let dir: string;
let manifest: Manifest;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'geometry-'));
  manifest = await writeTinySnapshot(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Writes `content` as the version's geometry file, named by the manifest with its sha256 and `count`. */
async function writeGeometry(content: string, count: number) {
  const bytes = gzipSync(content);
  await writeFile(path.join(dir, geometryPath(manifest.version)), bytes);
  manifest.geometry = { file: geometryPath(manifest.version), count, sha256: createHash('sha256').update(bytes).digest('hex') };
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

async function refusal(): Promise<string> {
  const error = await loadSnapshot(dir, schema).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SnapshotError);
  // The off-thread load refuses it with the same words.
  const offThread = await loadSnapshotOffThread(dir, schema).then(() => null, (e: unknown) => e);
  expect((offThread as Error).message).toBe((error as Error).message);
  return (error as Error).message;
}

describe('the geometry file', () => {
  it('gives the small snapshot its tours\' lines, frozen, once for every locale, and the store answers them by id', async () => {
    const snapshot = await loadSnapshot(small.dir, schema);
    const ids = snapshot.locales['de-CH'].tours.map((tour) => tour.id);
    expect(Object.keys(snapshot.geometry).sort()).toEqual([...ids].sort());
    const store = createStore(snapshot);
    const line = store.tourGeometry(ids[0]!)!;
    expect(['LineString', 'MultiLineString']).toContain(line.type);
    expect(Object.isFrozen(line)).toBe(true);
    expect(Object.isFrozen(line.coordinates[0])).toBe(true);
    expect(store.tourGeometry('no such tour')).toBeNull();
    // An id that names a property of every object is no tour.
    expect(store.tourGeometry('__proto__')).toBeNull();
    expect(store.tourGeometry('constructor')).toBeNull();
    const offThread = await loadSnapshotOffThread(small.dir, schema);
    expect(offThread.snapshot.geometry).toEqual(snapshot.geometry);
  });

  it('is empty when the manifest names none, and a load that keeps no tours keeps no lines', async () => {
    expect(createStore(await loadSnapshot(dir, schema)).tourGeometry('tour-0')).toBeNull();
    expect(Object.keys((await loadSnapshot(small.dir, schema, { areas: ['stations'] })).geometry)).toEqual([]);
  });

  it('reads a file laid out otherwise than the sync writes it, in one piece', async () => {
    await writeGeometry(JSON.stringify({ tours: { 'tour-1': LINE }, version: manifest.version }, null, 2), 1);
    expect(createStore(await loadSnapshot(dir, schema)).tourGeometry('tour-1')).toEqual(LINE);
  });

  it('refuses a line that is not one, naming the file and the tour', async () => {
    const file = path.join(dir, geometryPath(manifest.version));
    const write = (tours: Record<string, unknown>) => writeGeometry(`{"version":${JSON.stringify(manifest.version)},"tours":{\n${Object.entries(tours).map(([id, line]) => `${JSON.stringify(id)}:${JSON.stringify(line)}`).join(',\n')}\n}}\n`, Object.keys(tours).length);

    await write({ 'tour-1': LINE, 'tour-2': { type: 'LineString', coordinates: [[7.4, 46.9], [7.5, 95]] } });
    expect(await refusal()).toBe(`${file}: tour "tour-2": coordinates[1][1]: latitude 95, expected -90 to 90`);
    await write({ 'tour-1': { type: 'Point', coordinates: [7.4, 46.9] } });
    expect(await refusal()).toBe(`${file}: tour "tour-1": type "Point", expected "LineString" or "MultiLineString"`);
    await write({ 'tour-1': { type: 'LineString', coordinates: [[7.4, 46.9, 500], [7.5, 46.9]] } });
    expect(await refusal()).toBe(`${file}: tour "tour-1": coordinates[1]: 2 numbers where the first position has 3; every position has an altitude or none has`);
    await write({ 'tour-1': { type: 'MultiLineString', coordinates: [[[7.4, 46.9]]] } });
    expect(await refusal()).toBe(`${file}: tour "tour-1": coordinates[0]: a line needs a list of at least 2 positions`);
    await write({ 'tour-1': { type: 'LineString', coordinates: [[7.4, 46.9], ['7.5', 46.9]] } });
    expect(await refusal()).toBe(`${file}: tour "tour-1": coordinates[1][0]: longitude "7.5", expected -180 to 180`);
    await write({ 'tour-1': { type: 'LineString', coordinates: Array.from({ length: 5001 }, (_, i) => [7 + i * 1e-5, 46.9]) } });
    expect(await refusal()).toBe(`${file}: tour "tour-1": more than 5000 positions, at most 5000 allowed`);
    // JSON reads an overlong exponent as Infinity.
    await writeGeometry(`{"version":${JSON.stringify(manifest.version)},"tours":{\n"tour-1":{"type":"LineString","coordinates":[[7.4,46.9,1e999],[7.5,46.9,500]]}\n}}\n`, 1);
    expect(await refusal()).toBe(`${file}: tour "tour-1": coordinates[0][2]: altitude null, expected -500 to 9000 m`);
  });

  it('refuses a file of another version, of another count, or failing its checksum', async () => {
    const file = path.join(dir, geometryPath(manifest.version));
    await writeGeometry(`{"version":"2020-01-01T00-00-00Z","tours":{\n"tour-1":${JSON.stringify(LINE)}\n}}\n`, 1);
    expect(await refusal()).toBe(`${file}: holds the lines of version "2020-01-01T00-00-00Z", expected ${manifest.version}`);
    await writeGeometry(`{"version":${JSON.stringify(manifest.version)},"tours":{\n"tour-1":${JSON.stringify(LINE)}\n}}\n`, 2);
    expect(await refusal()).toBe(`${file}: 1 tours' lines, expected 2`);
    await writeFile(file, gzipSync('{}'));
    expect(await refusal()).toContain(file);
    expect(await refusal()).toContain('sha256');
  });

  it('refuses a manifest whose geometry entry is not one', async () => {
    await writeGeometry(`{"version":${JSON.stringify(manifest.version)},"tours":{\n"tour-1":${JSON.stringify(LINE)}\n}}\n`, 1);
    manifest.geometry = { ...manifest.geometry!, file: '../elsewhere/geometry.json.gz' };
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect(await refusal()).toBe(`${path.join(dir, 'manifest.json')}: geometry.file must be a relative path inside the data directory, found "../elsewhere/geometry.json.gz"`);
  });

  it('is written by the sync a tour to a line, in the order of the ids, and read back the same', async () => {
    const committed = JSON.parse(await readFile(path.join(small.dir, 'manifest.json'), 'utf8')) as Manifest;
    const text = gunzipSync(await readFile(path.join(small.dir, committed.geometry!.file))).toString('latin1');
    const rows = text.split('\n');
    expect(rows[0]).toBe(`{"version":${JSON.stringify(committed.version)},"tours":{`);
    expect(rows.at(-2)).toBe('}}');
    const parsed = JSON.parse(text) as GeometryFile;
    expect(rows.length - 3).toBe(Object.keys(parsed.tours).length);
    expect(Object.keys(parsed.tours)).toEqual(Object.keys(parsed.tours).sort());
  });
});
