/**
 * The map page (/map) in a real browser: Debian's chromium, driven by playwright-core, against the
 * server over the committed fixture snapshot. Skipped without Chromium, as browser.slow.test.ts is
 * (and failing instead when REQUIRE_BROWSER_TESTS is set).
 */

import { writeFileSync } from 'node:fs';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { createLogger } from '../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import { DATA_DIR, IN_PROCESS, tempStateDir } from '../helpers/api.ts';
import { chromiumPresent, launchChromium, screenshotPath } from '../helpers/chromium.ts';

const hasChromium = chromiumPresent('map tests');

interface Collection {
  features: { id: string | number; properties: { title: string | null } }[];
  total: number;
  omitted: number;
  license?: string;
  attribution?: string;
}

let running: RunningServer;
let browser: Browser;

async function geojson(area: string, query = ''): Promise<Collection> {
  const response = await fetch(`${running.url}/api/geojson/${area}${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Collection;
}

describe.skipIf(!hasChromium)('the map page in a browser', () => {
  beforeAll(async () => {
    running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir() }), createLogger('silent'));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  /** A new page that records every request, console errors and failed requests. */
  async function openMap(): Promise<{ page: Page; requests: string[]; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`));
    await page.goto(`${running.url}/map`);
    return { page, requests, problems };
  }

  /** Waits until the page has drawn the answer to its last request. */
  async function drawn(page: Page, points: number): Promise<void> {
    await page.locator(`#map[data-state="ready"][data-points="${points}"]`).waitFor({ timeout: 20_000 });
  }

  /** The titles of the points drawn, read from each one's tooltip. */
  async function titlesOnMap(page: Page): Promise<string[]> {
    const titles: string[] = [];
    const markers = page.locator('path.map-point');
    for (let i = 0; i < (await markers.count()); i++) {
      await markers.nth(i).dispatchEvent('mouseover');
      titles.push((await page.locator('.leaflet-tooltip strong').textContent()) ?? '');
      await markers.nth(i).dispatchEvent('mouseout');
      // A closed tooltip fades out before it leaves the page.
      await page.locator('.leaflet-tooltip').waitFor({ state: 'detached' });
    }
    return titles;
  }

  it('draws the outline and one point per feature of the area, loading nothing from elsewhere', async () => {
    const { page, requests, problems } = await openMap();
    const all = await geojson('activities', '?locale=de-CH');
    expect(all.features.length).toBeGreaterThan(100);
    await drawn(page, all.features.length);
    expect(await page.locator('path.map-point').count()).toBe(all.features.length);
    expect(await page.locator('path.map-outline').count()).toBe(1);
    expect(all.omitted).toBe(all.total - all.features.length);
    expect(await page.locator('#status').textContent()).toBe(`${all.features.length} of ${all.total} on the map (${all.omitted} without coordinates)`);
    // The records' credit, as their source's terms ask, beside the outline's.
    expect(await page.locator('.leaflet-control-attribution').textContent()).toBe(`Outline: Natural Earth, ${all.attribution} (${all.license})`);

    const screenshot = await page.locator('body').screenshot();
    expect(screenshot.subarray(1, 4).toString('latin1')).toBe('PNG');
    writeFileSync(screenshotPath('map-activities.png'), screenshot);

    const origin = new URL(running.url).origin;
    expect(requests.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a search draws only the matching points, the expected one among them', async () => {
    const { page, requests, problems } = await openMap();
    const all = await geojson('activities');
    await drawn(page, all.features.length);
    const found = await geojson('activities', '?locale=de-CH&q=zermatt');
    expect(found.features.length).toBeGreaterThan(0);
    expect(found.features.length).toBeLessThan(all.features.length);
    expect(found.features.map((feature) => feature.properties.title)).toContain('Schlittelplausch in Zermatt');

    await page.fill('input[name=q]', 'zermatt');
    await page.press('input[name=q]', 'Enter');
    await drawn(page, found.features.length);
    expect(await page.locator('path.map-point').count()).toBe(found.features.length);
    expect((await titlesOnMap(page)).sort()).toEqual(found.features.map((feature) => feature.properties.title).sort());

    const origin = new URL(running.url).origin;
    expect(requests.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws a tour clicked as its line, with its elevation profile charted below the map', async () => {
    const { page, requests, problems } = await openMap();
    await drawn(page, (await geojson('activities')).features.length);
    // A tour with a line that a search for its name finds alone, so that its point is the one clicked.
    const tours = await geojson('tours', '?locale=de-CH&geometry=line&bbox=7.6,45.9,8.2,46.7');
    let chosen: { id: string | number; title: string; positions: number } | undefined;
    for (const feature of tours.features as unknown as { id: string; geometry: { type: string; coordinates: unknown[] }; properties: { title: string } }[]) {
      if (feature.geometry.type === 'Point') continue;
      const alone = await geojson('tours', `?locale=de-CH&q=${encodeURIComponent(feature.properties.title)}`);
      if (alone.features.length !== 1 || alone.features[0]!.id !== feature.id) continue;
      const parts = (feature.geometry.type === 'LineString' ? [feature.geometry.coordinates] : feature.geometry.coordinates) as unknown[][];
      chosen = { id: feature.id, title: feature.properties.title, positions: parts.reduce((sum, part) => sum + part.length, 0) };
      break;
    }
    expect(chosen, 'a tour with a line found alone by its name').toBeDefined();

    await page.selectOption('select[name=area]', 'tours');
    await page.fill('input[name=q]', chosen!.title);
    await page.press('input[name=q]', 'Enter');
    await drawn(page, 1);
    await page.locator('path.map-point').click();
    await page.locator(`#map[data-route="${chosen!.id}"]`).waitFor({ timeout: 20_000 });
    await page.locator('#profile[data-state="ready"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#map').getAttribute('data-route-positions')).toBe(String(chosen!.positions));
    expect(await page.locator('path.map-route').count()).toBeGreaterThan(0);
    expect(await page.locator('#profile').getAttribute('data-samples')).toBe('400');
    expect(await page.locator('#profile .profile-status').textContent()).toBe(chosen!.title);
    // The altitude line is drawn: pixels of its stroke colour (#7a1020) on the chart's canvas.
    type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const strokePixels = await page.locator('#profile canvas').evaluate((element) => {
      const canvas = element as unknown as Canvas;
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let at = 0; at < data.length; at += 4) if (Math.abs(data[at]! - 0x7a) < 24 && data[at + 1]! < 48 && Math.abs(data[at + 2]! - 0x20) < 24 && data[at + 3]! > 200) count++;
      return count;
    });
    expect(strokePixels).toBeGreaterThan(100);

    const screenshot = await page.locator('body').screenshot();
    expect(screenshot.subarray(1, 4).toString('latin1')).toBe('PNG');
    writeFileSync(screenshotPath('map-tour-route.png'), screenshot);

    // A new search clears the route and its chart.
    await page.fill('input[name=q]', '');
    await page.press('input[name=q]', 'Enter');
    await page.locator('#map[data-state="ready"]').waitFor({ timeout: 20_000 });
    await page.locator('#profile[hidden]').waitFor({ state: 'attached', timeout: 20_000 });
    expect(await page.locator('path.map-route').count()).toBe(0);

    const origin = new URL(running.url).origin;
    expect(requests.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    // The requests of an area left, or a search replaced, before they were answered are expected.
    expect(problems.filter((problem) => !problem.endsWith('net::ERR_ABORTED'))).toEqual([]);
    await page.close();
  });

  it('switches area and locale, and shows a refusal rather than stale points', async () => {
    const { page, problems } = await openMap();
    await drawn(page, (await geojson('activities')).features.length);
    const stations = await geojson('snowdataStations', '?locale=fr-CH');
    await page.selectOption('select[name=locale]', 'fr-CH');
    await page.selectOption('select[name=area]', 'snowdataStations');
    await drawn(page, stations.features.length);
    expect(await page.locator('path.map-point').count()).toBe(stations.features.length);

    await page.selectOption('select[name=area]', 'tours');
    await page.fill('input[name=q]', 'x'.repeat(300));
    await page.press('input[name=q]', 'Enter');
    await page.locator('#map[data-state="error"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('path.map-point').count()).toBe(0);
    expect(await page.locator('#status').textContent()).toMatch(/^q: /);
    // The refusal's 400, and the requests of an area left before they were answered, are expected.
    expect(problems.filter((problem) => !problem.includes('status of 400') && !problem.endsWith('net::ERR_ABORTED'))).toEqual([]);
    await page.close();
  });
});
