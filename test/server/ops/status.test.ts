import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../../server/main.ts';
import { renderStatusPage, type StatusReport } from '../../../server/ops/status.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';
import { IN_PROCESS, tempStateDir } from '../../helpers/api.ts';

let snapshot: TinySnapshot;
let running: RunningServer;
const lastSync = new Date(Date.now() - 3_600_000).toISOString();
const REFUSAL = 'refused by the gate: de-CH tours: completeness: received 50 of 201 declared (at least 95% needed); --force publishes the 50 <records>';

beforeAll(async () => {
  snapshot = await createTinySnapshot({ count: 4, lastSync, staleSources: ['tours'], staleReasons: { tours: REFUSAL }, omitSources: ['attractions'] });
  running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() }), createLogger('silent'));
});

afterAll(async () => {
  await running.close();
  await snapshot.remove();
});

async function status(): Promise<StatusReport> {
  return (await (await fetch(`${running.url}/api/status`)).json()) as StatusReport;
}

describe('GET /api/status', () => {
  it('reports the snapshot, and per source its dates, staleness and counts per locale', async () => {
    const report = await status();
    expect(report.snapshot).toEqual({ version: '2026-11-21T04-00-00Z', createdAt: lastSync, fixture: null, stale: true });
    expect(report.ready).toBe(true);
    const expiresAt = new Date(Date.parse(lastSync) + 86_400_000).toISOString();
    const counts = (areas: Record<string, number>) => ({ 'de-CH': areas, 'en-CH': areas, 'fr-CH': areas, 'it-CH': areas });
    expect(report.sources).toEqual([
      {
        name: 'activities',
        label: 'Swiss Activities',
        lastSync,
        expiresAt,
        stale: false,
        staleReason: null,
        staleDetail: null,
        counts: counts({ activities: 4, locations: 4, types: 4 }),
      },
      { name: 'snowdata', label: 'Snowdata', lastSync, expiresAt, stale: false, staleReason: null, staleDetail: null, counts: counts({ stations: 4, routes: 8 }) },
      { name: 'tours', label: 'MySwitzerland tours', lastSync, expiresAt, stale: true, staleReason: 'last sync failed', staleDetail: REFUSAL, counts: counts({ tours: 4 }) },
      { name: 'attractions', label: 'attractions', lastSync: null, expiresAt: null, stale: true, staleReason: 'never synced', staleDetail: null, counts: counts({ attractions: 0 }) },
    ]);
  });

  it('reports uptime and where things are', async () => {
    const report = await status();
    expect(report.uptimeS).toBeGreaterThanOrEqual(0);
    expect(Date.parse(report.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(report.links).toEqual({
      playground: '/api/graphql',
      schema: '/api/schema',
      bookingDocs: '/v1/docs',
      sampleQueries: '/api/schema?format=queries',
      status: '/api/status',
      metrics: '/metrics',
      health: '/healthz',
      readiness: '/readyz',
    });
  });

  it('lists every Query field with its signature, description and sample queries that open in the playground', async () => {
    const report = await status();
    expect(report.operations.map((operation) => operation.name)).toEqual([
      'activities',
      'activity',
      'locations',
      'types',
      'snowdataStations',
      'snowdataStation',
      'snowdataRoutes',
      'tours',
      'tour',
      'attractions',
      'attraction',
      'search',
      'changes',
    ]);
    const activity = report.operations.find((operation) => operation.name === 'activity')!;
    expect(activity.signature).toBe('activity(id: String!, locale: String = "de-CH"): Activity');
    expect(activity.description).not.toBe('');
    expect(activity.samples).toEqual([{ name: 'Activity', description: 'One activity by id.', playground: expect.stringMatching(/^\/api\/graphql#query=/) }]);
    const link = new URLSearchParams(activity.samples[0]!.playground.split('#')[1]);
    expect(link.get('query')).toMatch(/^query Activity\(\$id: String!\)/);
    expect(JSON.parse(link.get('variables')!)).toEqual({ id: 'act-0' });
    for (const operation of report.operations) expect(operation.samples.length, operation.name).toBeGreaterThan(0);
  });

  it('marks every source stale once now is past its expiresAt, and answers are then revalidated every time', async () => {
    const old = await createTinySnapshot({ lastSync: new Date(Date.now() - 2 * 86_400_000).toISOString() });
    const server = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: old.dir, STATE_DIR: tempStateDir() }), createLogger('silent'));
    try {
      const report = (await (await fetch(`${server.url}/api/status`)).json()) as StatusReport;
      expect(report.sources.map((source) => [source.name, source.stale, source.staleReason])).toEqual([
        ['activities', true, 'expired'],
        ['snowdata', true, 'expired'],
        ['tours', true, 'expired'],
        ['attractions', true, 'expired'],
      ]);
      expect(report.snapshot).toMatchObject({ fixture: null, stale: true });
      expect(await (await fetch(`${server.url}/`)).text()).toContain('<span class="stale">some data is stale</span>');
      expect((await fetch(`${server.url}/api/graphql?query=%7Btypes%7Bid%7D%7D`)).headers.get('cache-control')).toBe('public, max-age=0, stale-while-revalidate=60');
    } finally {
      await server.close();
      await old.remove();
    }
  });

  it('calls a fixture snapshot one, with its generation date, and neither warns that it is stale nor shortens caching', async () => {
    // Dated two days back, as the committed fixture snapshot soon is: synced data this old has expired.
    const generatedAt = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const fixture = await createTinySnapshot({ lastSync: generatedAt, fixture: { seed: 2026, scale: 1 } });
    const server = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: fixture.dir, STATE_DIR: tempStateDir() }), createLogger('silent'));
    try {
      const report = (await (await fetch(`${server.url}/api/status`)).json()) as StatusReport;
      expect(report.snapshot).toEqual({ version: '2026-11-21T04-00-00Z', createdAt: generatedAt, fixture: { seed: 2026, scale: 1 }, stale: false });
      // No expiry to show, as the API's meta.expiresAt shows none for fixture data.
      expect(report.sources.map((source) => [source.name, source.lastSync, source.expiresAt, source.stale, source.staleReason])).toEqual([
        ['activities', generatedAt, null, false, null],
        ['snowdata', generatedAt, null, false, null],
        ['tours', generatedAt, null, false, null],
        ['attractions', generatedAt, null, false, null],
      ]);
      const html = await (await fetch(`${server.url}/`)).text();
      expect(html).not.toContain('expires: 20');
      expect(html).toContain(
        `<span id="snapshot-origin">Fixture snapshot</span> <code id="snapshot-version">2026-11-21T04-00-00Z</code> (generated ${generatedAt} by <code>npm run fixtures</code>, seed 2026, scale 1)`,
      );
      expect(html).not.toContain('class="stale"');
      expect(html).toContain('<span class="fresh">fixture data, does not expire</span>');
      expect((await fetch(`${server.url}/api/graphql?query=%7Btypes%7Bid%7D%7D`)).headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
    } finally {
      await server.close();
      await fixture.remove();
    }
  });

  it('is never cached', async () => {
    const response = await fetch(`${running.url}/api/status`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('GET /', () => {
  it('renders the status as an HTML page without scripts, under a strict CSP', async () => {
    const response = await fetch(`${running.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'/);
    const html = await response.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<code id="snapshot-version">2026-11-21T04-00-00Z</code>');
    expect(html).toContain('<td class="count" data-source="snowdata" data-locale="fr-CH" data-area="routes">8</td>');
    expect(html).toContain(
      '<span class="stale">stale: last sync failed</span> <span class="muted">(refused by the gate: de-CH tours: completeness: received 50 of 201 declared (at least 95% needed); --force publishes the 50 &#60;records&#62;)</span>',
    );
    expect(html).toContain('<span class="stale">stale: never synced</span>');
    expect(html).toMatch(/<li data-operation="tours"><code>tours\(q: String, routeType: String/);
    expect(html).toMatch(/Try it: <a href="\/api\/graphql#query=[^"]+" title="[^"]+">HikesNearInterlaken<\/a>/);
  });

  it('links the playground, the schema, the sample queries, the booking docs and the map', async () => {
    const html = await (await fetch(`${running.url}/`)).text();
    const links = [...html.match(/<nav>[\s\S]*<\/nav>/)![0].matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((match) => [match[1], match[2]]);
    expect(links).toEqual([
      ['/api/graphql', 'Playground'],
      ['/api/schema', 'Schema (SDL)'],
      ['/api/schema?format=queries', 'Sample queries (JSON)'],
      ['/v1/docs', 'Booking API docs'],
      ['/api/status', 'Status (JSON)'],
      ['/metrics', 'Metrics'],
      ['/map', 'Map'],
    ]);
  });

  it("renders the operations' Markdown descriptions: code spans as code, no backticks left", async () => {
    const html = await (await fetch(`${running.url}/`)).text();
    const operations = html.slice(html.indexOf('<h2>Operations</h2>'));
    expect(operations).toContain('Order: <code>summary.rankingScoreValue</code> descending');
    expect(operations).not.toContain('`');
  });

  it('escapes what it shows', async () => {
    const html = await (await fetch(`${running.url}/`)).text();
    // Signatures hold quotes (default values); they appear escaped, never as markup.
    expect(html).toContain('locale: String = &#34;de-CH&#34;');
  });

  it('renders a description that holds HTML, a script link or markup in code as text, never as markup', async () => {
    const report = await status();
    const [first, ...others] = report.operations;
    const description = '<img src=x onerror=alert(1)> [click](javascript:alert(1)) `<b>` **bold**';
    const html = renderStatusPage({ ...report, operations: [{ ...first!, description }, ...others] });
    expect(html).toContain('<p>&lt;img src=x onerror=alert(1)&gt; [click](javascript:alert(1)) <code>&lt;b&gt;</code> <strong>bold</strong></p>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript:');
  });

  // Last in this file: draining cannot be undone.
  it('says when the service is draining', async () => {
    running.service.drain();
    const report = await status();
    expect(report.ready).toBe(false);
    expect(await (await fetch(`${running.url}/`)).text()).toContain('<span class="stale">draining</span>');
  });
});
