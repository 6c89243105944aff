import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type UpstreamData, generateUpstreamData, startUpstream, type Upstream } from '../../sync/fixtures/upstream.ts';
import { runSync, type SyncOptions } from '../../sync/main.ts';
import { MAX_LINE_POSITIONS } from '../../sync/publish/gate/geometryRules.ts';
import { readManifest } from '../../sync/publish/manifest.ts';
import { readGeodata } from '../../sync/sources/myswitzerland/geodata.ts';
import { normalizeTour } from '../../sync/sources/myswitzerland/normalize.ts';
import { FieldReader } from '../../sync/sources/read.ts';
import type { GeometryFile, Locale, Manifest, Position, TourGeometry, TourRecord } from '../../sync/format.ts';

let base: UpstreamData;
let upstream: Upstream | undefined;
let dataDir: string;

beforeAll(() => {
  // 100 tours: two pages of 50 per language, and 100 lines.
  base = generateUpstreamData(2026, 0.05);
});
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tour-lines-'));
});
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  await fs.rm(dataDir, { recursive: true, force: true });
});

const LOCALES: Locale[] = ['de-CH'];

/** Serves a copy of the data whose lists and lines the test may replace without touching `base`. */
async function serve(change?: (data: UpstreamData) => void): Promise<UpstreamData> {
  const data: UpstreamData = { ...base, tours: { ...base.tours }, tourGeodata: { ...base.tourGeodata } };
  change?.(data);
  upstream = await startUpstream(data);
  return data;
}

/** The tours as the sync reads them, in the order served. */
function tours(data: UpstreamData = base): TourRecord[] {
  return data.tours.de.map((raw) => normalizeTour(raw, 'de', new FieldReader()));
}

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  manifest: Manifest;
  /** Geodata requests this run made, by tour id. */
  geodata: string[];
}

async function sync(options: Partial<SyncOptions> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const sink = (write: (text: string) => void) => new Writable({ write: (chunk, _encoding, done) => (write(String(chunk)), done()) });
  const before = upstream!.requests.length;
  const run = await runSync({
    sources: ['tours'],
    dataDir,
    locales: LOCALES,
    env: upstream!.env,
    http: { minDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 },
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    tty: false,
    ...options,
  });
  const geodata = upstream!.requests.slice(before).flatMap((r) => /\/tours\/([^/]+)\/geodata$/.exec(r.path)?.[1] ?? []);
  return { exitCode: run.exitCode, stdout, stderr, manifest: (await readManifest(dataDir))!, geodata };
}

/** The lines the manifest's version publishes, by tour id. */
async function lines(manifest: Manifest): Promise<Record<string, TourGeometry>> {
  if (!manifest.geometry) return {};
  return (JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, manifest.geometry.file))).toString('latin1')) as GeometryFile).tours;
}

/** A geodata answer holding one line. */
function answer(coordinates: Position[]): unknown {
  return { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates } }] };
}

/** `count` positions from `start`, due east, `km` in all, each `wiggleM` to the side of the one before, alternately. */
function eastward(start: { lng: number; lat: number }, km: number, count: number, wiggleM: number): Position[] {
  const degLng = km / (111.2 * Math.cos((start.lat * Math.PI) / 180));
  return Array.from({ length: count }, (_, i) => [start.lng + (degLng * i) / (count - 1), start.lat + (i % 2 === 0 ? 0 : wiggleM / 111_200), 600] as Position);
}

describe('the tours\' lines over the loopback upstream', () => {
  it('asks for every line once: a second run keeps them all without a request, and a changed tour is asked for again', async () => {
    const data = await serve();
    const ids = tours().map((tour) => tour.id);

    const first = await sync();
    expect(first.exitCode).toBe(0);
    expect(first.geodata.sort()).toEqual([...ids].sort());
    expect(first.stdout).toContain('\ntours: lines fetched 100, kept 0, failed 0, simplified 0, published 100\n');
    const published = await lines(first.manifest);
    expect(Object.keys(published)).toHaveLength(100);

    const second = await sync({ now: new Date(Date.parse(first.manifest.createdAt) + 60_000) });
    expect(second.exitCode).toBe(0);
    expect(second.geodata).toEqual([]);
    expect(second.stdout).toContain('\ntours: lines fetched 0, kept 100, failed 0, simplified 0, published 100\n');
    expect(second.manifest.version).not.toBe(first.manifest.version);
    expect(await lines(second.manifest)).toEqual(published);

    // The upstream edits one tour: it alone is asked for again.
    const edited = ids[7]!;
    for (const lang of ['de', 'en', 'fr', 'it'] as const) {
      data.tours[lang] = data.tours[lang].map((raw) => ((raw as { identifier: string }).identifier === edited ? { ...(raw as object), dateModified: '2026-12-01T08:00:00Z' } : raw));
    }
    const third = await sync({ now: new Date(Date.parse(first.manifest.createdAt) + 120_000) });
    expect(third.geodata).toEqual([edited]);
    expect(third.stdout).toContain('\ntours: lines fetched 1, kept 99, failed 0, simplified 0, published 100\n');
  });

  it('publishes a tour whose line fails without it, counting it under its rule, and a tour without geodata without one', async () => {
    const all = tours();
    const [jumps, abroad, garbled, none] = all;
    await serve((data) => {
      const start = { lng: jumps!.longitude!, lat: jumps!.latitude! };
      // A stray point 40 km off the way.
      data.tourGeodata[jumps!.id] = answer([[start.lng, start.lat], [start.lng + 0.001, start.lat], [start.lng + 0.5, start.lat + 0.1], [start.lng + 0.002, start.lat]]);
      // Paris.
      data.tourGeodata[abroad!.id] = answer(eastward({ lng: 2.35, lat: 48.85 }, abroad!.distance!, 50, 0));
      data.tourGeodata[garbled!.id] = { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'LineString', coordinates: [['7.1', '46.2'], ['7.2', '46.3']] } }] };
      delete data.tourGeodata[none!.id];
    });
    const run = await sync();
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('\ntours: lines fetched 98, kept 0, failed 3 (geometry-bounds 1, geometry-jump 1, geometry-read 1), simplified 0, published 96\n');
    const published = await lines(run.manifest);
    for (const tour of [jumps, abroad, garbled, none]) expect(published[tour!.id]).toBeUndefined();
    expect(Object.keys(published)).toHaveLength(96);
    // The tours themselves are published.
    expect(run.manifest.sources.tours!.locales['de-CH']!.tours!.count).toBe(100);
    const report = JSON.parse(await fs.readFile(path.join(dataDir, run.manifest.version, 'report.json'), 'utf8'));
    expect(report.sources.tours.gate.lines).toEqual({ fetched: 98, kept: 0, failed: 3, rejected: { 'geometry-bounds': 1, 'geometry-jump': 1, 'geometry-read': 1 }, simplified: 0, published: 96 });
  });

  it('simplifies an oversized line below the most positions kept, and leaves out one too dense to simplify', async () => {
    const all = tours().filter((tour) => tour.latitude !== null && tour.distance !== null && tour.distance >= 5);
    const [dense, scribble] = all;
    await serve((data) => {
      // Straight, with a sway of 10 cm: a few positions say as much.
      data.tourGeodata[dense!.id] = answer(eastward({ lng: dense!.longitude!, lat: dense!.latitude! }, dense!.distance!, 20_000, 0.1));
      // A zigzag of 30 m every step: no tolerance of a few metres takes it below the limit.
      data.tourGeodata[scribble!.id] = answer(eastward({ lng: scribble!.longitude!, lat: scribble!.latitude! }, scribble!.distance! / 2, 8_000, 30));
    });
    const run = await sync();
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('\ntours: lines fetched 100, kept 0, failed 1 (geometry-points 1), simplified 1, published 99\n');
    const published = await lines(run.manifest);
    const simplified = published[dense!.id]!;
    expect(simplified.type).toBe('LineString');
    const positions = simplified.coordinates as Position[];
    expect(positions.length).toBeLessThan(MAX_LINE_POSITIONS);
    expect(positions.length).toBeGreaterThanOrEqual(2);
    // Its ends, and the altitudes of the positions kept, are the upstream's.
    expect(positions[0]).toEqual([dense!.longitude!, dense!.latitude!, 600]);
    expect(published[scribble!.id]).toBeUndefined();
  });

  it('waits MYSWITZERLAND_RATE_LIMIT_WAIT_MS after a 429 without Retry-After on a line, then has it', async () => {
    await serve();
    const id = tours()[3]!.id;
    upstream!.inject({ path: `/myswitzerland/v1/tours/${id}/geodata`, times: 1, fault: { kind: 'status', status: 429 } });
    const started = Date.now();
    const run = await sync({ env: { ...upstream!.env, MYSWITZERLAND_RATE_LIMIT_WAIT_MS: '400' } });
    expect(run.exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(run.stderr).toMatch(new RegExp(`tours geodata: attempt 1 of 3 failed \\(429 Too Many Requests\\), retrying in 0\\.4 s: GET http://127\\.0\\.0\\.1:\\d+/myswitzerland/v1/tours/${id}/geodata`));
    expect(run.geodata.filter((asked) => asked === id)).toHaveLength(2);
    expect((await lines(run.manifest))[id]).toBeDefined();
    expect(run.stdout).toContain('\ntours: lines fetched 100, kept 0, failed 0, simplified 0, published 100\n');
  });

  it('refuses the tours when more than a tenth of their lines fail, keeping the last good tours and lines', async () => {
    const data = await serve();
    const first = await sync();
    const good = await lines(first.manifest);
    // The upstream edits every tour, and every line moves to the sea off Africa.
    data.tours.de = data.tours.de.map((raw) => ({ ...(raw as object), dateModified: '2026-12-01T08:00:00Z' }));
    for (const id of Object.keys(data.tourGeodata)) data.tourGeodata[id] = answer([[0.1, 0.1, 0], [0.11, 0.1, 0]]);
    const second = await sync({ now: new Date(Date.parse(first.manifest.createdAt) + 60_000) });
    expect(second.exitCode).toBe(1);
    expect(second.geodata).toHaveLength(100);
    expect(second.stderr).toContain("tours refused (last good data kept): refused by the publish gate: tours tours' lines: lines-failed: 100 lines (100%) failed, at most 10% allowed");
    expect(second.manifest.sources.tours!.stale).toBe(true);
    expect(await lines(second.manifest)).toEqual(good);
  });
});

describe('readGeodata', () => {
  it('reads a FeatureCollection\'s line beside its start point, with altitudes', () => {
    const body = { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [7.1, 46.2] } }, { type: 'Feature', geometry: { type: 'LineString', coordinates: [[7.1, 46.2, 500], [7.2, 46.3, 600]] } }] };
    expect(readGeodata(body)).toEqual({ type: 'LineString', coordinates: [[7.1, 46.2, 500], [7.2, 46.3, 600]] });
  });

  it('reads a Feature or a bare geometry, a MultiLineString and lines in several features as parts', () => {
    const multi = { type: 'MultiLineString', coordinates: [[[7.1, 46.2], [7.2, 46.3]], [[7.2, 46.3], [7.3, 46.4]]] };
    expect(readGeodata({ type: 'Feature', properties: null, geometry: multi })).toEqual(multi);
    expect(readGeodata(multi)).toEqual(multi);
    const two = { type: 'FeatureCollection', features: multi.coordinates.map((coordinates) => ({ type: 'Feature', geometry: { type: 'LineString', coordinates } })) };
    expect(readGeodata(two)).toEqual(multi);
  });

  it('drops the altitudes when some positions lack them, and positions past the third number', () => {
    expect(readGeodata({ type: 'LineString', coordinates: [[7.1, 46.2, 500, 9], [7.2, 46.3]] })).toEqual({ type: 'LineString', coordinates: [[7.1, 46.2], [7.2, 46.3]] });
  });

  it('answers null for an answer with no line, and names what is wrong with one that is not GeoJSON of lines', () => {
    expect(readGeodata({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [7.1, 46.2] } }] })).toBeNull();
    expect(readGeodata({ type: 'LineString', coordinates: [[7.1, 46.2]] })).toBeNull();
    expect(readGeodata({ type: 'LineString', coordinates: [[7.1, 46.2], [7.2, null]] })).toBe('line 0, position 1: expected [longitude, latitude] or [longitude, latitude, altitude] as numbers, got [7.2,null]');
    expect(readGeodata([1, 2])).toBe('not GeoJSON (expected a FeatureCollection, a Feature or a geometry), got [1,2]');
    expect(readGeodata({ type: 'FeatureCollection' })).toBe('a FeatureCollection without a list of features');
  });
});
