import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatorHash, STAMP_FILE, staleReason } from '../../bench/datasets.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'datasets-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('generatorHash', () => {
  it('changes when a file under the root changes, is added or is renamed, and only then', async () => {
    const root = path.join(dir, 'sync');
    await mkdir(path.join(root, 'fixtures'), { recursive: true });
    await writeFile(path.join(root, 'snapshot.ts'), 'export const FORMAT_VERSION = 1;\n');
    await writeFile(path.join(root, 'fixtures', 'main.ts'), 'generate();\n');
    const first = generatorHash(root);
    expect(generatorHash(root)).toBe(first);

    await writeFile(path.join(root, 'fixtures', 'main.ts'), 'generate(); // ascii\n');
    const edited = generatorHash(root);
    expect(edited).not.toBe(first);

    await writeFile(path.join(root, 'fixtures', 'upstream.ts'), '');
    const added = generatorHash(root);
    expect(added).not.toBe(edited);

    await rm(path.join(root, 'fixtures', 'upstream.ts'));
    await writeFile(path.join(root, 'fixtures', 'other.ts'), '');
    expect(generatorHash(root)).not.toBe(added);
  });

  it('hashes the sync of this checkout', () => {
    expect(generatorHash()).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('staleReason', () => {
  it('says a dataset without a manifest is missing', () => {
    expect(staleReason(dir, 'abc')).toBe('missing');
  });

  it('keeps a dataset stamped with the current hash and writes again one stamped otherwise or not at all', async () => {
    await writeFile(path.join(dir, 'manifest.json'), '{}');
    expect(staleReason(dir, 'abc')).toContain(`no ${STAMP_FILE}`);
    await writeFile(path.join(dir, STAMP_FILE), 'abc\n');
    expect(staleReason(dir, 'abc')).toBeNull();
    expect(staleReason(dir, 'def')).toBe('written by other code of sync/ than this checkout');
  });
});
