import { createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../server/snapshot/load.ts';
import { DEFAULT_SAMPLES_DIR, readSampleJson } from '../../sync/fixtures/samplesDir.ts';
import { type UpstreamData, generateUpstreamData, startUpstream, STNET_PATH, type Upstream } from '../../sync/fixtures/upstream.ts';
import { main, parseCommand, runSync, type SyncOptions } from '../../sync/main.ts';
import { HITS_PER_PAGE } from '../../sync/sources/myswitzerland/api.ts';
import { PAGE_SIZE } from '../../sync/sources/stnet/api.ts';
import { stationRoutes } from '../../sync/sources/stnet/routes.ts';
import { CONTENT_PAGE_SIZE } from '../../sync/sources/swissactivities/api.ts';
import { type AttractionRecord, LOCALES, MANIFEST_SIGNATURE_FILE, type Manifest, RECORD_LIMITS, type SourceName } from '../../sync/format.ts';
import { readManifest } from '../../sync/publish/manifest.ts';
import { loadSchema } from './helpers/records.ts';

const schema = loadSchema();
let base: UpstreamData;
let upstream: Upstream | undefined;
let dataDir: string;

beforeAll(() => {
  // Big enough that every list has several pages: 600 tours (12 pages of 50), 1,219
  // attractions, 249 activities (3 content pages of 100), 60 stations (2 STnet pages of 50).
  base = generateUpstreamData(2026, 0.3);
});
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sync-'));
});
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Serves a copy of the data whose lists the test may replace without touching `base`. */
async function serve(change?: (data: UpstreamData) => void): Promise<Upstream> {
  const data: UpstreamData = {
    activities: { ...base.activities, content: { ...base.activities.content } },
    snowdata: { stations: [...base.snowdata.stations] },
    tours: { ...base.tours },
    tourGeodata: { ...base.tourGeodata },
    attractions: { ...base.attractions },
  };
  change?.(data);
  upstream = await startUpstream(data);
  return upstream;
}

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  manifest: Manifest;
}

async function sync(sources: SourceName[], options: Partial<SyncOptions> = {}): Promise<Run> {
  const stdout = sink();
  const stderr = sink();
  const run = await runSync({
    sources,
    dataDir,
    locales: LOCALES,
    env: upstream!.env,
    http: { minDelayMs: 10, maxDelayMs: 50, headersTimeoutMs: 300, bodyTimeoutMs: 300, maxAttempts: 3 },
    stdout: stdout.stream,
    stderr: stderr.stream,
    tty: false,
    ...options,
  });
  return { exitCode: run.exitCode, stdout: stdout.text(), stderr: stderr.text(), manifest: (await readManifest(dataDir))! };
}

async function published<T>(manifest: Manifest, source: SourceName, locale: string, area: string): Promise<T[]> {
  const entry = (manifest.sources[source]!.locales as Record<string, Record<string, { file: string }>>)[locale]![area]!;
  return JSON.parse(gunzipSync(await fs.readFile(path.join(dataDir, entry.file))).toString('utf8'));
}

/** The values of `param` in the requests to `p`, as numbers, sorted. */
function requested(p: string, param: string, query: Record<string, string>): number[] {
  return upstream!.requests
    .filter((r) => r.path === p && Object.entries(query).every(([k, v]) => r.query[k] === v))
    .map((r) => Number(r.query[param]))
    .sort((a, b) => a - b);
}

const range = (n: number, step = 1) => Array.from({ length: n }, (_, i) => i * step);

describe('runSync against the loopback upstream', () => {
  it('fetches every source to its last page in all four locales, publishes, and the server loads it', async () => {
    await serve();
    const run = await sync(['activities', 'snowdata', 'tours', 'attractions'], { now: new Date('2026-11-21T04:00:00Z') });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).not.toMatch(/not published/);

    // Every page, each once, none past the end.
    for (const lang of ['de', 'en', 'fr', 'it']) {
      expect(requested('/myswitzerland/v1/tours', 'page', { lang })).toEqual(range(600 / HITS_PER_PAGE));
      expect(requested('/myswitzerland/v1/attractions', 'page', { lang })).toEqual(range(Math.ceil(1219 / HITS_PER_PAGE)));
    }
    // Every language in one answer: each STnet page once, from 1.
    expect(requested(STNET_PATH, 'stn-page', {})).toEqual(range(Math.ceil(base.snowdata.stations.length / PAGE_SIZE)).map((i) => i + 1));
    // The content API is paged until a short page: 249 activities are 3 pages of 100.
    const contentPages = upstream!.requests.filter((r) => r.path === '/swissactivities/content/graphql');
    expect(contentPages).toHaveLength(3 + 1 + 1);
    // The booking API answers for every locale at once: one request per path.
    expect(upstream!.requests.filter((r) => r.path.startsWith('/swissactivities/booking/')).map((r) => r.path).sort()).toEqual(
      ['dates', 'mappings', 'summaries'].map((name) => `/swissactivities/booking/activities/${name}`),
    );
    expect(CONTENT_PAGE_SIZE).toBe(100);

    const m = run.manifest;
    expect(m.version).toBe('2026-11-21T04-00-00Z');
    for (const locale of LOCALES) {
      expect(m.sources.tours!.locales[locale]!.tours!.count).toBe(600);
      // Every station route, plus the snowshoe tours the join adds (test/sync/joins/winterRoutesSync.test.ts).
      const snowshoe = (await published<{ type: string }>(m, 'snowdata', locale, 'routes')).filter((r) => r.type === 'snowshoe').length;
      expect(m.sources.snowdata!.locales[locale]!.routes!.count).toBe(base.snowdata.stations.flatMap(stationRoutes).length + snowshoe);
      expect(m.sources.snowdata!.locales[locale]!.stations!.count).toBe(base.snowdata.stations.length);
    }
    expect(m.sources.tours).toMatchObject({ label: 'MySwitzerland Open Data', lastSync: '2026-11-21T04:00:00.000Z', stale: false });

    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.locales['fr-CH'].tours).toHaveLength(600);
    expect(snapshot.locales['it-CH'].activities.length).toBeGreaterThan(200);

    expect(run.stdout).toMatch(/^source\s+result\s+items\s+change\s+pages\s+retries\s+time\n/);
    // 12 pages in each of four locales, and one geodata answer per tour.
    expect(run.stdout).toMatch(/\ntours\s+published\s+2,400\s+\+2,400\s+648\s+0\s+\d+\.\d s\n/);
    expect(run.stdout).toContain('\ntours: lines fetched 600, kept 0, failed 0, simplified 0, published 600\n');
    expect(Object.keys(snapshot.geometry)).toHaveLength(600);
    expect(run.stdout).toMatch(/snapshot 2026-11-21T04-00-00Z committed to .*manifest\.json\n$/);
    expect(run.stderr).toContain('tours de-CH: page 12 of 12, 600 items');
  });

  it('maps real MySwitzerland attraction samples end to end, field by field', async () => {
    await serve();
    const run = await sync(['attractions'], { locales: ['en-CH'] });
    expect(run.exitCode).toBe(0);
    const attractions = await published<AttractionRecord>(run.manifest, 'attractions', 'en-CH', 'attractions');
    const gorge = attractions.find((a) => a.id === '897b6c43-dcf6-40ba-8e9e-5b89c396ccd5');
    expect(gorge).toEqual({
      id: '897b6c43-dcf6-40ba-8e9e-5b89c396ccd5',
      name: 'Climbing route in Gorner Gorge',
      abstract: null,
      description: expect.stringMatching(/^The guests climb downhill with a mountain guide and traverse the 1-km long Gorner Gorge\./),
      url: 'https://www.myswitzerland.com/en/experiences/climbing-route-in-gorner-gorge/',
      latitude: 46.0211757,
      longitude: 7.7466503,
      locality: 'Zermatt',
      postalCode: '3920',
      contactName: 'ZERMATTERS',
      contactPhone: '+41 (0)27 966 24 66',
      contactEmail: 'info@zermatters.ch',
      contactUrl: 'https://www.zermatters.ch/',
      touristType: ['Adventure Tourism'],
      seasons: ['winter', 'spring', 'summer', 'autumn'],
      sportTypes: ['climb'],
      neededTime: '2to4hourshalfday',
      childrenAges: [],
      difficulty: null,
      natureTypes: [],
      experienceTypes: ['adventure', 'nature', 'active'],
      views: [],
      isAccessibleForFree: false,
      isWheelchairAccessible: false,
      isIndoor: false,
      isOutdoor: true,
      suitableFor: ['children', 'couples', 'family', 'group', 'individual'],
      seasonStart: null,
      seasonEnd: null,
      imageUrl: 'https://static.stnet.ch/offers/images/fbfd72c8-b479-4e0b-aa80-3ce5362fca35-o.jpg',
      images: [
        'https://static.stnet.ch/offers/images/340b84e5-e8d3-4d4e-bc2a-269b0c2269e9-o.jpg',
        'https://static.stnet.ch/offers/images/fbfd72c8-b479-4e0b-aa80-3ce5362fca35-o.jpg',
        'https://static.stnet.ch/offers/images/c8ac44d0-128c-436b-9f55-1e33db62528b-o.jpg',
        'https://static.stnet.ch/offers/images/c83c631d-674e-4398-a1a8-f52b42d23134-o.jpg',
      ],
      destinationId: '3a75caaf-aa16-4ba1-82a9-c800ca08336d',
      lastUpdated: null,
      upstreamLicense: 'CC-BY-SA-4.0',
    });
    const samples = path.join(DEFAULT_SAMPLES_DIR, 'myswitzerland', 'attractions-by-city');
    const lucerne = readSampleJson(path.join(samples, 'lucerne_attractions.json.gz')) as { data: Record<string, unknown>[] };
    const raw = lucerne.data.find((r) => (r.geo as { latitude?: number } | undefined)?.latitude !== undefined && r.abstract)!;
    const record = attractions.find((a) => a.id === raw.identifier)!;
    expect(record).toMatchObject({
      name: raw.name,
      abstract: String(raw.abstract).trim(),
      latitude: (raw.geo as { latitude: number }).latitude,
      longitude: (raw.geo as { longitude: number }).longitude,
      url: raw.url,
    });
  });

  it('honours a 429 with Retry-After and retries a 500, reporting both', async () => {
    await serve();
    upstream!.inject({ path: '/myswitzerland/v1/tours', query: { lang: 'fr', page: '3' }, times: 1, fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } } });
    upstream!.inject({ path: '/myswitzerland/v1/tours', query: { lang: 'de', page: '11' }, times: 1, fault: { kind: 'status', status: 500 } });
    const started = Date.now();
    const run = await sync(['tours']);
    expect(run.exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(requested('/myswitzerland/v1/tours', 'page', { lang: 'fr' })).toEqual([0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(run.stderr).toMatch(/tours fr-CH: attempt 1 of 3 failed \(429 Too Many Requests\), retrying in 1\.0 s: GET http:\/\/127\.0\.0\.1:\d+\/myswitzerland\/v1\/tours\?lang=fr&page=3&/);
    expect(run.stderr).toMatch(/tours de-CH: attempt 1 of 3 failed \(500 Internal Server Error\)/);
    expect(run.stdout).toMatch(/\ntours\s+published\s+2,400\s+\+2,400\s+648\s+2\s/);
    expect(run.manifest.sources.tours!.locales['fr-CH']!.tours!.count).toBe(600);
  });

  it('waits MYSWITZERLAND_RATE_LIMIT_WAIT_MS after a 429 without Retry-After, then publishes', async () => {
    await serve();
    upstream!.inject({ path: '/myswitzerland/v1/tours', query: { lang: 'it', page: '2' }, times: 1, fault: { kind: 'status', status: 429 } });
    const run = await sync(['tours'], { env: { ...upstream!.env, MYSWITZERLAND_RATE_LIMIT_WAIT_MS: '700' } });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/tours it-CH: attempt 1 of 3 failed \(429 Too Many Requests\), retrying in 0\.7 s: GET /);
  });

  it('paces tours and attractions together, one request per MYSWITZERLAND_REQUEST_INTERVAL_MS', async () => {
    // Few tours, so that their lines do not outnumber the attractions' pages.
    await serve((data) => {
      for (const lang of ['de', 'en', 'fr', 'it'] as const) data.tours[lang] = data.tours[lang].slice(0, 20);
    });
    const started = Date.now();
    const run = await sync(['tours', 'attractions'], { locales: ['de-CH'], env: { ...upstream!.env, MYSWITZERLAND_REQUEST_INTERVAL_MS: '20' } });
    expect(run.exitCode).toBe(0);
    // Each list alone would take half as long: the interval holds across both.
    expect(Date.now() - started).toBeGreaterThanOrEqual((upstream!.requests.length - 1) * 20);
    expect(upstream!.requests.filter((r) => r.path.endsWith('/geodata'))).toHaveLength(20);
    expect(upstream!.requests.filter((r) => r.path.endsWith('/attractions')).length).toBeGreaterThan(upstream!.requests.length / 2);
  });

  it('fails a source whose response hangs past the timeout, keeps its last good data as stale, and still publishes the others', async () => {
    await serve();
    await sync(['snowdata', 'attractions'], { now: new Date('2026-11-21T04:00:00Z') });
    upstream!.inject({ path: '/myswitzerland/v1/attractions', query: { lang: 'it', page: '5' }, fault: { kind: 'hang' } });
    const run = await sync(['snowdata', 'attractions'], { now: new Date('2026-11-22T04:00:00Z') });

    expect(run.exitCode).toBe(1);
    // Once in the first run, three attempts in the second.
    expect(requested('/myswitzerland/v1/attractions', 'page', { lang: 'it', page: '5' })).toHaveLength(1 + 3);
    expect(run.stderr).toMatch(
      /\nsync: 1 of 2 sources not published: attractions failed \(last good data kept\): \[GET\] "http:\/\/127\.0\.0\.1:\d+\/myswitzerland\/v1\/attractions\?lang=it&page=5&hitsPerPage=50&expand=true&striphtml=true": UND_ERR_HEADERS_TIMEOUT .* \(after 3 attempts\)\n$/,
    );
    expect(run.stdout).toMatch(/\nattractions\s+failed, kept last good\s+4,876\s+0\s/);
    expect(run.manifest.version).toBe('2026-11-22T04-00-00Z');
    expect(run.manifest.sources.attractions).toMatchObject({ stale: true, lastSync: '2026-11-21T04:00:00.000Z', expiresAt: '2026-11-22T04:00:00.000Z' });
    expect(run.manifest.sources.snowdata).toMatchObject({ stale: false, lastSync: '2026-11-22T04:00:00.000Z' });
    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.locales['it-CH'].attractions).toHaveLength(1219);
  });

  it('fails a source on truncated JSON and another on malformed JSON, naming the URL', async () => {
    await serve();
    upstream!.inject({ path: '/myswitzerland/v1/tours', query: { lang: 'de', page: '1' }, fault: { kind: 'truncate' } });
    upstream!.inject({ path: '/swissactivities/content/graphql', fault: { kind: 'malformed' } });
    const run = await sync(['activities', 'tours', 'snowdata']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/sync: 2 of 3 sources not published: activities failed: \[POST\] "http:\/\/127\.0\.0\.1:\d+\/swissactivities\/content\/graphql": 200 OK with malformed JSON, expected JSON: .*; tours failed: \[GET\] "http:\/\/127\.0\.0\.1:\d+\/myswitzerland\/v1\/tours\?lang=de&page=1&[^"]*": 200 OK with truncated JSON \(\d+ bytes\), expected JSON: /);
    // Never synced before, so there is nothing to keep; snowdata publishes alone.
    expect(Object.keys(run.manifest.sources)).toEqual(['snowdata']);
  });

  it('retries a response cut off mid-body and then publishes', async () => {
    await serve();
    upstream!.inject({ path: STNET_PATH, query: { 'stn-page': '2' }, times: 1, fault: { kind: 'drop' } });
    const run = await sync(['snowdata']);
    expect(run.exitCode).toBe(0);
    expect(run.manifest.sources.snowdata!.locales['en-CH']!.stations!.count).toBe(base.snowdata.stations.length);
    expect(run.stderr).toMatch(/snowdata stations: attempt 1 of 3 failed \(UND_ERR_/);
  });

  it('leaves out a record with missing fields and publishes the rest', async () => {
    await serve((data) => {
      data.tours.de = data.tours.de.map((t, i) => (i === 70 ? { ...(t as object), name: undefined } : t));
    });
    const run = await sync(['tours']);
    expect(run.exitCode).toBe(0);
    expect(run.manifest.sources.tours!.locales['de-CH']!.tours!.count).toBe(599);
    expect(run.manifest.sources.tours!.locales['en-CH']!.tours!.count).toBe(600);
    expect(run.stdout).toContain('tours: records failing validation left out: de-CH tours 1');
  });

  it('leaves out a record past the limits every record keeps within, so that the server loads what it publishes', async () => {
    await serve((data) => {
      // Far past the teaser cap as well: the record limit comes first and names the field.
      data.tours.de = data.tours.de.map((t, i) => (i === 5 ? { ...(t as object), abstract: 'x'.repeat(RECORD_LIMITS.maxStringChars + 1) } : t));
      data.tours.en = data.tours.en.map((t, i) => (i === 9 ? { ...(t as object), classification: [{ name: 'landscape', values: Array.from({ length: RECORD_LIMITS.maxListItems + 1 }, (_, k) => ({ name: `view${k}` })) }] } : t));
    });
    const run = await sync(['tours'], { dryRun: true });
    expect(run.stdout).toContain('de-CH tours rejected: record-limits 1');
    expect(run.stdout).toContain('en-CH tours rejected: record-limits 1');
    const published = await sync(['tours']);
    expect(published.exitCode).toBe(0);
    expect(published.manifest.sources.tours!.locales['de-CH']!.tours!.count).toBe(599);
    expect(published.manifest.sources.tours!.locales['en-CH']!.tours!.count).toBe(599);
    expect(published.stdout).toContain('tours: records failing validation left out: de-CH tours 1, en-CH tours 1');
    const snapshot = await loadSnapshot(dataDir, schema);
    expect(snapshot.locales['de-CH'].tours).toHaveLength(599);
  });

  it('refuses a source with more than 2 % of its records failing validation, unless forced', async () => {
    await serve((data) => {
      data.tours.fr = data.tours.fr.map((t, i) => (i % 40 === 0 ? { ...(t as object), identifier: null } : t));
    });
    const refused = await sync(['tours', 'snowdata']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'sync: 1 of 2 sources not published: tours refused: refused by the publish gate: tours fr-CH tours: too-many-rejected: 15 of 600 records rejected (2.5%, at most 2% allowed; normalise 15); --force would publish the 585 records kept, without the 15 rejected',
    );
    expect(refused.manifest.sources.tours).toBeUndefined();
    const forced = await sync(['tours'], { force: true });
    expect(forced.exitCode).toBe(0);
    expect(forced.manifest.sources.tours!.locales['fr-CH']!.tours!.count).toBe(585);
    expect(forced.stdout).toContain('tours: forced: tours fr-CH tours: too-many-rejected: 15 of 600 records rejected');
  });

  it('merges a record that appears on two pages', async () => {
    await serve((data) => {
      const moved = data.tours.en[10]!;
      data.tours.en = [...data.tours.en.slice(0, 60), moved, ...data.tours.en.slice(60)];
    });
    const run = await sync(['tours'], { locales: ['en-CH'] });
    expect(run.exitCode).toBe(0);
    expect(requested('/myswitzerland/v1/tours', 'page', { lang: 'en' })).toEqual(range(13));
    const tours = await published<{ id: string }>(run.manifest, 'tours', 'en-CH', 'tours');
    expect(tours).toHaveLength(600);
    expect(new Set(tours.map((t) => t.id)).size).toBe(600);
  });

  it('refuses a source that shrank by more than half, prints why, and publishes it with --force', async () => {
    const data = base;
    await serve();
    await sync(['tours'], { locales: ['de-CH'], now: new Date('2026-11-21T04:00:00Z') });
    await upstream!.close();
    await serve((d) => {
      d.tours.de = data.tours.de.slice(0, 250);
    });
    const refused = await sync(['tours'], { locales: ['de-CH'], now: new Date('2026-11-22T04:00:00Z') });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'tours refused (last good data kept): refused by the publish gate: tours de-CH tours: shrink: 250 records, down from 600 (41.7% kept, at least 50% needed); --force would replace 600 records with 250',
    );
    // The row shows what is served: the 600 kept.
    expect(refused.stdout).toMatch(/\ntours\s+refused, kept last good\s+600\s+0\s+5\s+0\s/);
    expect(refused.manifest.sources.tours).toMatchObject({ stale: true, lastSync: '2026-11-21T04:00:00.000Z' });
    expect(refused.manifest.sources.tours!.locales['de-CH']!.tours!.count).toBe(600);

    const forced = await sync(['tours'], { locales: ['de-CH'], force: true, now: new Date('2026-11-23T04:00:00Z') });
    expect(forced.exitCode).toBe(0);
    expect(forced.manifest.sources.tours).toMatchObject({ stale: false, lastSync: '2026-11-23T04:00:00.000Z' });
    expect(forced.manifest.sources.tours!.locales['de-CH']!.tours!.count).toBe(250);
    expect(forced.stdout).toMatch(/\ntours\s+published \(forced\)\s+250\s+−350\s/);
  });

  it('on a dry run prints the gate report, writes nothing, and exits 1 when the gate would refuse', async () => {
    const data = base;
    await serve();
    await sync(['tours'], { locales: ['de-CH'], now: new Date('2026-11-21T04:00:00Z') });
    const files = await fs.readdir(dataDir, { recursive: true });
    const manifestBefore = await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8');
    await upstream!.close();
    await serve((d) => {
      d.tours.de = data.tours.de.slice(0, 250);
    });
    const dry = await sync(['tours'], { locales: ['de-CH'], dryRun: true, now: new Date('2026-11-22T04:00:00Z') });
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toContain('tours: REFUSED, last good data stays (stale)\n');
    expect(dry.stdout).toMatch(/\n  de-CH   tours\s+600\s+250\s+250\s+250\s+0\s+0\n/);
    expect(dry.stdout).toContain('  refused: tours de-CH tours: shrink: 250 records, down from 600');
    expect(dry.stdout).toContain(`dry run: nothing published; ${path.join(dataDir, 'manifest.json')} stays at 2026-11-21T04-00-00Z\n`);
    expect(dry.stderr).toMatch(/\nsync: 1 of 1 sources would not be published: tours refused \(would keep its last good data\): refused by the publish gate: tours de-CH tours: shrink: /);
    expect(await fs.readdir(dataDir, { recursive: true })).toEqual(files);
    expect(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')).toBe(manifestBefore);
  });

  it('stops before any request when a key is missing', async () => {
    await serve();
    const env = { ...upstream!.env, STNET_API_KEY: '', MYSWITZERLAND_API_KEY: undefined };
    await expect(sync(['snowdata', 'tours', 'attractions'], { env })).rejects.toThrow(
      'STNET_API_KEY is not set (needed for snowdata); MYSWITZERLAND_API_KEY is not set (needed for tours, attractions)',
    );
    expect(upstream!.requests).toEqual([]);
  });

  it('never prints a key, even when the upstream echoes it', async () => {
    await serve();
    upstream!.inject({ path: STNET_PATH, fault: { kind: 'status', status: 403 } });
    const env = { ...upstream!.env, STNET_API_KEY: 'wrong-key-123' };
    const run = await sync(['snowdata'], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr + run.stdout).not.toContain('wrong-key-123');
    expect(run.stderr).toContain('403 Forbidden');
  });

  it('fails snowdata on a refused STnet ticket without printing the token or the ticket', async () => {
    await serve();
    const run = await sync(['snowdata'], { env: { ...upstream!.env, STNET_API_KEY: 'wrong-key-123' } });
    expect(run.exitCode).toBe(1);
    const sent = new URLSearchParams(upstream!.requests[0]!.query);
    expect(run.stderr).toContain('401 Unauthorized');
    expect(run.stderr).toContain('stn-token=REDACTED&stn-ticket=REDACTED');
    for (const secret of ['wrong-key-123', sent.get('stn-token')!, sent.get('stn-ticket')!]) expect(run.stderr + run.stdout).not.toContain(secret);
  });

  it('draws one updating line per source on a terminal', async () => {
    await serve();
    const run = await sync(['tours', 'snowdata'], { tty: true, locales: ['de-CH'] });
    expect(run.exitCode).toBe(0);
    // Redraws move the cursor up over the two lines and clear each before writing it.
    expect(run.stderr).toContain('\x1b[2A');
    const last = run.stderr.split('\x1b[2A').at(-1)!;
    expect(last).toMatch(/^\x1b\[2Ktours {5}fetched  de-CH 12\/12  geodata 600\/600 · 600 items\n\x1b\[2Ksnowdata {2}fetched  stations 2\/2 · 60 items\n/);
  });
});

describe('main', () => {
  function io() {
    const stdout = sink();
    const stderr = sink();
    return { out: stdout, err: stderr, streams: { stdout: stdout.stream as unknown as NodeJS.WriteStream, stderr: stderr.stream as unknown as NodeJS.WriteStream } };
  }

  it('exits 0 after publishing every requested source', async () => {
    await serve();
    const { err, streams } = io();
    expect(await main(['snowdata', '--data-dir', dataDir, '--locales', 'it-CH'], upstream!.env, streams)).toBe(0);
    expect(err.text()).toContain('snowdata stations: page 1 of 2, 50 items');
    const m = (await readManifest(dataDir))!;
    expect(Object.keys(m.sources.snowdata!.locales)).toEqual(['it-CH']);
  });

  it('exits 1 with a one-line summary on stderr when a source fails', async () => {
    await serve();
    upstream!.inject({ path: STNET_PATH, fault: { kind: 'status', status: 404 } });
    const { err, streams } = io();
    expect(await main(['snowdata', '--data-dir', dataDir], upstream!.env, streams)).toBe(1);
    const lines = err.text().trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      /^sync: 1 of 1 sources not published: snowdata failed: \[GET\] ".*\/stnet\/api\/services\/wispostations\?stn-username=loopback-stnet-user&stn-token=REDACTED&stn-ticket=REDACTED&stn-output=json&stn-size=50&stn-page=1&stn-stationType=full": 404 Not Found: \{"error":"injected 404"\}$/,
    );
  });

  it("prints a failed source's error once, in the closing line", async () => {
    await serve();
    upstream!.inject({ path: STNET_PATH, fault: { kind: 'status', status: 404 } });
    const { out, err, streams } = io();
    expect(await main(['snowdata', '--data-dir', dataDir], upstream!.env, streams)).toBe(1);
    expect((out.text() + err.text()).split('injected 404')).toHaveLength(2);
    expect(err.text()).toMatch(/^snowdata: failed \(0 items in 0 pages\)$/m);
  });

  it('suggests syncing only the sources whose keys are set when some are missing', async () => {
    await serve();
    const { err, streams } = io();
    const env = { ...upstream!.env, SWISSACTIVITIES_API_KEY: '', STNET_API_KEY: '' };
    expect(await main(['--data-dir', dataDir], env, streams, 'npm run sync --')).toBe(2);
    expect(err.text()).toBe(
      'sync: SWISSACTIVITIES_API_KEY is not set (needed for activities); STNET_API_KEY is not set (needed for snowdata)\n' +
        'sync: to sync only the sources whose keys are set: npm run sync -- tours attractions --data-dir ' + dataDir + '\n',
    );
    expect(upstream!.requests).toEqual([]);
  });

  it('exits 2 naming a missing key, before any request', async () => {
    await serve();
    const { err, streams } = io();
    expect(await main(['activities', '--data-dir', dataDir], { ...upstream!.env, SWISSACTIVITIES_API_KEY: '' }, streams)).toBe(2);
    expect(err.text()).toBe('sync: SWISSACTIVITIES_API_KEY is not set (needed for activities)\n');
    expect(upstream!.requests).toEqual([]);
  });

  it('exits 2 with the usage on a bad argument', async () => {
    const { err, streams } = io();
    expect(await main(['weather'], {}, streams, 'npm run sync --')).toBe(2);
    expect(err.text()).toMatch(/^sync: unknown source "weather" \(expected activities, snowdata, tours, attractions\)\nusage: npm run sync -- /);
  });

  it('answers an unknown option in its own words, naming every option', async () => {
    const { err, streams } = io();
    expect(await main(['tours', '--bogus'], {}, streams, 'npm run sync --')).toBe(2);
    expect(err.text().split('\n')[0]).toBe('sync: unknown option --bogus; the options are --data-dir DIR, --locales LIST, --force, --dry-run, --keep N, --changes N, --probe, --rollback, --keygen, -h/--help');
    expect(err.text()).not.toMatch(/positional|'/);
    expect(err.text().split('\n')[1]).toMatch(/^usage: npm run sync -- /);
  });

  it('names the value an option needs, and an option that takes none', async () => {
    const needs = io();
    expect(await main(['--keep'], {}, needs.streams, 'npm run sync --')).toBe(2);
    expect(needs.err.text().split('\n')[0]).toBe('sync: --keep needs a value: --keep N');
    const none = io();
    expect(await main(['--force=yes'], {}, none.streams, 'npm run sync --')).toBe(2);
    expect(none.err.text().split('\n')[0]).toMatch(/^sync: --force takes no value; the options are --data-dir DIR, /);
  });

  it('rolls the manifest back to the previous version', async () => {
    await serve();
    await sync(['snowdata'], { now: new Date('2026-11-21T04:00:00Z') });
    await sync(['snowdata'], { now: new Date('2026-11-22T04:00:00Z') });
    const { out, streams } = io();
    expect(await main(['--rollback', '--data-dir', dataDir], {}, streams)).toBe(0);
    expect(out.text()).toBe(`rolled back ${path.join(dataDir, 'manifest.json')} from 2026-11-22T04-00-00Z to 2026-11-21T04-00-00Z\n`);
    expect((await loadSnapshot(dataDir, schema)).version).toBe('2026-11-21T04-00-00Z');
  });

  it('prints a key pair with --keygen, signs each manifest it writes with it, a rollback\'s too, and drops the signature when unsigned', async () => {
    const { out, streams } = io();
    expect(await main(['--keygen'], {}, streams)).toBe(0);
    const lines = out.text().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^SNAPSHOT_SIGNING_KEY=[A-Za-z0-9+/]+=*$/), expect.stringMatching(/^SNAPSHOT_PUBLIC_KEY=[A-Za-z0-9+/]+=*$/), '']);
    const env = Object.fromEntries(lines.slice(0, 2).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const publicKey = createPublicKey({ key: Buffer.from(env.SNAPSHOT_PUBLIC_KEY!, 'base64'), format: 'der', type: 'spki' });
    const verifies = async () => {
      const manifest = await fs.readFile(path.join(dataDir, 'manifest.json'));
      const signature = Buffer.from((await fs.readFile(path.join(dataDir, MANIFEST_SIGNATURE_FILE), 'utf8')).trim(), 'base64');
      return verify(null, manifest, publicKey, signature);
    };
    await serve();
    await sync(['snowdata'], { now: new Date('2026-11-21T04:00:00Z'), env: { ...upstream!.env, SNAPSHOT_SIGNING_KEY: env.SNAPSHOT_SIGNING_KEY! } });
    expect(await verifies()).toBe(true);
    await sync(['snowdata'], { now: new Date('2026-11-22T04:00:00Z'), env: { ...upstream!.env, SNAPSHOT_SIGNING_KEY: env.SNAPSHOT_SIGNING_KEY! } });
    expect(await main(['--rollback', '--data-dir', dataDir], { SNAPSHOT_SIGNING_KEY: env.SNAPSHOT_SIGNING_KEY! }, io().streams)).toBe(0);
    expect(await verifies()).toBe(true);
    // A manifest written without the key has no signature: the old one would sign another manifest.
    await sync(['snowdata'], { now: new Date('2026-11-23T04:00:00Z') });
    await expect(fs.access(path.join(dataDir, MANIFEST_SIGNATURE_FILE))).rejects.toThrow('ENOENT');
  });

  it('stops before any request when SNAPSHOT_SIGNING_KEY is not an Ed25519 private key', async () => {
    const upstream = await serve();
    const { err, streams } = io();
    expect(await main(['snowdata', '--data-dir', dataDir], { ...upstream.env, SNAPSHOT_SIGNING_KEY: "bm90IGEga2V5" }, streams)).toBe(2);
    expect(err.text()).toMatch(/^sync: SNAPSHOT_SIGNING_KEY: not a private key; expected the base64 PKCS #8 key that `--keygen` prints\n/);
    expect(upstream.requests).toEqual([]);
  });
});

describe('parseCommand', () => {
  it('syncs every source in every locale into DATA_DIR by default', () => {
    expect(parseCommand([], { DATA_DIR: '/srv/data' })).toEqual({
      kind: 'sync',
      sources: ['activities', 'snowdata', 'tours', 'attractions'],
      dataDir: '/srv/data',
      locales: ['de-CH', 'en-CH', 'fr-CH', 'it-CH'],
      force: false,
      keep: 5,
      changeVersions: 5,
      dryRun: false,
    });
  });

  it('reads sources, locales, force, keep and changes', () => {
    expect(parseCommand(['tours', 'snowdata', '--data-dir', 'out', '--locales', 'fr-CH,de-CH', '--force', '--keep', '3', '--changes', '2'], {})).toEqual({
      kind: 'sync',
      sources: ['snowdata', 'tours'],
      dataDir: 'out',
      locales: ['de-CH', 'fr-CH'],
      force: true,
      keep: 3,
      changeVersions: 2,
      dryRun: false,
    });
  });

  it('reads --dry-run', () => {
    expect(parseCommand(['tours', '--dry-run'], {})).toMatchObject({ kind: 'sync', sources: ['tours'], force: false, dryRun: true });
  });

  it('reads --rollback', () => {
    expect(parseCommand(['--rollback'], {})).toEqual({ kind: 'rollback', dataDir: 'data' });
  });

  it('reads --probe with the sources named, in their usual order', () => {
    expect(parseCommand(['--probe', 'attractions', 'tours'], {})).toEqual({ kind: 'probe', sources: ['tours', 'attractions'] });
    expect(parseCommand(['--probe'], {})).toEqual({ kind: 'probe', sources: [] });
  });

  it.each([
    [['--locales', 'de'], '--locales: unknown locale "de" (expected de-CH, en-CH, fr-CH, it-CH)'],
    [['--keep', '0'], '--keep must be an integer of at least 1, got "0"'],
    [['--keep', 'two'], '--keep must be an integer of at least 1, got "two"'],
    [['--rollback', 'tours'], '--rollback takes no sources, --locales, --force, --keep, --changes, --probe or --dry-run'],
    [['--changes', '1.5'], '--changes must be an integer of at least 0, got "1.5"'],
    [['--changes', 'all'], '--changes must be an integer of at least 0, got "all"'],
    [['--probe', '--changes', '2'], '--probe takes only sources (it publishes nothing)'],
    [['--dry-run', '--force'], '--dry-run publishes nothing, so --force has nothing to force; drop one of them'],
    [['--probe', '--dry-run'], '--probe takes only sources (it publishes nothing)'],
    [['--probe', '--keep', '2'], '--probe takes only sources (it publishes nothing)'],
    [['--verbose'], 'unknown option --verbose; the options are --data-dir DIR'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv, {})).toThrow(message);
  });
});
