import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateUpstreamData, startUpstream, type Upstream, type UpstreamData } from '../../../sync/fixtures/upstream.ts';
import { runSync } from '../../../sync/main.ts';
import { stationRouteItems, stationRoutes } from '../../../sync/sources/stnet/routes.ts';
import { LOCALES, type Locale, type Manifest, type RouteRecord, type SourceName, type TourRecord } from '../../../sync/format.ts';
import { readManifest } from '../../../sync/publish/manifest.ts';

let base: UpstreamData;
let upstream: Upstream;
let dataDir: string;

beforeAll(() => {
  base = generateUpstreamData(2026, 0.1);
});
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'winter-join-'));
  upstream = await startUpstream(base);
});
afterEach(async () => {
  await upstream.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

async function sync(sources: SourceName[]): Promise<Manifest> {
  const run = await runSync({
    sources,
    dataDir,
    locales: LOCALES,
    env: upstream.env,
    http: { minDelayMs: 10, maxDelayMs: 50, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, maxAttempts: 3 },
    stdout: discard(),
    stderr: discard(),
    tty: false,
  });
  expect(run.exitCode).toBe(0);
  return (await readManifest(dataDir))!;
}

async function published<T>(manifest: Manifest, source: SourceName, locale: Locale, area: string): Promise<T[]> {
  const entry = (manifest.sources[source]!.locales as Record<string, Record<string, { file: string }>>)[locale]![area]!;
  return JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, entry.file))).toString('utf8'));
}

const KIND: Record<string, string> = { crosscountryskiing: 'crosscountry', winterhiking: 'winterhiking', sledging: 'sledging' };

/**
 * The station routes that one published tour names unambiguously (one item of its kind and
 * name in all the stations), with the route the join must make of each.
 */
async function expectedJoins(manifest: Manifest, locale: Locale): Promise<{ before: RouteRecord; after: RouteRecord }[]> {
  const items = base.snowdata.stations.flatMap(stationRouteItems);
  const tours = await published<TourRecord>(manifest, 'tours', locale, 'tours');
  return tours.flatMap((tour) => {
    const matches = items.filter((item) => item.route.type === KIND[tour.routeType ?? ''] && item.name === tour.name);
    if (matches.length !== 1) return [];
    const before = matches[0]!.route;
    const number = tour.switzerlandMobilityRoute === null ? before.number : String(tour.switzerlandMobilityRoute);
    return [{ before, after: { ...before, id: tour.id, number, link: tour.url } }];
  });
}

describe('the winter tour join in a real sync', () => {
  it('gives station routes the id, number and link of their tours, and adds the snowshoe tours as routes', async () => {
    const manifest = await sync(['snowdata', 'tours']);
    for (const locale of ['de-CH', 'fr-CH'] as const) {
      const routes = await published<RouteRecord>(manifest, 'snowdata', locale, 'routes');
      const joins = await expectedJoins(manifest, locale);
      expect(joins.length).toBeGreaterThan(3);
      for (const { before, after } of joins) {
        expect(routes).toContainEqual(after);
        expect(routes.map((r) => r.id)).not.toContain(before.id);
      }
      // No route lost: every station route is there, joined or not, and only snowshoe routes are added.
      expect(routes.filter((r) => r.type !== 'snowshoe')).toHaveLength(base.snowdata.stations.flatMap(stationRoutes).length);
      const tours = await published<TourRecord>(manifest, 'tours', locale, 'tours');
      const snowshoe = routes.filter((r) => r.type === 'snowshoe');
      expect(snowshoe.length).toBeGreaterThan(0);
      for (const route of snowshoe) expect(route.link).toBe(tours.find((t) => t.id === route.id && t.routeType === 'snowshoe')!.url);
      expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    }
  });

  it('leaves routes unjoined without tours, and joins a snowdata-only run with the tours carried from the current version', async () => {
    const alone = await sync(['snowdata']);
    expect(await published<RouteRecord>(alone, 'snowdata', 'de-CH', 'routes')).toEqual(base.snowdata.stations.flatMap(stationRoutes));

    await sync(['tours']);
    const tourRequests = upstream.requests.filter((r) => r.path.endsWith('/tours')).length;
    const manifest = await sync(['snowdata']);
    // The last run fetched no tours: the join used the ones carried over.
    expect(upstream.requests.filter((r) => r.path.endsWith('/tours'))).toHaveLength(tourRequests);
    const routes = await published<RouteRecord>(manifest, 'snowdata', 'de-CH', 'routes');
    const joins = await expectedJoins(manifest, 'de-CH');
    expect(joins.length).toBeGreaterThan(3);
    for (const { after } of joins) expect(routes).toContainEqual(after);
  });
});
