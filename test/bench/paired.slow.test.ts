import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureCpuCost, runPaired } from '../../bench/paired.ts';
import type { BenchRequest } from '../../bench/scenarios.ts';

/** Two loopback servers standing in for the real server and its twin, counting what they answer. */
const answered = { real: 0, raw: 0 };
const servers: Server[] = [];
const urls: Record<'real' | 'raw', string> = { real: '', raw: '' };

beforeAll(async () => {
  for (const side of ['real', 'raw'] as const) {
    const server = createServer((_req, res) => {
      answered[side]++;
      res.end('{"data":{}}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    urls[side] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});

afterAll(() => {
  for (const server of servers) server.close();
});

const requests: BenchRequest[] = [{ name: 'Q', method: 'GET', path: '/', headers: {}, body: '' }];

/** A CPU clock that has advanced by `stepS` each time it is read after the first. */
function clock(stepS: number): () => Promise<number> {
  let now = 100;
  let first = true;
  return async () => {
    if (!first) now += stepS;
    first = false;
    return now;
  };
}

describe('measureCpuCost', () => {
  it('sends each side the requests at the fixed rate and divides the CPU time it used by its answers', async () => {
    answered.real = answered.raw = 0;
    const cost = await measureCpuCost({
      realUrl: urls.real,
      rawUrl: urls.raw,
      requests,
      connections: 10,
      ratePerS: 200,
      durationS: 1,
      realCpuS: clock(0.3),
      rawCpuS: clock(0.1),
    });
    expect(cost).not.toBeNull();
    // overallRate paces the load generator by the second: each connection sends its share at the
    // start of each second (autocannon's httpClient), so a 1 s run sends 200, or up to 400 when
    // the next second's timer fires before the run's end (seen: 265). Unpaced, it would be thousands.
    for (const side of ['real', 'raw'] as const) {
      expect(answered[side]).toBeGreaterThan(150);
      expect(answered[side]).toBeLessThanOrEqual(400);
    }
    // Divided by the answers the load generator received in time: the servers may have answered
    // a last request per connection besides (or none, when none was in flight at the end). The
    // figures are rounded to 0.1 µs.
    expect(cost!.realUs / (0.3e6 / answered.real)).toBeGreaterThan(0.999);
    expect(cost!.realUs / (0.3e6 / answered.real)).toBeLessThan(1.1);
    expect(cost!.rawUs / (0.1e6 / answered.raw)).toBeGreaterThan(0.999);
    expect(cost!.rawUs / (0.1e6 / answered.raw)).toBeLessThan(1.1);
    expect(cost).toMatchObject({ ratePerS: 200, durationS: 1 });
  });

  it('gives null when a side has no CPU clock to read', async () => {
    const cost = await measureCpuCost({
      realUrl: urls.real,
      rawUrl: urls.raw,
      requests,
      connections: 2,
      ratePerS: 50,
      durationS: 0.5,
      realCpuS: clock(0.1),
      rawCpuS: async () => null,
    });
    expect(cost).toBeNull();
  });
});

describe('runPaired', () => {
  const options = { realUrl: '', rawUrl: '', requests, connections: 4, rounds: 2, durationS: 0.4, warmupS: 0 };

  it('tells what an answer cost each server, by its clock, and the load generator, by this process', async () => {
    answered.real = answered.raw = 0;
    // Each side's clock is read before and after each of its rounds: the step is its CPU per round
    // (large, so that rounding the figures to 0.1 µs is lost in the comparisons below).
    const result = await runPaired({ ...options, realUrl: urls.real, rawUrl: urls.raw, realCpuS: clock(200), rawCpuS: clock(50) });
    expect(result.cpu).not.toBeNull();
    const { real, raw } = result.cpu!;
    // Divided by the answers received over both rounds; a server may have answered a last request
    // per connection besides.
    expect(real.serverUs / ((2 * 200e6) / result.real.ok)).toBeGreaterThan(0.999);
    expect(real.serverUs / ((2 * 200e6) / answered.real)).toBeLessThan(1.1);
    expect(raw.serverUs / ((2 * 50e6) / result.raw.ok)).toBeGreaterThan(0.999);
    expect(raw.serverUs / ((2 * 50e6) / answered.raw)).toBeLessThan(1.1);
    // autocannon runs in this process (here with the servers, so no more can be said than that it was read).
    for (const side of [real, raw]) expect(side.loadGeneratorUs).toBeGreaterThan(0);
  });

  it('leaves the CPU out without clocks, and gives null when a side cannot be read', async () => {
    const plain = await runPaired({ ...options, realUrl: urls.real, rawUrl: urls.raw, rounds: 1 });
    expect(plain).not.toHaveProperty('cpu');
    const unreadable = await runPaired({ ...options, realUrl: urls.real, rawUrl: urls.raw, rounds: 1, realCpuS: clock(0.1), rawCpuS: async () => null });
    expect(unreadable.cpu).toBeNull();
  });
});

describe('runPaired with peers', () => {
  it('measures each peer after the twin in every round, with its own requests, and keeps a left-out peer with its reason', async () => {
    let peerAnswered = 0;
    const peerPaths = new Set<string>();
    const peer = createServer((req, res) => {
      peerAnswered++;
      peerPaths.add(req.url ?? '');
      res.end('{"data":{}}');
    });
    peer.listen(0, '127.0.0.1');
    await once(peer, 'listening');
    try {
      const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
      const result = await runPaired({
        realUrl: urls.real,
        rawUrl: urls.raw,
        requests,
        connections: 2,
        rounds: 2,
        durationS: 0.5,
        warmupS: 0,
        peers: [
          { name: 'adapted', url: peerUrl, requests: [{ ...requests[0]!, path: '/adapted' }], error: null },
          { name: 'refused', url: 'http://127.0.0.1:1', requests, error: 'answered with errors' },
        ],
      });
      expect(peerAnswered).toBeGreaterThan(0);
      expect([...peerPaths]).toEqual(['/adapted']);
      const [adapted, refused] = result.peers!;
      expect(adapted!.name).toBe('adapted');
      expect(adapted!.error).toBeNull();
      expect(adapted!.roundRatios).toHaveLength(2);
      expect(adapted!.ratio).toBeCloseTo(adapted!.figures!.reqPerS / result.raw.reqPerS, 6);
      expect(refused).toEqual({ name: 'refused', ratio: null, roundRatios: [], figures: null, error: 'answered with errors' });
    } finally {
      peer.close();
    }
  });

  it('gives no peers entry when none were given', async () => {
    const result = await runPaired({ realUrl: urls.real, rawUrl: urls.raw, requests, connections: 2, rounds: 1, durationS: 0.5, warmupS: 0 });
    expect(result.peers).toBeUndefined();
  });
});
