/**
 * Memory across hot reloads: nothing keeps a replaced store or snapshot alive once the new one
 * is served, so a replica holds two snapshots only while it swaps (docs/deploy.md).
 */

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

describe('three hot reloads', () => {
  it('leave none of the replaced stores and snapshots reachable', async () => {
    // A process of its own: --expose-gc, and a heap no other test shares.
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/reloadHeap.ts', '--reloads', '3'], { cwd: root });
    const result = JSON.parse(stdout) as { replaced: number; replacedStillReachable: number };
    expect(result).toMatchObject({ replaced: 6, replacedStillReachable: 0 });
  }, 120_000);
});
