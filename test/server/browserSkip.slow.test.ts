/**
 * The browser tests on a machine without Chromium: vitest itself, run as `npm run test:all` runs
 * it, on test/server/browser.slow.test.ts with CHROMIUM_PATH naming nothing.
 */

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_DIST_VARIABLE, bundleDist } from '../helpers/bundle.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const MISSING = path.join(ROOT, 'no-such-chromium');

/** Runs the browser tests in a child vitest with `env` added to an environment without REQUIRE_BROWSER_TESTS, colours or vitest's own variables. */
function runBrowserTests(env: Record<string, string>): { status: number | null; output: string } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'REQUIRE_BROWSER_TESTS' && name !== 'FORCE_COLOR' && !name.startsWith('VITEST')));
  const child = spawnSync(process.execPath, [VITEST, 'run', 'test/server/browser.slow.test.ts'], {
    cwd: ROOT,
    // The child's run takes this run's bundle rather than building its own.
    env: { ...base, NO_COLOR: '1', [BUNDLE_DIST_VARIABLE]: bundleDist(), ...env },
    encoding: 'utf8',
  });
  return { status: child.status, output: child.stdout + child.stderr };
}

describe('the browser tests without Chromium', () => {
  it('are skipped with one line saying how to run them', () => {
    const run = runBrowserTests({ CHROMIUM_PATH: MISSING });
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain(`browser tests skipped: no Chromium at ${MISSING}; to run them, install Debian's chromium`);
    // Every test of the file is skipped: none passed or failed.
    expect(run.output).toMatch(/Tests\s+(\d+) skipped \(\1\)/);
  });

  it('fail when REQUIRE_BROWSER_TESTS is set, as CI sets it', () => {
    const run = runBrowserTests({ CHROMIUM_PATH: MISSING, REQUIRE_BROWSER_TESTS: '1' });
    expect(run.status).toBe(1);
    expect(run.output).toContain(`the browser tests need Chromium and REQUIRE_BROWSER_TESTS is set, but ${MISSING} does not exist`);
  });
});
