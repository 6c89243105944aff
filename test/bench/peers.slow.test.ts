import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampleQuery } from '../../server/ops/sampleQueries.ts';
import { installPeers } from '../../bench/peers/installPeers.ts';
import { PEERS, startPeers, stopPeers, type RunningPeer } from '../../bench/peers/peers.ts';
import { SCENARIOS, type BenchRequest } from '../../bench/scenarios.ts';
import { DATA_DIR, startTestApi, type TestApi } from '../helpers/api.ts';

/** Of a scenario of thousands of unseen documents, every this many-th is compared. */
const UNSEEN_STRIDE = 400;

/**
 * `data` as compared: JSON.stringify of the parsed answer (the same values in the same key order,
 * whatever number formatting or whitespace each server writes), with the one field that measures
 * the request (`meta.responseTimeMs`) kept only as "a number".
 */
function canonical(data: unknown): string {
  return JSON.stringify(data, (key, value: unknown) => (key === 'responseTimeMs' && typeof value === 'number' ? 'a number' : value));
}

/**
 * Why the peers cannot run here, or null: they are installed as `npm run bench` installs them,
 * and only a failed install (offline, say) skips this file.
 */
const cannotInstall = ((): string | null => {
  try {
    installPeers();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
})();
if (cannotInstall !== null) console.warn(`test/bench/peers.test.ts skipped: ${cannotInstall}`);

let ours: TestApi;
let samples: SampleQuery[];

beforeAll(async () => {
  if (cannotInstall !== null) return;
  ours = await startTestApi();
  samples = (await (await fetch(`${ours.server.url}/api/schema?format=queries`)).json()) as SampleQuery[];
});

afterAll(async () => {
  await ours?.close();
});

/** Sends a benchmark request and gives the status and the parsed body. */
async function send(url: string, request: BenchRequest): Promise<{ status: number; body: { data?: unknown; errors?: unknown[] } }> {
  const response = await fetch(new URL(request.path, url), {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'POST' ? { body: request.body } : {}),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
}

/** The requests of a scenario that the test compares: all of them, or a spread of the unseen documents. */
function requestsOf(scenario: (typeof SCENARIOS)[number]): BenchRequest[] {
  const requests = scenario.requests(samples);
  return scenario.unseen ? requests.filter((_, i) => i % UNSEEN_STRIDE === 0) : requests;
}

describe.skipIf(cannotInstall !== null).each([false, true])('peers with RESPONSE_CACHE=%s', (responseCache) => {
  let peers: RunningPeer[] = [];

  beforeAll(async () => {
    peers = await startPeers(DATA_DIR, responseCache);
  }, 180_000);

  afterAll(async () => {
    await stopPeers(peers);
  });

  it('starts every peer', () => {
    expect(peers.map((p) => p.peer.name)).toEqual(PEERS.map((p) => p.name));
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))('answers %s with the same data as our server', async (_name, scenario) => {
    for (const request of requestsOf(scenario)) {
      const expected = await send(ours.server.url, request);
      expect(expected.status, `${request.name} from our server`).toBe(200);
      expect(expected.body.errors).toBeUndefined();
      for (const { peer, url } of peers) {
        // Twice: a cached configuration answers the second time from its cache.
        for (const attempt of ['first', 'second']) {
          const got = await send(url, peer.adapt(request));
          const what = `${peer.name}, ${request.name}, ${attempt} answer`;
          expect({ status: got.status, errors: got.body.errors }, what).toEqual({ status: 200, errors: undefined });
          expect(canonical(got.body.data), what).toBe(canonical(expected.body.data));
        }
      }
    }
  }, 120_000);
});
