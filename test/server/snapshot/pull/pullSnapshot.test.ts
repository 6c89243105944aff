import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORMAT_VERSION, MANIFEST_SIGNATURE_FILE, type Manifest } from '../../../../sync/format.ts';
import { pullSnapshot, type PullOptions } from '../../../../server/snapshot/pull/pullSnapshot.ts';
import { PullError } from '../../../../server/snapshot/pull/pullError.ts';
import { serveStaticOrigin, type StaticOrigin } from '../../../helpers/staticOrigin.ts';
import { writeTinySnapshot } from '../../../helpers/tinySnapshot.ts';

const keys = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');
const dispatcher = new Agent();

let originDir: string;
let cacheDir: string;
let origin: StaticOrigin;

beforeEach(async () => {
  originDir = await fs.mkdtemp(path.join(tmpdir(), 'pull-origin-'));
  cacheDir = await fs.mkdtemp(path.join(tmpdir(), 'pull-cache-'));
  origin = await serveStaticOrigin(originDir);
});

afterEach(async () => {
  await origin.close();
  await fs.rm(originDir, { recursive: true, force: true });
  await fs.rm(cacheDir, { recursive: true, force: true });
});

afterAll(() => dispatcher.close());

const options = (overrides: Partial<PullOptions> = {}): PullOptions => ({
  origin: new URL(origin.url),
  dataDir: cacheDir,
  dispatcher,
  fetchTimeoutMs: 10_000,
  maxFileBytes: 1 << 20,
  publicKeys: [keys.publicKey],
  etag: null,
  keep: [],
  ...overrides,
});

/** The error a pull rejects with. */
async function failure(pull: Promise<unknown>): Promise<PullError> {
  const error = await pull.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PullError);
  return error as PullError;
}

const manifestOf = async (dir: string) => JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;

describe('pullSnapshot', () => {
  it('copies a signed version into the cache, byte for byte, with its signature, and answers unchanged after', async () => {
    await writeTinySnapshot(originDir, { signingKey: keys.privateKey });
    const first = await pullSnapshot(options());
    const manifest = await manifestOf(originDir);
    const files = [...Object.values(manifest.sources).flatMap((source) => Object.values(source!.locales).flatMap((areas) => Object.values(areas!))), manifest.changes!];
    expect(first).toMatchObject({ changed: true, version: manifest.version, fetched: files.length, reused: 0 });
    for (const name of ['manifest.json', MANIFEST_SIGNATURE_FILE, ...files.map((f) => f.file)]) {
      expect(await fs.readFile(path.join(cacheDir, name)), name).toEqual(await fs.readFile(path.join(originDir, name)));
    }
    expect(await fs.readdir(cacheDir)).toEqual(expect.not.arrayContaining([`${manifest.version}.pull`]));

    // The ETag makes the next poll a 304; without one, the same bytes are no change either.
    const before = origin.requests.length;
    expect(await pullSnapshot(options({ etag: first.etag }))).toEqual({ changed: false, etag: first.etag, version: manifest.version });
    expect(origin.requests.slice(before)).toEqual([{ path: 'manifest.json', status: 304 }]);
    expect(await pullSnapshot(options())).toMatchObject({ changed: false, version: manifest.version });
  });

  it('fetches only the files that changed, and prunes versions neither served nor new', async () => {
    await writeTinySnapshot(originDir, { version: '2026-11-21T04-00-00Z', signingKey: keys.privateKey });
    await pullSnapshot(options());
    await writeTinySnapshot(originDir, { version: '2026-11-22T04-00-00Z', firstAttractionName: 'Neu', signingKey: keys.privateKey });
    const second = await pullSnapshot(options());
    // The attractions' four files (one per locale) and the change lists changed; every other file is copied from the cache.
    expect(second).toMatchObject({ changed: true, version: '2026-11-22T04-00-00Z', fetched: 5 });
    await writeTinySnapshot(originDir, { version: '2026-11-23T04-00-00Z', firstAttractionName: 'Neuer', signingKey: keys.privateKey });
    await pullSnapshot(options({ keep: ['2026-11-22T04-00-00Z'] }));
    expect((await fs.readdir(cacheDir)).filter((name) => name.startsWith('2026')).sort()).toEqual(['2026-11-22T04-00-00Z', '2026-11-23T04-00-00Z']);
  });

  it('refuses a manifest whose signature verifies with no trusted key, or that has none, and accepts either of two keys', async () => {
    await writeTinySnapshot(originDir, { signingKey: otherKeys.privateKey });
    const bad = await failure(pullSnapshot(options()));
    expect(bad.reason).toBe('signature');
    expect(bad.message).toContain('does not verify');
    await expect(fs.access(path.join(cacheDir, 'manifest.json'))).rejects.toThrow();

    expect((await pullSnapshot(options({ publicKeys: [keys.publicKey, otherKeys.publicKey] }))).changed).toBe(true);

    await fs.rm(path.join(originDir, MANIFEST_SIGNATURE_FILE));
    await fs.rm(cacheDir, { recursive: true });
    const unsigned = await failure(pullSnapshot(options()));
    expect(unsigned.reason).toBe('signature');
    expect(unsigned.message).toMatch(/404, expected 200; a manifest without its signature is refused/);
    // Without keys, an unsigned manifest is taken.
    expect((await pullSnapshot(options({ publicKeys: [] }))).changed).toBe(true);
  });

  it('refuses a file whose sha256 is not the manifest\'s, and keeps the served manifest', async () => {
    await writeTinySnapshot(originDir, { version: '2026-11-21T04-00-00Z', signingKey: keys.privateKey });
    await pullSnapshot(options());
    await writeTinySnapshot(originDir, { version: '2026-11-22T04-00-00Z', firstAttractionName: 'Neu', signingKey: keys.privateKey });
    const served = await fs.readFile(path.join(cacheDir, 'manifest.json'));
    const file = path.join(originDir, '2026-11-22T04-00-00Z/de-CH/attractions.json.gz');
    await fs.appendFile(file, 'x');
    const error = await failure(pullSnapshot(options()));
    expect(error.reason).toBe('sha256');
    expect(error.message).toContain('2026-11-22T04-00-00Z/de-CH/attractions.json.gz: sha256');
    expect(await fs.readFile(path.join(cacheDir, 'manifest.json'))).toEqual(served);
    expect(await fs.readdir(cacheDir)).not.toContain('2026-11-22T04-00-00Z.pull');
  });

  it('refuses a body that breaks off, and one over the size bound', async () => {
    await writeTinySnapshot(originDir, { signingKey: keys.privateKey });
    origin.truncate('2026-11-21T04-00-00Z/de-CH/tours.json.gz');
    expect((await failure(pullSnapshot(options()))).reason).toBe('truncated');
    origin.truncate(null);
    const large = await failure(pullSnapshot(options({ maxFileBytes: 100 })));
    expect(large.reason).toBe('too_large');
    expect(large.message).toContain('more than the bound of 100');
  });

  it('pulls the tours\' lines with the other files, and refuses a manifest naming them outside its version', async () => {
    const line = { type: 'LineString' as const, coordinates: [[8.54, 47.38], [8.55, 47.39]] as [number, number][] };
    const manifest = await writeTinySnapshot(originDir, { geometry: { 'tour-0': line }, signingKey: keys.privateKey });
    const pulled = await pullSnapshot(options());
    // Seven areas in four locales, the change lists and the lines.
    expect(pulled).toMatchObject({ changed: true, fetched: 30 });
    expect(await fs.readFile(path.join(cacheDir, manifest.geometry!.file))).toEqual(await fs.readFile(path.join(originDir, manifest.geometry!.file)));
    await fs.writeFile(path.join(originDir, 'manifest.json'), JSON.stringify({ ...manifest, geometry: { ...manifest.geometry, file: '2026-11-20T04-00-00Z/geometry.json.gz' } }));
    const elsewhere = await failure(pullSnapshot(options({ publicKeys: [] })));
    expect(elsewhere.message).toContain('geometry: file "2026-11-20T04-00-00Z/geometry.json.gz", expected 2026-11-21T04-00-00Z/geometry.json.gz');
  });

  it('refuses a manifest naming a file outside its version, or of another formatVersion', async () => {
    const manifest = await writeTinySnapshot(originDir);
    const tours = manifest.sources.tours!.locales['de-CH']!.tours!;
    tours.file = '../../etc/passwd';
    await fs.writeFile(path.join(originDir, 'manifest.json'), JSON.stringify(manifest));
    const outside = await failure(pullSnapshot(options({ publicKeys: [] })));
    expect(outside.reason).toBe('manifest');
    expect(outside.message).toContain('tours de-CH tours: file "../../etc/passwd", expected 2026-11-21T04-00-00Z/de-CH/tours.json.gz');
    await fs.writeFile(path.join(originDir, 'manifest.json'), JSON.stringify({ ...manifest, formatVersion: 99 }));
    expect((await failure(pullSnapshot(options({ publicKeys: [] })))).message).toContain(`formatVersion 99, expected ${FORMAT_VERSION}`);
  });

  it('names a 5xx, an unreachable origin and a deadline passed mid-body', async () => {
    const handler: { answer: (req: http.IncomingMessage, res: http.ServerResponse) => void } = { answer: (_req, res) => res.writeHead(503).end() };
    const server = http.createServer((req, res) => handler.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/snap/`);
    try {
      const status = await failure(pullSnapshot(options({ origin: base })));
      expect([status.reason, status.message]).toEqual(['status', `GET ${base}manifest.json: 503, expected 200`]);
      // Headers at once, then a body that never ends.
      handler.answer = (_req, res) => {
        res.writeHead(200, { 'content-length': 1000 });
        res.write('{');
      };
      const slow = await failure(pullSnapshot(options({ origin: base, fetchTimeoutMs: 300 })));
      expect([slow.reason, slow.message]).toEqual(['timeout', `GET ${base}manifest.json: not answered whole within 300 ms (SNAPSHOT_FETCH_TIMEOUT_MS)`]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await origin.stop();
    expect((await failure(pullSnapshot(options()))).reason).toBe('unreachable');
  });

  it('follows a redirect within the origin, never one to another origin', async () => {
    await writeTinySnapshot(originDir, { signingKey: keys.privateKey });
    const handler = { to: '' };
    const server = http.createServer((req, res) => res.writeHead(302, { location: `${handler.to}${req.url!.replace(/^\/old\//, '')}` }).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      handler.to = origin.url;
      const away = await failure(pullSnapshot(options({ origin: new URL(`${base}old/`) })));
      expect([away.reason, away.message]).toEqual(['redirect', `GET ${base}old/manifest.json: 302 to ${origin.url.slice(0, -1)}, another origin; redirects are followed only within ${base.slice(0, -1)}`]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
