/**
 * One pull: the origin's manifest, when it changed (ETag), and then the files of its version
 * that the cache lacks, into the local data directory. Files are fetched beside the served ones,
 * into `<version>.pull/`, each checked against its sha256 while it streams to disk; only once
 * all are there is the directory renamed to `<version>/` and `manifest.json` replaced by rename,
 * the commit point the hot reload watches (reload.ts). A failure at any step leaves the served
 * manifest and its files as they were.
 */

import { createHash, type KeyObject } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import writeFileAtomic from 'write-file-atomic';
import { MANIFEST_SIGNATURE_FILE, type FileEntry } from '../../../sync/format.ts';
import { fetchFromOrigin } from './fetchFromOrigin.ts';
import { PullError } from './pullError.ts';
import { checkPulledManifest, verifySignature, VERSION_ID } from './verifyManifest.ts';

/** Largest manifest accepted, in bytes: one names a few dozen files. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** Largest signature file accepted, in bytes: base64 of 64 bytes and a newline. */
const MAX_SIGNATURE_BYTES = 1024;

/** Files fetched at once. */
const PARALLEL_FILES = 4;

const STAGING_SUFFIX = '.pull';

export interface PullOptions {
  /** The origin's base URL, ending in `/`: `manifest.json` and the files are relative to it. */
  origin: URL;
  dataDir: string;
  dispatcher: Dispatcher;
  /** Total deadline of each GET, in ms (SNAPSHOT_FETCH_TIMEOUT_MS). */
  fetchTimeoutMs: number;
  /** Largest file accepted, in bytes (SNAPSHOT_MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** Keys of which one must verify the manifest's signature; none: signatures are not checked. */
  publicKeys: readonly KeyObject[];
  /** ETag of the manifest last fetched whole, sent as If-None-Match. */
  etag: string | null;
  /** Versions whose directories must stay (the one served); besides the new one and that of the local manifest. */
  keep: readonly string[];
}

export type PullResult =
  /** The origin's manifest is the local one (304, or the same bytes). */
  | { changed: false; etag: string | null; version: string | null }
  /** A new version is in the cache and its manifest committed. */
  | { changed: true; etag: string | null; version: string; fetched: number; reused: number; bytes: number };

/**
 * Pulls once; see the module comment.
 *
 * @throws PullError naming the reason, the URL and the cause
 */
export async function pullSnapshot(options: PullOptions): Promise<PullResult> {
  const { origin, dataDir } = options;
  const manifestUrl = new URL('manifest.json', origin);
  const chunks: Buffer[] = [];
  const got = await fetchFromOrigin(manifestUrl, {
    dispatcher: options.dispatcher,
    deadlineMs: options.fetchTimeoutMs,
    maxBytes: MAX_MANIFEST_BYTES,
    etag: options.etag,
    sink: (chunk) => void chunks.push(chunk),
  });
  const local = await readLocal(dataDir);
  if (got.notModified) return { changed: false, etag: got.etag, version: local.version };
  const bytes = Buffer.concat(chunks);
  let signature: Buffer | null = null;
  if (options.publicKeys.length > 0) {
    const signatureUrl = new URL(MANIFEST_SIGNATURE_FILE, origin);
    const parts: Buffer[] = [];
    try {
      await fetchFromOrigin(signatureUrl, { dispatcher: options.dispatcher, deadlineMs: options.fetchTimeoutMs, maxBytes: MAX_SIGNATURE_BYTES, sink: (chunk) => void parts.push(chunk) });
    } catch (error) {
      // Without its signature a manifest is refused as unsigned, whatever kept it from arriving.
      if (error instanceof PullError && (error.reason === 'status' || error.reason === 'too_large')) throw new PullError('signature', `${error.message}; a manifest without its signature is refused`);
      throw error;
    }
    signature = Buffer.concat(parts);
    verifySignature(bytes, signature.toString('utf8'), options.publicKeys, manifestUrl.href);
  }
  const { manifest, files } = checkPulledManifest(bytes, manifestUrl.href);
  if (local.bytes?.equals(bytes)) return { changed: false, etag: got.etag, version: manifest.version };

  const staging = path.join(dataDir, `${manifest.version}${STAGING_SUFFIX}`);
  const final = path.join(dataDir, manifest.version);
  // The files of the local snapshot by checksum: an unchanged file is copied, not fetched.
  const localFiles = new Map(local.files.map((entry) => [entry.sha256, path.join(dataDir, entry.file)]));
  let fetched = 0;
  let reused = 0;
  let fetchedBytes = 0;
  try {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.mkdir(staging, { recursive: true });
    const queue = [...files];
    const worker = async () => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) {
        const target = path.join(staging, path.relative(manifest.version, entry.file));
        await fs.mkdir(path.dirname(target), { recursive: true });
        const copy = localFiles.get(entry.sha256);
        if (copy && (await sha256Of(copy)) === entry.sha256) {
          await fs.copyFile(copy, target);
          reused++;
          continue;
        }
        // Read after the await: `total += await …` would add to the total as it was before it.
        const bytes = await fetchFile(new URL(entry.file, origin), target, entry, options);
        fetchedBytes += bytes;
        fetched++;
      }
    };
    // Every worker ends before the staging directory may be removed: one still writing would
    // make it anew after the removal. After a failure the others take no further file.
    const settled = await Promise.allSettled(Array.from({ length: PARALLEL_FILES }, () => worker().catch((error: unknown) => {
      queue.length = 0;
      throw error;
    })));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    await fs.writeFile(path.join(staging, 'manifest.json'), bytes);
    await fs.rm(final, { recursive: true, force: true });
    await fs.rename(staging, final);
    // The signature first, so that the local manifest is never beside another's signature.
    if (signature) await writeFileAtomic(path.join(dataDir, MANIFEST_SIGNATURE_FILE), signature);
    await writeFileAtomic(path.join(dataDir, 'manifest.json'), bytes);
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true }).catch(() => {});
    if (error instanceof PullError) throw error;
    throw new PullError('cache', `writing version ${manifest.version} into ${dataDir}: ${(error as Error).message}`, { cause: error });
  }
  await prune(dataDir, new Set([manifest.version, ...(local.version ? [local.version] : []), ...options.keep]));
  return { changed: true, etag: got.etag, version: manifest.version, fetched, reused, bytes: fetchedBytes };
}

/** Streams one file to `target`, hashing it on the way; removes it unless its sha256 is the manifest's. */
async function fetchFile(url: URL, target: string, entry: FileEntry, options: PullOptions): Promise<number> {
  const hash = createHash('sha256');
  const handle = await fs.open(target, 'w');
  let bytes: number;
  try {
    const got = await fetchFromOrigin(url, {
      dispatcher: options.dispatcher,
      deadlineMs: options.fetchTimeoutMs,
      maxBytes: options.maxFileBytes,
      sink: async (chunk) => {
        hash.update(chunk);
        await handle.write(chunk);
      },
    });
    bytes = got.notModified ? 0 : got.bytes;
  } finally {
    await handle.close();
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== entry.sha256) throw new PullError('sha256', `GET ${url}: sha256 ${sha256}, the manifest gives ${entry.sha256}`);
  return bytes;
}

async function sha256Of(file: string): Promise<string | null> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch {
    return null;
  }
  return hash.digest('hex');
}

/** The local manifest's bytes, version and files; empty when there is none or it is unreadable. */
async function readLocal(dataDir: string): Promise<{ bytes: Buffer | null; version: string | null; files: FileEntry[] }> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path.join(dataDir, 'manifest.json'));
  } catch {
    return { bytes: null, version: null, files: [] };
  }
  try {
    const { manifest, files } = checkPulledManifest(bytes, 'manifest.json');
    return { bytes, version: manifest.version, files };
  } catch {
    return { bytes, version: null, files: [] };
  }
}

/**
 * Removes the version directories of the cache but those in `keep`, and staging left by a pull
 * that stopped midway. Only names of versions (or their staging) are touched: a DATA_DIR that
 * also holds other things keeps them.
 */
async function prune(dataDir: string, keep: ReadonlySet<string>): Promise<void> {
  const entries = await fs.readdir(dataDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const version = entry.name.endsWith(STAGING_SUFFIX) ? entry.name.slice(0, -STAGING_SUFFIX.length) : entry.name;
    if (!VERSION_ID.test(version) || (keep.has(entry.name))) continue;
    await fs.rm(path.join(dataDir, entry.name), { recursive: true, force: true }).catch(() => {});
  }
}
