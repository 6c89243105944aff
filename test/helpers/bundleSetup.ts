/**
 * Vitest global setup of the `slow` project: runs `npm run build` once per test run, in a
 * directory of its own that holds only the build inputs the Dockerfile's build stage copies
 * ({@link BUILD_INPUTS}), and provides the dist directory it wrote to the tests
 * (`bundleDist()` in bundle.ts). The checkout's own dist/ is never touched.
 */

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { BUILD_INPUTS, BUNDLE_DIST_VARIABLE, REPO_ROOT } from './bundle.ts';

/** Builds the bundle and provides its dist directory as `bundleDist`; returns the teardown. */
export default function setup(project: TestProject): () => void {
  const built = process.env[BUNDLE_DIST_VARIABLE];
  if (built !== undefined) {
    if (!fs.existsSync(path.join(built, 'server.mjs'))) throw new Error(`${BUNDLE_DIST_VARIABLE}=${built}: no server.mjs there; it must name the dist directory of a bundle this run built`);
    project.provide('bundleDist', built);
    return () => {};
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-bundle-'));
  for (const input of BUILD_INPUTS) fs.cpSync(path.join(REPO_ROOT, input), path.join(dir, input), { recursive: true });
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const build = spawnSync('npm', ['run', 'build'], { cwd: dir, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}:\n${build.stdout}${build.stderr}`);
  project.provide('bundleDist', path.join(dir, 'dist'));
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
