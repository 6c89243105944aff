import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/**
 * Reads a file a package ships, for a page the service serves: from `bundledDir/` beside the
 * server bundle when it is there (`npm run build` copies such files into dist/, which runs
 * without node_modules), else from the package in node_modules (resolved from this file, so any
 * working directory will do).
 *
 * @param bundledDir the folder of dist/ the build copies the file into (by its base name)
 * @param file the file's path inside the package
 * @throws Error when neither copy can be read (a missing or changed package)
 */
export function readPackageFile(bundledDir: string, packageName: string, file: string): Buffer {
  const bundled = new URL(`${bundledDir}/${basename(file)}`, import.meta.url);
  if (existsSync(bundled)) return readFileSync(bundled);
  // Not every file is in a package's "exports", but package.json is.
  const packageJson = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
  return readFileSync(join(dirname(packageJson), file));
}
