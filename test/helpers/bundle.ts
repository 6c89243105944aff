/**
 * The bundle `npm run build` makes, built once per test run by the `slow` project's global setup
 * (bundleSetup.ts), for tests that run it without touching the checkout's dist/.
 */

import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The dist directory of this run's `npm run build`. */
    bundleDist: string;
  }
}

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * What `npm run build` reads, relative to the repository: what the Dockerfile's build stage
 * copies before it runs the build (node_modules aside, which `npm ci` makes there).
 */
export const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'schema.graphql', 'server', 'sync', 'tracing'];

/**
 * The environment variable naming the dist directory of a bundle already built for this run: a
 * vitest that a test starts (test/server/browserSkip.slow.test.ts) takes its parent's bundle.
 */
export const BUNDLE_DIST_VARIABLE = 'TEST_BUNDLE_DIST';

/**
 * The dist directory of this run's `npm run build` (dist/server.mjs, dist/sync.mjs, …); shared by
 * every test, so read-only.
 *
 * @throws when the test file is not in the `slow` project, whose global setup builds it
 */
export function bundleDist(): string {
  const dist = inject('bundleDist');
  if (dist === undefined) throw new Error('no bundle in this run: only test files named *.slow.test.ts get one (vitest.config.ts)');
  return dist;
}

/**
 * Copies this run's bundle of the given entry points into `<dir>/dist`, for a test that runs it
 * from a directory of its own.
 *
 * @param entryPoints output name → source path, as package.json's build script names them (e.g.
 *   `{ sync: 'sync/main.ts' }`)
 * @returns the dist directory written
 * @throws when the build script does not bundle that source under that name
 */
export async function buildBundle(dir: string, entryPoints: Record<string, string>): Promise<string> {
  const buildScript = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
  const outdir = path.join(dir, 'dist');
  await fs.promises.mkdir(outdir, { recursive: true });
  for (const [name, source] of Object.entries(entryPoints)) {
    if (!buildScript.split(' ').includes(`${name}=${source}`)) throw new Error(`package.json's build script has no entry point ${name}=${source}; it runs: ${buildScript}`);
    await fs.promises.copyFile(path.join(bundleDist(), `${name}.mjs`), path.join(outdir, `${name}.mjs`));
  }
  return outdir;
}
