/**
 * Whose data a GeoJSON answer is, through real HTTP: each area's FeatureCollection carries its
 * list's `meta.license` and `meta.attribution` as top-level foreign members (RFC 7946 §6.1), as
 * the settings give them, and stays valid GeoJSON (@placemarkio/check-geojson).
 */

import { getIssues } from '@placemarkio/check-geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEOJSON_AREAS } from '../../../../server/http/geojson/areas.ts';
import { startTestApi, type TestApi } from '../../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

/** The settings of each area's source, overriding every default. */
const SETTINGS = {
  ACTIVITIES_LICENSE: 'https://partner.example.ch/terms',
  ACTIVITIES_ATTRIBUTION: 'Activities: Example AG',
  SNOWDATA_LICENSE: 'LicenseRef-Example-Snow',
  SNOWDATA_ATTRIBUTION: 'Snow report: Example',
  TOURS_LICENSE: 'CC-BY-4.0',
  TOURS_ATTRIBUTION: '© Example routes',
  ATTRACTIONS_LICENSE: 'ODbL-1.0',
  ATTRACTIONS_ATTRIBUTION: 'Sights: Exämple',
};

const EXPECTED: Record<string, { license: string; attribution: string }> = {
  activities: { license: SETTINGS.ACTIVITIES_LICENSE, attribution: SETTINGS.ACTIVITIES_ATTRIBUTION },
  snowdataStations: { license: SETTINGS.SNOWDATA_LICENSE, attribution: SETTINGS.SNOWDATA_ATTRIBUTION },
  snowdataRoutes: { license: SETTINGS.SNOWDATA_LICENSE, attribution: SETTINGS.SNOWDATA_ATTRIBUTION },
  tours: { license: SETTINGS.TOURS_LICENSE, attribution: SETTINGS.TOURS_ATTRIBUTION },
  attractions: { license: SETTINGS.ATTRACTIONS_LICENSE, attribution: SETTINGS.ATTRACTIONS_ATTRIBUTION },
};

let tiny: TinySnapshot;
let api: TestApi;

beforeAll(async () => {
  tiny = await createTinySnapshot();
  // Shedding load on a busy machine is not what this test is about.
  api = await startTestApi({ DATA_DIR: tiny.dir, ...SETTINGS });
});

afterAll(async () => {
  await api.close();
  await tiny.remove();
});

describe('GET /api/geojson/{area}', () => {
  it('serves every area this test covers', () => {
    expect([...GEOJSON_AREAS.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each([...GEOJSON_AREAS.keys()])("carries the terms of %s's list as foreign members, and stays valid GeoJSON", async (area) => {
    const response = await fetch(`${api.server.url}/api/geojson/${area}?locale=it-CH`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(getIssues(text)).toEqual([]);
    const body = JSON.parse(text) as { type: string; features: unknown[]; license: string; attribution: string };
    expect(body.type).toBe('FeatureCollection');
    expect(body.features.length).toBeGreaterThan(0);
    expect({ license: body.license, attribution: body.attribution }).toEqual(EXPECTED[area]);
    const list = await api.query(`{ ${area}(locale: "it-CH", limit: 0) { meta { license attribution } } }`);
    expect(list.data![area].meta).toEqual(EXPECTED[area]);
  });
});
