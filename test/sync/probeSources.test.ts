import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateUpstreamData, startUpstream, type Upstream, type UpstreamData } from '../../sync/fixtures/upstream.ts';
import { main } from '../../sync/main.ts';
import { configuredSources } from '../../sync/probeSources.ts';

let data: UpstreamData;
let upstream: Upstream | undefined;

beforeAll(() => {
  data = generateUpstreamData(2026, 0.1);
});
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

function sink(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

async function probe(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const out = sink();
  const err = sink();
  const code = await main(['--probe', ...argv], env, { stdout: out.stream, stderr: err.stream }, 'npm run sync --');
  return { code, out: out.text(), err: err.text() };
}

/** The table row of one source, cells split on runs of spaces. */
function row(out: string, source: string): string[] {
  return out.split('\n').find((line) => line.startsWith(`${source} `))!.split(/ {2,}/);
}

describe('sync --probe', () => {
  it('calls each MySwitzerland list once and reports it reachable, its key accepted and its first page', async () => {
    upstream = await startUpstream(data);
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'probe-'));
    const { code, out } = await probe(['tours', 'attractions'], { ...upstream.env, DATA_DIR: dataDir });
    expect(code).toBe(0);
    expect(row(out, 'tours').slice(0, 5)).toEqual(['tours', 'GET /tours', 'yes', 'yes', '50']);
    expect(row(out, 'attractions').slice(0, 5)).toEqual(['attractions', 'GET /attractions', 'yes', 'yes', '50']);
    expect(upstream.requests.map((r) => `${r.path} page ${r.query.page} ${r.query.lang}`).sort()).toEqual([
      '/myswitzerland/v1/attractions page 0 en',
      '/myswitzerland/v1/tours page 0 en',
    ]);
    // The loopback's tours carry JSON-LD keys and titles the adapter does not read, and send
    // specs and provider as an object or a list, which the adapter reads either way.
    const notRead = out.split('\n').find((line) => line.startsWith('tours GET /tours: fields not read: '))!;
    expect(notRead).toContain('@type');
    expect(notRead).toContain('classification[].values[].title');
    expect(notRead).not.toMatch(/(specs|provider|address)\[\]/);
    expect(await fs.readdir(dataDir)).toEqual([]);
    await fs.rm(dataDir, { recursive: true });
  });

  it('exits 1 when the key is refused, and says so', async () => {
    upstream = await startUpstream(data);
    const { code, out } = await probe(['tours'], { ...upstream.env, MYSWITZERLAND_API_KEY: 'wrong' });
    expect(code).toBe(1);
    expect(row(out, 'tours').slice(0, 5)).toEqual(['tours', 'GET /tours', 'yes', 'no', '-']);
    expect(out).toMatch(/tours GET \/tours: error: \[GET\] ".*": 401 Unauthorized/);
    expect(out).toContain('tours GET /tours: the key was refused: check MYSWITZERLAND_API_KEY\n');
    expect(upstream.requests).toHaveLength(1);
  });

  it('exits 1 for an upstream that does not answer, without retrying', async () => {
    upstream = await startUpstream(data);
    const closed = upstream.env.MYSWITZERLAND_BASE_URL!;
    await upstream.close();
    upstream = undefined;
    const { code, out } = await probe(['attractions'], { MYSWITZERLAND_BASE_URL: closed, MYSWITZERLAND_API_KEY: 'k' });
    expect(code).toBe(1);
    expect(row(out, 'attractions')).toEqual(['attractions', 'GET /attractions', 'no', '-', '-', '-', '-']);
    expect(out).not.toContain('the key was refused');
    expect(out).toMatch(/attractions GET \/attractions: error: .*ECONNREFUSED/);
  });

  it('reports fields the adapter reads that a real answer lacks', async () => {
    upstream = await startUpstream({ ...data, tours: { ...data.tours, en: data.tours.en.map((t) => ({ ...(t as object), itinerary: undefined })) } });
    const { code, out } = await probe(['tours'], upstream.env);
    expect(code).toBe(0);
    expect(out).toContain('tours GET /tours: fields read but absent: itinerary, itinerary[].name\n');
  });

  it('probes every source with a key against upstreams in the real shapes, publishing nothing', async () => {
    upstream = await startUpstream(data);
    const { code, out } = await probe([], upstream.env);
    expect(code).toBe(0);
    for (const source of ['activities', 'snowdata', 'tours', 'attractions']) {
      expect(row(out, source).slice(0, 4), source).toEqual([source, expect.any(String), 'yes', 'yes']);
    }
    expect(upstream.requests.some((r) => r.path.includes('wispostations'))).toBe(true);
    expect(upstream.requests.some((r) => r.path.includes('/swissactivities/content/graphql'))).toBe(true);
  });

  it('probes the sources whose keys are set when none is named, and needs at least one', async () => {
    expect(configuredSources({ MYSWITZERLAND_API_KEY: 'k' })).toEqual(['tours', 'attractions']);
    expect(configuredSources({ STNET_USERNAME: 'u', STNET_API_KEY: 'k', SWISSACTIVITIES_API_KEY: ' ' })).toEqual(['snowdata']);
    const none = await probe([], {});
    expect(none.code).toBe(2);
    expect(none.err).toBe('sync: --probe: no source is configured; set at least one of SWISSACTIVITIES_API_KEY, STNET_USERNAME, STNET_API_KEY, MYSWITZERLAND_API_KEY\n');
  });

  it('refuses options that only a sync takes', async () => {
    const { code, err } = await probe(['--force'], {});
    expect(code).toBe(2);
    expect(err).toMatch(/^sync: --probe takes only sources \(it publishes nothing\)\nusage: npm run sync -- /);
  });
});
