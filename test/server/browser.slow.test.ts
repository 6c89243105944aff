/**
 * The status page and the playground in a real browser: Debian's chromium (installed by
 * .ci/run), driven by playwright-core, against the server over the committed fixture snapshot.
 *
 * Without a chromium at CHROMIUM_PATH (default /usr/bin/chromium) the tests are skipped with one
 * line saying how to run them, so `npm test` passes on a fresh clone. With REQUIRE_BROWSER_TESTS set
 * (.ci/run and the GitHub workflow set it) a missing chromium fails the file instead: CI must
 * never pass without them.
 */

import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { createLogger } from '../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import type { StatusReport } from '../../server/ops/status.ts';
import { DATA_DIR, tempStateDir } from '../helpers/api.ts';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium';
const HOW_TO_RUN = `install Debian's chromium (apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH to a Chromium binary`;
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium) {
  if (process.env.REQUIRE_BROWSER_TESTS) throw new Error(`the browser tests need Chromium and REQUIRE_BROWSER_TESTS is set, but ${CHROMIUM_PATH} does not exist: ${HOW_TO_RUN}`);
  console.log(`browser tests skipped: no Chromium at ${CHROMIUM_PATH}; to run them, ${HOW_TO_RUN}`);
}

let running: RunningServer;
let browser: Browser;
let report: StatusReport;

describe.skipIf(!hasChromium)('in a browser', () => {
  beforeAll(async () => {
    running = await startServer(readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir() }), createLogger('silent'));
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    report = (await (await fetch(`${running.url}/api/status`)).json()) as StatusReport;
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  /** A new page that records console errors and failed requests (a CSP violation is both). */
  async function openPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`));
    return { page, problems };
  }

  describe('the status page in a browser', () => {
    it('shows the snapshot version and the count of every source, locale and area', async () => {
      const { page, problems } = await openPage();
      await page.goto(`${running.url}/`);
      expect(await page.textContent('#snapshot-version')).toBe(report.snapshot.version);
      let cells = 0;
      for (const source of report.sources) {
        for (const [locale, areas] of Object.entries(source.counts)) {
          for (const [area, count] of Object.entries(areas)) {
            const cell = page.locator(`td[data-source="${source.name}"][data-locale="${locale}"][data-area="${area}"]`);
            expect(await cell.textContent(), `${source.name} ${locale} ${area}`).toBe(count.toLocaleString('en-US'));
            cells++;
          }
        }
      }
      expect(cells).toBe(4 * 7);
      expect(await page.locator('li[data-operation]').count()).toBe(report.operations.length);
      expect(problems).toEqual([]);
      await page.close();
    });

    it('opens a sample query in the playground, which runs it and shows the result', async () => {
      const { page, problems } = await openPage();
      await page.goto(`${running.url}/`);
      await page.click('li[data-operation="types"] a:text("Types")');
      await page.waitForURL(/\/api\/graphql#query=/);
      const run = page.locator('.graphiql-execute-button');
      await run.waitFor({ timeout: 20_000 });
      await run.click();
      const result = page.locator('.result-window');
      await expect.poll(async () => result.textContent(), { timeout: 20_000 }).toContain('"types"');
      const text = (await result.textContent()) ?? '';
      expect(text).toContain('"slug"');
      expect(text).not.toContain('"errors"');
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});
