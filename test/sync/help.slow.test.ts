import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../helpers/bundle.ts';
import { SYNC_VARIABLES } from '../../sync/config.ts';
import { programName } from '../../sync/help.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
let bundleDir: string;

beforeAll(async () => {
  // The sync bundle as `npm run build` makes it (dist/sync.mjs), in a directory of its own.
  bundleDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sync-bundle-'));
  await buildBundle(bundleDir, { sync: 'sync/main.ts' });
});
afterAll(async () => {
  await fs.rm(bundleDir, { recursive: true, force: true });
});

/** The help of a real CLI process: every setting with its use, the probe, and the exit codes. */
function expectFullHelp(text: string, program: string): void {
  expect(text.split('\n').slice(0, 4)).toEqual([
    expect.stringMatching(new RegExp(`^usage: ${program.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\[activities\\|snowdata\\|tours\\|attractions \\.\\.\\.\\] `)),
    `       ${program} --probe [activities|snowdata|tours|attractions ...]`,
    `       ${program} --rollback [--data-dir DIR]`,
    `       ${program} --keygen`,
  ]);
  for (const variable of SYNC_VARIABLES) {
    expect(text).toContain(`  ${variable.name} (`);
    expect(text).toContain(`      ${variable.schema.description}\n`);
  }
  expect(text).toMatch(/--probe +call each configured upstream once/);
  expect(text).toMatch(/--dry-run +fetch and run the publish gate, print its report, publish nothing/);
  expect(text).toMatch(/--force +publish a source even when the publish gate refuses it/);
  expect(text).toContain('Exit status: 0 when every requested source published');
}

describe('sync --help', () => {
  it('lists every setting under npm, named "npm run sync --"', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'sync', '--', '--help'], { cwd: root });
    expectFullHelp(stdout, 'npm run sync --');
  });

  it('names itself "node dist/sync.mjs" when the bundle runs', async () => {
    const { stdout } = await run(process.execPath, ['dist/sync.mjs', '--help'], { cwd: bundleDir });
    expectFullHelp(stdout, 'node dist/sync.mjs');
  });

  it('names itself by its script path when tsx runs the source, also in the usage of an error', async () => {
    const failed = (await run(process.execPath, ['--import', 'tsx', 'sync/main.ts', '--keep', '0'], { cwd: root, env: { ...process.env, npm_lifecycle_event: 'test', npm_lifecycle_script: 'vitest run' } }).catch(
      (error: { code: number; stderr: string }) => error,
    )) as { code: number; stderr: string };
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^sync: --keep must be an integer of at least 1, got "0"\nusage: npx tsx sync\/main\.ts \[/);
  });
});

describe('the sync bundle', () => {
  it('writes a manifest: --rollback restores a missing one', async () => {
    // The bundled write-file-atomic names its temp files after its own __filename.
    const dataDir = path.join(bundleDir, 'data');
    await fs.cp(path.join(root, 'data'), dataDir, { recursive: true });
    const expected = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')) as { version: string };
    await fs.rm(path.join(dataDir, 'manifest.json'));
    await run(process.execPath, ['dist/sync.mjs', '--rollback', '--data-dir', dataDir], { cwd: bundleDir });
    const restored = JSON.parse(await fs.readFile(path.join(dataDir, 'manifest.json'), 'utf8')) as { version: string };
    expect(restored.version).toBe(expected.version);
  });
});

describe('programName', () => {
  it('trusts npm only when its running script is this one', () => {
    expect(programName({ npm_lifecycle_event: 'sync', npm_lifecycle_script: 'tsx sync/main.ts' }, '/repo/sync/main.ts', '/repo')).toBe('npm run sync --');
    expect(programName({ npm_lifecycle_event: 'test', npm_lifecycle_script: 'tsc --noEmit && vitest run' }, '/repo/sync/main.ts', '/repo')).toBe('npx tsx sync/main.ts');
    expect(programName({}, '/app/dist/sync.mjs', '/app')).toBe('node dist/sync.mjs');
  });
});
