/**
 * WORKERS=2 on the real process: `node dist/server.mjs` (the bundle) as the primary of a
 * cluster, over the tiny snapshot, with the booking sandbox. Each server runs in its own process
 * group, so a signal can go to the primary alone or to the whole group.
 */

import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashQuery } from '../../../server/http/graphql/persistedQueries.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});

afterAll(() => snapshot.remove());

/**
 * A cluster primary, its log lines as they arrive, and its port once every worker listens.
 *
 * @param options.listening wait until every worker listens; default true
 */
async function startCluster(env: Record<string, string>, options: { listening?: boolean } = {}) {
  const server = startServerProcess({ WORKERS: '2', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), ...env }, { detached: true });
  const port = options.listening === false ? 0 : ((await server.loggedMsg('2 workers listening')).port as number);
  return {
    ...server,
    port,
    url: `http://127.0.0.1:${port}`,
    /** Signals the primary alone, or the whole process group (as Ctrl-C or systemd do). */
    signal(signal: NodeJS.Signals, group = false) {
      process.kill(group ? -server.child.pid! : server.child.pid!, signal);
    },
  };
}

type Cluster = Awaited<ReturnType<typeof startCluster>>;

/**
 * A request on a connection of its own, so that the requests spread over the workers.
 *
 * @param localAddress the client's address, e.g. 127.0.0.2 to be another client on loopback
 */
async function send(url: string, method: string, pathname: string, body?: unknown, localAddress?: string) {
  const { hostname, port } = new URL(url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
  const req = httpRequest({ hostname, port, method, path: pathname, headers, localAddress, agent: false });
  req.end(payload);
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as any };
}

/** A scrape of `/metrics` on a connection of its own. */
async function scrape(url: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  const req = httpRequest({ hostname, port, path: '/metrics', agent: false });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') };
}

/** The sum of a metric's samples whose labels include `label` (e.g. `route="/api/graphql"`). */
function sampleSum(text: string, name: string, label: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(label))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Workers that logged a request to `pathname` (by `method`, among the log lines from `from` on). */
function workersServing(cluster: Cluster, pathname: string, method?: string, from = 0): Set<number> {
  return new Set(
    cluster.lines
      .slice(from)
      .filter((line) => line.msg === 'request' && line.path === pathname && (method === undefined || line.method === method))
      .map((line) => line.worker as number),
  );
}

/** An automatic persisted query: its query, and the URL of its hash-only GET (as Apollo Client sends it). */
const PERSISTED_QUERY = '{ tours { total } }';
const PERSISTED_EXTENSIONS = { persistedQuery: { version: 1, sha256Hash: hashQuery(PERSISTED_QUERY) } };
const PERSISTED_GET = `/api/graphql?extensions=${encodeURIComponent(JSON.stringify(PERSISTED_EXTENSIONS))}`;

describe('a cluster of two workers', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ BOOKING_RATE_LIMIT: '12' });
  }, 60_000);

  afterAll(() => {
    if (cluster.child.exitCode === null) cluster.signal('SIGKILL', true);
  });

  it('serves GraphQL from both workers on one port', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(cluster.url, 'POST', '/api/graphql', { query: '{ tours { total } }' })));
    expect(answers.map((answer) => answer.body)).toEqual(Array(8).fill({ data: { tours: { total: 3 } } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workersServing(cluster, '/api/graphql')).toEqual(new Set([1, 2]));
  });

  it('knows a persisted query on every worker once one worker has registered it', async () => {
    const from = cluster.lines.length;
    const registered = await send(cluster.url, 'POST', '/api/graphql', { query: PERSISTED_QUERY, extensions: PERSISTED_EXTENSIONS });
    expect(registered.body).toEqual({ data: { tours: { total: 3 } } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(cluster.url, 'GET', PERSISTED_GET)));
    expect(answers.map((answer) => answer.body)).toEqual(Array(20).fill({ data: { tours: { total: 3 } } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workersServing(cluster, '/api/graphql', 'GET', from)).toEqual(new Set([1, 2]));
  });

  it('reports every worker in one scrape of /metrics, whichever worker answers it', async () => {
    // Each worker answered some of the 8 + 21 GraphQL requests above, none all of them.
    const scrapes = await Promise.all(Array.from({ length: 4 }, () => scrape(cluster.url)));
    for (const { status, text } of scrapes) {
      expect(status).toBe(200);
      expect(sampleSum(text, 'http_requests_total', 'route="/api/graphql"')).toBe(29);
      expect(sampleSum(text, 'http_request_duration_seconds_count', 'route="/api/graphql"')).toBe(29);
      expect(sampleSum(text, 'graphql_requests_total', 'outcome="ok"') + sampleSum(text, 'graphql_requests_total', 'outcome="cache_hit"')).toBe(29);
      // One snapshot served by both workers: one series, 1 rather than the sum of 2.
      expect(text).toMatch(new RegExp(`^snapshot_info\\{version="${snapshot.manifest.version}"\\} 1$`, 'm'));
    }
  });

  it('refuses a scrape with a 503 naming the worker that did not send its metrics, rather than undercount', async () => {
    signalWorker(cluster, 2, 'SIGSTOP');
    let scrapes: Promise<{ status: number; text: string }>[] = [];
    try {
      // Two connections: the cluster hands one to each worker while both are free, and none to
      // a stopped worker after that, so at least one reaches worker 1. One that reached
      // worker 2 waits for it.
      scrapes = [scrape(cluster.url), scrape(cluster.url)];
      const first = await Promise.race(scrapes);
      expect(first).toEqual({ status: 503, text: 'metrics unavailable: worker 2 did not send its metrics within 2000 ms\n' });
    } finally {
      signalWorker(cluster, 2, 'SIGCONT');
    }
    await Promise.all(scrapes);
    expect((await scrape(cluster.url)).status).toBe(200);
  });

  it('gives the last place of a slot to exactly one client, whichever worker each one reaches', async () => {
    const activities = await send(cluster.url, 'GET', '/v1/activities');
    const activity = activities.body.find((candidate: { numOffers: number }) => candidate.numOffers > 0);
    const [offer] = (await send(cluster.url, 'GET', `/v1/activities/${activity.activityId}/availabilities`)).body;
    const slot = offer.availabilities.find((candidate: { numAvailable: number }) => candidate.numAvailable > 1);
    const reserve = (numGuests: number) => ({
      activityId: activity.activityId,
      availabilityId: slot.availabilityId,
      selection: [{ ticketCategoryId: slot.ticketCategoryIds[0], numGuests }],
    });
    expect((await send(cluster.url, 'POST', '/v1/reservations', reserve(slot.numAvailable - 1))).status).toBe(201);

    const answers = await Promise.all(Array.from({ length: 8 }, () => send(cluster.url, 'POST', '/v1/reservations', reserve(1))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workersServing(cluster, '/v1/reservations')).toEqual(new Set([1, 2]));
  });

  it('counts the rate limit of a client over every worker', async () => {
    // 9 reservations so far; BOOKING_RATE_LIMIT=12 leaves 3 this minute, whichever worker answers.
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(cluster.url, 'POST', '/v1/reservations', {})));
    expect(answers.map((answer) => answer.status).sort()).toEqual([400, 400, 400, 429, 429, 429]);
    // Another client (another loopback address) has its own count.
    expect((await send(cluster.url, 'POST', '/v1/reservations', {}, '127.0.0.2')).status).toBe(400);
  });

  it('restarts a worker that dies, and keeps serving meanwhile', async () => {
    const started = cluster.lines.filter((line) => String(line.msg).startsWith('listening on')).length;
    const restart = cluster.loggedMsg('worker 1 exited with SIGKILL; restarting it in 500 ms');
    signalWorker(cluster, 1, 'SIGKILL');
    expect(await restart).toMatchObject({ level: 'error', worker: 1, exit: 'SIGKILL', restartInMs: 500 });
    expect((await send(cluster.url, 'POST', '/api/graphql', { query: '{ types { id } }' })).status).toBe(200);
    await cluster.logged((line) => String(line.msg).startsWith('listening on') && line.worker === 3, 'worker 3 listening');
    expect(cluster.lines.filter((line) => String(line.msg).startsWith('listening on'))).toHaveLength(started + 1);
  });

  it('gives a restarted worker the persisted queries registered before it started', async () => {
    const from = cluster.lines.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(cluster.url, 'GET', PERSISTED_GET)));
    expect(answers.map((answer) => answer.body)).toEqual(Array(10).fill({ data: { tours: { total: 3 } } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workersServing(cluster, '/api/graphql', 'GET', from)).toContain(3);
  });

  it("keeps a restarted worker's counts in the sums, which never go down", async () => {
    const graphqlRequests = (text: string) => sampleSum(text, 'http_requests_total', 'route="/api/graphql"');
    // Collected from both workers now; the one killed next serves nothing after this.
    const before = graphqlRequests((await scrape(cluster.url)).text);
    expect(before).toBeGreaterThan(0);
    const restarted = cluster.logged((line) => String(line.msg).startsWith('listening on') && line.worker === 4, 'worker 4 listening');
    signalWorker(cluster, 2, 'SIGKILL');
    await restarted;
    expect((await send(cluster.url, 'POST', '/api/graphql', { query: '{ types { id } }' })).status).toBe(200);
    const after = await scrape(cluster.url);
    expect(after.status).toBe(200);
    expect(graphqlRequests(after.text)).toBe(before + 1);
    expect(sampleSum(after.text, 'http_request_duration_seconds_count', 'route="/api/graphql"')).toBe(before + 1);
  });

  it('drains every worker and exits 0 when the whole process group is signalled', async () => {
    cluster.signal('SIGTERM', true);
    const [code] = await cluster.exited;
    expect(code).toBe(0);
    expect(cluster.stderr()).toBe('');
    const messages = cluster.lines.map((line) => line.msg);
    expect(messages.filter((msg) => msg === 'drained: exiting')).toHaveLength(2);
    expect(messages).toContain('drained: every worker has exited');
    expect(messages).not.toContain('second signal while draining: the workers exit now');
  });
});

/** Kills a worker, by the pid the primary logged when it started it. */
function signalWorker(cluster: Cluster, id: number, signal: NodeJS.Signals): void {
  const started = cluster.lines.find((line) => line.msg === `worker ${id} started` && typeof line.pid === 'number');
  process.kill(started!.pid as number, signal);
}

const QUERY_BODY = JSON.stringify({ query: '{ types { id title } }' });
const queryHead = `POST /api/graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(QUERY_BODY)}\r\n\r\n`;

async function openHalfRequest(port: number) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (data) => (received += data));
  socket.write(queryHead + QUERY_BODY.slice(0, 10));
  return { socket, received: () => received, closed: once(socket, 'close') };
}

describe('shutting a cluster down', () => {
  it('finishes a request in flight when the primary is signalled, then exits 0', async () => {
    const cluster = await startCluster({});
    const connection = await openHalfRequest(cluster.port);
    await new Promise((resolve) => setTimeout(resolve, 200));
    cluster.signal('SIGTERM');
    expect(await cluster.logged((line) => String(line.msg).startsWith('draining: not ready') && line.inFlight === 1, 'a worker draining one request')).toMatchObject({
      signal: 'SIGTERM',
      graceMs: 10_000,
    });
    connection.socket.write(QUERY_BODY.slice(10));
    const [code] = await cluster.exited;
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(connection.received()).toMatch(/\r\n\r\n\{"data":\{"types":\[\{"id":"type-0","title":"Canyoning"\}/);
    expect(code).toBe(0);
  }, 60_000);

  it('exits 1 at once on a second signal', async () => {
    const cluster = await startCluster({});
    const connection = await openHalfRequest(cluster.port);
    await new Promise((resolve) => setTimeout(resolve, 200));
    cluster.signal('SIGINT');
    await cluster.loggedMsg('draining: telling every worker');
    const signalledAt = performance.now();
    cluster.signal('SIGINT');
    const [code] = await cluster.exited;
    await connection.closed;
    expect(code).toBe(1);
    expect(performance.now() - signalledAt).toBeLessThan(5000);
    expect(cluster.lines.map((line) => line.msg)).toContain('second signal while draining: the workers exit now');
  }, 60_000);

  it('stops at once, with 0, when signalled while its workers are still starting', async () => {
    const cluster = await startCluster({}, { listening: false });
    await cluster.loggedMsg('starting 2 workers');
    cluster.signal('SIGTERM');
    const [code] = await cluster.exited;
    expect(code).toBe(0);
    // Each worker stopped without finishing its start, so none ever listened.
    expect(cluster.lines.filter((line) => line.msg === 'stopping before serving')).toHaveLength(2);
    expect(cluster.lines.filter((line) => line.msg.includes('listening'))).toEqual([]);
    expect(cluster.stderr()).toBe('');
  }, 60_000);

  it('does not start, and exits 1, when the workers cannot load the snapshot', async () => {
    const cluster = await startCluster(
      { DATA_DIR: path.join(snapshot.dir, 'missing'), BOOKING_MODE: 'proxy', BOOKING_UPSTREAM_URL: 'http://127.0.0.1:9', BOOKING_API_KEY: 'k' },
      { listening: false },
    );
    const [code] = await cluster.exited;
    expect(code).toBe(1);
    expect(cluster.lines.find((line) => line.level === 'fatal' && line.worker === undefined)?.msg).toMatch(/^cannot start: worker \d exited with 1 before the cluster was listening$/);
    expect(cluster.stderr()).toBe('');
  }, 60_000);
});
