/**
 * Bundles as `npm run build` does (package.json's build script: its esbuild options, entry points
 * named as there), into `<dir>/dist`, for tests that run the bundle without touching the
 * checkout's dist/. The container test runs the build script itself.
 */

import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * @param entryPoints output name → source path relative to the repository (e.g. `{ sync: 'sync/main.ts' }`)
 * @returns the dist directory written
 */
export async function buildBundle(dir: string, entryPoints: Record<string, string>): Promise<string> {
  const outdir = path.join(dir, 'dist');
  await build({
    entryPoints: Object.fromEntries(Object.entries(entryPoints).map(([name, source]) => [name, path.join(root, source)])),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    outdir,
    define: { __filename: 'import.meta.filename' },
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return outdir;
}
