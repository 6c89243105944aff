/**
 * The status page, the playground and the booking docs in a real browser: Debian's chromium
 * (installed by .ci/run), driven by playwright-core, against the server over the committed
 * fixture snapshot. Each test saves a screenshot of what it checked in test-results/screenshots/
 * (SCREENSHOT_DIR), for a person to look at; no test compares them.
 * Without Chromium they are skipped, or fail under REQUIRE_BROWSER_TESTS (test/helpers/chromium.ts).
 */

import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { createLogger } from '../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import type { StatusReport } from '../../server/ops/status.ts';
import { DATA_DIR, IN_PROCESS, tempStateDir } from '../helpers/api.ts';
import { chromiumPresent, launchChromium, screenshotPath } from '../helpers/chromium.ts';

const hasChromium = chromiumPresent('browser tests');

let running: RunningServer;
let browser: Browser;
let report: StatusReport;

describe.skipIf(!hasChromium)('in a browser', () => {
  beforeAll(async () => {
    running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir() }), createLogger('silent'));
    browser = await launchChromium();
    report = (await (await fetch(`${running.url}/api/status`)).json()) as StatusReport;
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  /**
   * A new page, in a browser context of its own (no stored state), that records console errors
   * and failed requests (a CSP violation is both), and every URL it requests.
   */
  async function openPage(): Promise<{ page: Page; problems: string[]; requested: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.url()}: ${response.status()}`);
    });
    page.on('request', (request) => requested.push(request.url()));
    return { page, problems, requested };
  }

  /** Saves what the page shows as `<name>.png` in SCREENSHOT_DIR: the window, or with `fullPage` the whole page. */
  async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
    await page.screenshot({ path: screenshotPath(`${name}.png`), fullPage });
  }

  /** The URLs among `requested` that leave this server; data: and blob: URLs never leave the page. */
  function leavingServer(requested: readonly string[]): string[] {
    return requested.filter((url) => !url.startsWith(`${running.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
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
      await screenshot(page, 'status', true);
      await page.close();
    });

    it("shows the operations' descriptions with their code rendered, no backticks", async () => {
      const { page, problems } = await openPage();
      await page.goto(`${running.url}/`);
      const activities = page.locator('li[data-operation="activities"]');
      expect(await activities.locator('p code').allTextContents()).toContain('summary.rankingScoreValue');
      const operations = await page.locator('li[data-operation]').allTextContents();
      expect(operations.filter((text) => text.includes('`'))).toEqual([]);
      expect(problems).toEqual([]);
      await activities.screenshot({ path: screenshotPath('status-operation.png') });
      await page.close();
    });

    it('links the booking docs, the playground and the schema, each of which opens', async () => {
      const { page, problems } = await openPage();
      const opens: Record<string, (target: Page) => Promise<void>> = {
        'Booking API docs': async (target) => {
          await target.getByText('Hold places for 15 minutes').first().waitFor({ timeout: 20_000 });
        },
        Playground: async (target) => {
          await target.locator('.graphiql-execute-button').waitFor({ timeout: 20_000 });
        },
        'Schema (SDL)': async (target) => {
          expect(await target.textContent('body')).toContain('type Query {');
        },
      };
      for (const [label, check] of Object.entries(opens)) {
        await page.goto(`${running.url}/`);
        const [response] = await Promise.all([page.waitForNavigation(), page.click(`nav a:text-is("${label}")`)]);
        expect(response?.status(), label).toBe(200);
        await check(page);
        // Leave only once the page has loaded everything it asks for (Redoc starts its search
        // worker from a blob: URL after rendering): a request cut short by leaving is no problem
        // of the page's.
        await page.waitForLoadState('networkidle');
      }
      // The SDL is plain text, which cannot name an icon: the browser asks for /favicon.ico, which this API does not serve.
      expect(problems.filter((problem) => !problem.endsWith(`${running.url}/favicon.ico)`))).toEqual([]);
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

  describe('the playground in a browser', () => {
    it('opens with a tab per sample query, the first formatted over several lines and ready to run', async () => {
      const samples = (await (await fetch(`${running.url}/api/schema?format=queries`)).json()) as { name: string }[];
      const { page, problems, requested } = await openPage();
      await page.goto(`${running.url}/api/graphql`);
      const run = page.locator('.graphiql-execute-button');
      await run.waitFor({ timeout: 20_000 });
      const tabs = page.locator('.graphiql-tab .graphiql-tab-button');
      expect(await tabs.count()).toBe(samples.length);
      expect(samples.length).toBeGreaterThan(3);
      expect((await tabs.allTextContents()).map((text) => text.trim())).toEqual(samples.map((sample) => sample.name));
      expect(await page.locator('.graphiql-tab-active').textContent()).toContain(samples[0]!.name);
      const query = await page.locator('.graphiql-query-editor .CodeMirror').evaluate((editor) => (editor as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
      expect(query.split('\n').length).toBeGreaterThan(5);
      expect(query).toMatch(/^query TopActivities\(\$locale: String\) \{\n  activities\(locale: \$locale, limit: 5\) \{\n/);
      await run.click();
      const result = page.locator('.result-window');
      await expect.poll(async () => result.textContent(), { timeout: 20_000 }).toContain('"activities"');
      const text = (await result.textContent()) ?? '';
      expect(text).toContain('"rankingScoreValue"');
      expect(text).not.toContain('"errors"');
      expect(problems).toEqual([]);
      expect(leavingServer(requested)).toEqual([]);
      await screenshot(page, 'playground');
      await page.close();
    });
  });

  describe('the booking docs in a browser', () => {
    it("render the booking document's operations, with no request leaving the server", async () => {
      const { page, problems, requested } = await openPage();
      await page.goto(`${running.url}/v1/docs`);
      for (const summary of ['List activities', 'Hold places for 15 minutes', 'Check a cart out', 'Pay a booking', 'A booking with its tickets', 'Cancel a booking item']) {
        await page.getByText(summary).first().waitFor({ timeout: 20_000 });
      }
      expect(await page.title()).toContain('Booking interface');
      // The search index runs in a worker made from a blob: URL, which the page's CSP allows.
      await page.fill('input[placeholder="Search..."]', 'ticket');
      const results = page.locator('[data-role="search:results"] [role="menuitem"]');
      await expect.poll(async () => results.evaluateAll((items) => items.map((item) => item.getAttribute('aria-label'))), { timeout: 20_000 }).toContain('A ticket as a PDF');
      expect(requested).toContain(`${running.url}/v1/openapi.json`);
      expect(leavingServer(requested)).toEqual([]);
      expect(problems).toEqual([]);
      await screenshot(page, 'booking-docs');
      await page.close();
    });
  });
});
