/**
 * SNAPSHOT_MAX_FILE_BYTES: a file whose sha256 is right but which inflates past the limit is
 * refused by both loaders, naming the file and the setting, without inflating it whole.
 */

import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSchema, readSdl } from '../../../server/execution/schema.ts';
import { resolvers } from '../../../server/resolvers/index.ts';
import { loadSnapshot, SnapshotError } from '../../../server/snapshot/load.ts';
import { loadSnapshotOffThread } from '../../../server/snapshot/offThread.ts';
import type { Manifest } from '../../../sync/format.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

const schema = createSchema(readSdl(), resolvers);
const LIMIT = 1024 * 1024;
let snapshot: TinySnapshot;
let file: string;

beforeEach(async () => {
  snapshot = await createTinySnapshot();
  const manifestPath = path.join(snapshot.dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  const entry = manifest.sources.tours!.locales['fr-CH']!.tours!;
  // 64 MiB of JSON white space around an empty array: some 64 kB of gzip.
  const bomb = gzipSync(Buffer.concat([Buffer.from('['), Buffer.alloc(64 * LIMIT, ' '), Buffer.from(']')]));
  file = path.join(snapshot.dir, entry.file);
  await writeFile(file, bomb);
  entry.sha256 = createHash('sha256').update(bomb).digest('hex');
  await writeFile(manifestPath, JSON.stringify(manifest));
});

afterEach(() => snapshot.remove());

/** Puts `bytes` in the file's place, with the checksum the manifest needs. */
async function rewriteBomb(bytes: Buffer): Promise<void> {
  const manifestPath = path.join(snapshot.dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  await writeFile(file, bytes);
  manifest.sources.tours!.locales['fr-CH']!.tours!.sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFile(manifestPath, JSON.stringify(manifest));
}

const refusal = () => `${file}: inflates to more than ${LIMIT} bytes, the limit (SNAPSHOT_MAX_FILE_BYTES); raise it if the file is genuine`;

describe('a file that inflates past SNAPSHOT_MAX_FILE_BYTES', () => {
  it('is refused by the load at start', async () => {
    const error = await loadSnapshot(snapshot.dir, schema, { maxFileBytes: LIMIT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(refusal());
  });

  it('is refused by the load of a reload, in the reader thread', async () => {
    const error = await loadSnapshotOffThread(snapshot.dir, schema, { maxFileBytes: LIMIT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(refusal());
  });

  it('is refused as well when its trailer states less than it inflates to', async () => {
    const bomb = await readFile(file);
    // The trailer's ISIZE now says 2 bytes, as a file crafted to pass a check of it would.
    bomb.writeUInt32LE(2, bomb.length - 4);
    await rewriteBomb(bomb);
    for (const load of [loadSnapshot, loadSnapshotOffThread]) {
      const error = await load(snapshot.dir, schema, { maxFileBytes: LIMIT }).catch((e: unknown) => e);
      expect((error as Error).message).toBe(refusal());
    }
  });

  it('is read within a limit it fits, also as several gzip members whose trailer states the last one only', async () => {
    await rewriteBomb(Buffer.concat([gzipSync(Buffer.alloc(2 * LIMIT, ' ')), gzipSync(Buffer.from('[]'))]));
    const error = await loadSnapshot(snapshot.dir, schema, { maxFileBytes: 4 * LIMIT }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${file}: 0 records, expected 3`);
    const refused = await loadSnapshot(snapshot.dir, schema, { maxFileBytes: LIMIT }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe(refusal());
  });

  it('is read within a limit it fits', async () => {
    const error = await loadSnapshot(snapshot.dir, schema, { maxFileBytes: 128 * LIMIT }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${file}: 0 records, expected 3`);
  });
});
