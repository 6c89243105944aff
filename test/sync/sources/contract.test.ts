import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, FetchError, type HttpClient } from '../../../sync/client.ts';
import { readSyncConfig } from '../../../sync/config.ts';
import { generateUpstreamData, STNET_PATH, startUpstream, type Upstream, type UpstreamData } from '../../../sync/fixtures/upstream.ts';
import type { AreaName, Locale, SourceName } from '../../../sync/format.ts';
import { type FetchContext, type PageProgress, type SourceData, syncDay } from '../../../sync/source.ts';
import { SOURCES } from '../../../sync/sources/index.ts';

/** The path below the loopback's base URL that each source pages through. */
const PAGED_PATH: Record<SourceName, string> = {
  activities: '/swissactivities/content/graphql',
  snowdata: STNET_PATH,
  tours: '/myswitzerland/v1/tours',
  attractions: '/myswitzerland/v1/attractions',
};

/** What the loopback holds of a source's first area, and what it declares of it. */
function upstreamCount(data: UpstreamData, source: SourceName): { held: number; declared: number } {
  switch (source) {
    case 'activities':
      return { held: data.activities.content.activities.length, declared: data.activities.content.activities.length };
    case 'snowdata':
      return { held: data.snowdata.stations.length, declared: data.snowdata.stations.length };
    case 'tours':
      return { held: data.tours.de.length, declared: data.tours.de.length };
    case 'attractions':
      return { held: data.attractions.de.length, declared: data.attractions.de.length };
  }
}

const LOCALES: readonly Locale[] = ['de-CH'];

describe.each(SOURCES.map((source) => [source.name, source] as const))('the source contract: %s', (name, source) => {
  let upstream: Upstream;
  let data: UpstreamData;
  let http: HttpClient;

  beforeAll(() => {
    // Large enough for every source to answer in more than one page.
    data = generateUpstreamData(2026, 0.5);
  });
  // A fresh upstream per test, so a fault injected by one test never reaches the next.
  beforeEach(async () => {
    upstream = await startUpstream(data);
    // Quick retries: the loopback answers at once, and the tests must not wait.
    http = createHttpClient({ maxAttempts: 2, minDelayMs: 1, maxDelayMs: 5 });
  });
  afterEach(async () => {
    await http.close();
    await upstream.close();
  });

  const fetchSource = (pages: PageProgress[] = []): Promise<SourceData> => {
    const config = readSyncConfig([name], upstream.env).sources[name];
    const context: FetchContext = { http, config, locales: LOCALES, syncDay: syncDay(new Date()), onPage: (_part, progress) => pages.push(progress), onRetry: () => {}, served: async () => null };
    return source.fetch(context);
  };

  it('pages to the end, and reports what the upstream declared against what arrived', async () => {
    const pages: PageProgress[] = [];
    const fetched = await fetchSource(pages);
    const batch = fetched.locales['de-CH']![source.areas[0] as AreaName]!;
    const { held, declared } = upstreamCount(data, name);
    expect(batch.received).toBe(held);
    expect(batch.declared).toBe(declared);
    expect(batch.records.length + batch.rejected.length).toBeGreaterThanOrEqual(held > 0 ? 1 : 0);
    expect(pages.length).toBeGreaterThan(1);
    expect(Object.keys(fetched.locales)).toEqual(LOCALES);
    for (const area of source.areas) expect(fetched.locales['de-CH']![area]).toBeDefined();
  });

  it.each([401, 403])('fails with the upstream status on a %i, without retrying', async (status) => {
    upstream.inject({ path: PAGED_PATH[name], fault: { kind: 'status', status }, times: 1 });
    const before = upstream.requests.length;
    const error = await fetchSource().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).status).toBe(status);
    const faulted = upstream.requests.slice(before).filter((r) => r.fault === 'status');
    expect(faulted).toHaveLength(1);
  });

  it('waits out a 429 with Retry-After and goes on', async () => {
    upstream.inject({ path: PAGED_PATH[name], fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } }, times: 1 });
    const fetched = await fetchSource();
    expect(fetched.locales['de-CH']![source.areas[0] as AreaName]!.received).toBe(upstreamCount(data, name).held);
  });

  it('fails with the status after the last attempt when the upstream keeps answering 500', async () => {
    upstream.inject({ path: PAGED_PATH[name], fault: { kind: 'status', status: 500 } });
    const error = await fetchSource().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).status).toBe(500);
  });

  it('probes: reachable, key accepted, records on the first page', async () => {
    const config = readSyncConfig([name], upstream.env).sources[name];
    const endpoints = await source.probe({ http, config });
    expect(endpoints.length).toBeGreaterThan(0);
    for (const endpoint of endpoints) {
      expect(endpoint).toMatchObject({ reachable: true, keyAccepted: true });
      expect(endpoint.records).toBeGreaterThan(0);
      expect(endpoint.error).toBeUndefined();
    }
  });

  it('probes a refused key as reachable but not accepted', async () => {
    upstream.inject({ path: PAGED_PATH[name], fault: { kind: 'status', status: 401 }, times: 1 });
    const config = readSyncConfig([name], upstream.env).sources[name];
    const [first] = await source.probe({ http, config });
    expect(first).toMatchObject({ reachable: true, keyAccepted: false });
  });
});
