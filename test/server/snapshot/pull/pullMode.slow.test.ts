/**
 * Pull mode end to end: two replicas (the bundle, as the image runs it) follow a data directory
 * served over loopback HTTP, each with a cache of its own, while the sync's writer publishes
 * signed versions into it, broken ones among them, and the origin goes away and comes back.
 */

import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_JITTER } from '../../../../server/snapshot/pull/snapshotPuller.ts';
import { type ServerProcess, startServerProcess } from '../../../helpers/serverProcess.ts';
import { serveStaticOrigin, type StaticOrigin } from '../../../helpers/staticOrigin.ts';
import { writeTinySnapshot } from '../../../helpers/tinySnapshot.ts';

const POLL_S = 1;
/** One poll and its jitter, plus what fetching, the file watcher's debounce and loading a tiny snapshot take on a busy machine. */
const NEW_VERSION_WITHIN_MS = POLL_S * 1000 * (1 + POLL_JITTER) + 4000;

const keys = generateKeyPairSync('ed25519');
const strangerKeys = generateKeyPairSync('ed25519');
const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

let root: string;
let originDir: string;
let origin: StaticOrigin;
const replicas: { process: ServerProcess; url: string; dataDir: string }[] = [];

async function startReplica(dataDir: string): Promise<{ process: ServerProcess; url: string; dataDir: string }> {
  const process = startServerProcess({
    DATA_DIR: dataDir,
    SNAPSHOT_URL: origin.url,
    SNAPSHOT_POLL_S: String(POLL_S),
    SNAPSHOT_FETCH_TIMEOUT_MS: '5000',
    SNAPSHOT_PUBLIC_KEY: publicKey,
    BOOKING_MODE: 'off',
  });
  const listening = await process.loggedMsg('listening on');
  const replica = { process, url: String(listening.url), dataDir };
  replicas.push(replica);
  return replica;
}

/** The version a replica serves, from /readyz. */
async function served(url: string): Promise<string> {
  const response = await fetch(`${url}/readyz`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { snapshot: string }).snapshot;
}

/** snapshot_pull_failures_total of one reason on a replica. */
async function failures(url: string, reason: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = new RegExp(`^snapshot_pull_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return Number(match?.[1] ?? NaN);
}

/** Resolves once `check` holds, polling every 100 ms; fails after `withinMs`. */
async function until(what: string, withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check().catch(() => false)) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Requests both replicas without pause from a few clients until stopped: how many answered, and every one that was not a 200 with data. */
function loadBoth(urls: string[]): { stop(): Promise<{ answered: number; failed: string[] }> } {
  let stopped = false;
  let answered = 0;
  const failed: string[] = [];
  const body = JSON.stringify({ query: '{ attractions(limit: 1) { data { name } } }' });
  const client = async (url: string) => {
    while (!stopped) {
      try {
        const response = await fetch(`${url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const json = (await response.json()) as { data?: unknown; errors?: unknown };
        if (response.status !== 200 || json.errors || !json.data) failed.push(`${url}: ${response.status} ${JSON.stringify(json)}`);
        else answered++;
      } catch (error) {
        failed.push(`${url}: ${(error as Error).message}`);
      }
    }
  };
  const clients = urls.flatMap((url) => [client(url), client(url)]);
  return {
    async stop() {
      stopped = true;
      await Promise.all(clients);
      return { answered, failed };
    },
  };
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(tmpdir(), 'pull-mode-'));
  originDir = path.join(root, 'origin');
  await writeTinySnapshot(originDir, { version: '2026-11-21T04-00-00Z', signingKey: keys.privateKey });
  origin = await serveStaticOrigin(originDir);
  await Promise.all([startReplica(path.join(root, 'a')), startReplica(path.join(root, 'b'))]);
}, 60_000);

afterAll(async () => {
  for (const { process } of replicas) process.child.kill('SIGKILL');
  await origin?.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('pull mode, two replicas and a loopback origin', () => {
  it('starts each replica from the origin into its empty cache', async () => {
    for (const { url } of replicas) expect(await served(url)).toBe('2026-11-21T04-00-00Z');
    const status = (await (await fetch(`${replicas[0]!.url}/api/status`)).json()) as { pull: Record<string, unknown> };
    expect(status.pull).toMatchObject({ origin: origin.url, pollS: POLL_S, signed: true, originVersion: '2026-11-21T04-00-00Z', lastFailure: null });
    expect(Date.parse(String(status.pull.lastSuccessfulPollAt))).toBeGreaterThan(0);
  });

  it('serves a new signed version on both within one poll and its jitter, with no failed request under load', async () => {
    const load = loadBoth(replicas.map((r) => r.url));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await writeTinySnapshot(originDir, { version: '2026-11-22T04-00-00Z', firstAttractionName: 'Neu', signingKey: keys.privateKey });
    const tookMs = await until('both serve 2026-11-22T04-00-00Z', NEW_VERSION_WITHIN_MS, async () =>
      (await Promise.all(replicas.map((r) => served(r.url)))).every((v) => v === '2026-11-22T04-00-00Z'),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { answered, failed } = await load.stop();
    expect(failed).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(NEW_VERSION_WITHIN_MS);
  });

  it('keeps the served version on a bad signature, a truncated file and a wrong sha256, counting each, then takes the good one', async () => {
    const previous = '2026-11-22T04-00-00Z';
    const failuresOf = (reason: string) => Promise.all(replicas.map((r) => failures(r.url, reason)));
    const counted = async (reason: string) => {
      const before = await failuresOf(reason);
      return () => until(`both count a ${reason} failure`, 10_000, async () => (await failuresOf(reason)).every((count, i) => count > before[i]!));
    };

    let seen = await counted('signature');
    await writeTinySnapshot(originDir, { version: '2026-11-23T04-00-00Z', firstAttractionName: 'Fremd', signingKey: strangerKeys.privateKey });
    await seen();
    for (const { url } of replicas) expect(await served(url)).toBe(previous);

    const file = '2026-11-24T04-00-00Z/de-CH/attractions.json.gz';
    origin.truncate(file);
    seen = await counted('truncated');
    await writeTinySnapshot(originDir, { version: '2026-11-24T04-00-00Z', firstAttractionName: 'Gut', signingKey: keys.privateKey });
    await seen();
    for (const { url } of replicas) expect(await served(url)).toBe(previous);

    const good = await fs.readFile(path.join(originDir, file));
    seen = await counted('sha256');
    await fs.writeFile(path.join(originDir, file), Buffer.concat([good, Buffer.from('x')]));
    origin.truncate(null);
    await seen();
    for (const { url } of replicas) expect(await served(url)).toBe(previous);
    const status = (await (await fetch(`${replicas[1]!.url}/api/status`)).json()) as { pull: { lastFailure: { reason: string; message: string } } };
    expect(status.pull.lastFailure.reason).toBe('sha256');
    expect(status.pull.lastFailure.message).toContain(`${origin.url}${file}: sha256`);

    await fs.writeFile(path.join(originDir, file), good);
    await until('both serve 2026-11-24T04-00-00Z', NEW_VERSION_WITHIN_MS, async () => (await Promise.all(replicas.map((r) => served(r.url)))).every((v) => v === '2026-11-24T04-00-00Z'));
  });

  it('goes on serving while the origin is away, and follows it again once it is back', async () => {
    const before = await Promise.all(replicas.map((r) => failures(r.url, 'unreachable')));
    await origin.stop();
    await until('both count the origin unreachable', 10_000, async () => (await Promise.all(replicas.map((r) => failures(r.url, 'unreachable')))).every((count, i) => count > before[i]!));
    for (const { url } of replicas) expect(await served(url)).toBe('2026-11-24T04-00-00Z');
    const page = await (await fetch(`${replicas[0]!.url}/`)).text();
    expect(page).toContain(`<code id="pull-origin">${origin.url}</code>`);
    expect(page).toMatch(/<span id="pull-last-failure"><span class="stale">[^<]+ \(unreachable\): GET /);

    await origin.start();
    await writeTinySnapshot(originDir, { version: '2026-11-25T04-00-00Z', firstAttractionName: 'Zurück', signingKey: keys.privateKey });
    await until('both serve 2026-11-25T04-00-00Z', NEW_VERSION_WITHIN_MS + 2000, async () => (await Promise.all(replicas.map((r) => served(r.url)))).every((v) => v === '2026-11-25T04-00-00Z'));
  });

  it('starts a replica while the origin is down from the version in its cache', async () => {
    await origin.stop();
    const cache = path.join(root, 'c');
    await fs.cp(replicas[0]!.dataDir, cache, { recursive: true });
    const replica = await startReplica(cache);
    expect(await served(replica.url)).toBe('2026-11-25T04-00-00Z');
    const answer = await fetch(`${replica.url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ attractions(limit: 10) { data { name } } }' }) });
    const names = ((await answer.json()) as { data: { attractions: { data: { name: string }[] } } }).data.attractions.data.map((a) => a.name);
    expect(names).toContain('Zurück');
    await until('it counts the origin unreachable', 10_000, async () => (await failures(replica.url, 'unreachable')) > 0);
    // Booking is off without a partner: a 404 that says so.
    const booking = await fetch(`${replica.url}/v1/activities/1/availability`);
    expect([booking.status, await booking.json()]).toEqual([404, { error: { code: 'BOOKING_OFF', message: 'The booking interface is off on this server (BOOKING_MODE=off).', details: {} } }]);
  });
});
