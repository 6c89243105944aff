/**
 * Chromium for the browser tests: Debian's chromium at CHROMIUM_PATH (default /usr/bin/chromium),
 * driven by playwright-core. Without one, a test file is skipped with one line saying how to run
 * it, so `npm test` passes on a fresh clone; with REQUIRE_BROWSER_TESTS set (.ci/run and the GitHub
 * workflow set it) a missing chromium fails the file instead: CI must never pass without them.
 */

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium';
const HOW_TO_RUN = `install Debian's chromium (apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary`;

/** Where the browser tests save their screenshots, for a person to look at (SCREENSHOT_DIR overrides it). */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR?.trim() || path.resolve(import.meta.dirname, '../../test-results/screenshots');

/**
 * Whether Chromium is there; when it is not, says so in one line, or throws when
 * REQUIRE_BROWSER_TESTS is set.
 * @param tests what the calling file tests, for the messages ("browser tests", "map tests")
 */
export function chromiumPresent(tests: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.REQUIRE_BROWSER_TESTS) throw new Error(`the ${tests} need Chromium and REQUIRE_BROWSER_TESTS is set, but ${CHROMIUM_PATH} does not exist: ${HOW_TO_RUN}`);
  console.log(`${tests} skipped: no Chromium at ${CHROMIUM_PATH}; to run them, ${HOW_TO_RUN}`);
  return false;
}

/** Starts headless Chromium with nothing of its own reaching the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The path of a screenshot named `name` in SCREENSHOT_DIR, which it creates. */
export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, name);
}
