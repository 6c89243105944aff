/**
 * Version directories: how they are named and ordered, and a free name for a new one.
 */

import path from 'node:path';
import { pathExists } from './files.ts';

/** Version directories are named by format.ts's `versionId`, with `-<n>` when two runs share a second. */
export const VERSION_DIR = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?$/;

/** Orders `2026-11-21T04-00-00Z` < `2026-11-21T04-00-00Z-1` < `2026-11-21T04-00-00Z-10`. */
export function compareVersions(a: string, b: string): number {
  const [baseA, nA = '0'] = a.split(/Z-?/);
  const [baseB, nB = '0'] = b.split(/Z-?/);
  return baseA! < baseB! ? -1 : baseA! > baseB! ? 1 : Number(nA || 0) - Number(nB || 0);
}

/** `base`, or `base-1`, `base-2`… when a run in the same second already took it. */
export async function freeVersion(dataDir: string, base: string): Promise<string> {
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if (!(await pathExists(path.join(dataDir, candidate)))) return candidate;
  }
}
