/**
 * Whose data an answer is, through real HTTP: every list's `meta.license` and `meta.attribution`,
 * an Activity's, Tour's and Attraction's own, from the settings' defaults, from settings that
 * override them, over a synced snapshot and over the committed fixture one (whose credits say it
 * is fixture data, and whose attractions state their licence per record).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE_TERMS } from '../../../server/config/sourceTerms.ts';
import { readArea, startTestApi, type TestApi } from '../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

const FIXTURE_NOTE = ' (fixture data, not from the upstream)';

/** Every list with a meta, and the records of the three that carry their own terms. */
const QUERY = `{
  activities(limit: 1) { meta { license attribution } data { id license attribution } }
  snowdataStations(limit: 1) { meta { license attribution } }
  snowdataRoutes(limit: 1) { meta { license attribution } }
  tours(limit: 1) { meta { license attribution } data { id license attribution } }
  attractions(limit: 1) { meta { license attribution } data { id license attribution } }
}`;

type Terms = { license: string; attribution: string };

/** The terms each list of {@link QUERY} answers, in its meta and on its records. */
function termsOf(data: Record<string, { meta: Terms; data?: (Terms & { id: string })[] }>) {
  return Object.fromEntries(Object.entries(data).map(([list, { meta, data: records }]) => [list, { meta, records: records?.map(({ license, attribution }) => ({ license, attribution })) }]));
}

describe('over a synced snapshot', () => {
  let tiny: TinySnapshot;
  beforeAll(async () => {
    tiny = await createTinySnapshot({ count: 1 });
  });
  afterAll(() => tiny.remove());

  it("answers each source's default terms in every list's meta and on each record", async () => {
    const api = await startTestApi({ DATA_DIR: tiny.dir });
    try {
      const { data, errors } = await api.query(QUERY);
      expect(errors).toBeUndefined();
      const partner = { license: 'LicenseRef-SwissActivities-Partner-Contract', attribution: 'Swiss Activities' };
      const stnet = { license: 'LicenseRef-STnet-Partner-Terms', attribution: 'Switzerland Tourism, STnet winter sports report' };
      const tours = { license: 'CC-BY-SA-4.0', attribution: 'Switzerland Tourism, MySwitzerland Open Data; SwitzerlandMobility for its routes' };
      const attractions = { license: 'CC-BY-SA-4.0', attribution: 'Switzerland Tourism, MySwitzerland Open Data' };
      expect(termsOf(data!)).toEqual({
        activities: { meta: partner, records: [partner] },
        snowdataStations: { meta: stnet, records: undefined },
        snowdataRoutes: { meta: stnet, records: undefined },
        tours: { meta: tours, records: [tours] },
        attractions: { meta: attractions, records: [attractions] },
      });
    } finally {
      await api.close();
    }
  });

  it('answers the terms the settings give in place of the defaults', async () => {
    const api = await startTestApi({
      DATA_DIR: tiny.dir,
      ACTIVITIES_LICENSE: 'https://partner.example.ch/terms',
      ACTIVITIES_ATTRIBUTION: 'Activities by Example AG',
      SNOWDATA_LICENSE: 'LicenseRef-Example-Snow',
      SNOWDATA_ATTRIBUTION: 'Snow report: Example',
      TOURS_LICENSE: 'CC-BY-4.0',
      TOURS_ATTRIBUTION: '© Example routes',
      ATTRACTIONS_LICENSE: 'ODbL-1.0',
      ATTRACTIONS_ATTRIBUTION: 'Sights: Exämple',
    });
    try {
      const { data, errors } = await api.query(QUERY);
      expect(errors).toBeUndefined();
      const activities = { license: 'https://partner.example.ch/terms', attribution: 'Activities by Example AG' };
      const snow = { license: 'LicenseRef-Example-Snow', attribution: 'Snow report: Example' };
      const tours = { license: 'CC-BY-4.0', attribution: '© Example routes' };
      const attractions = { license: 'ODbL-1.0', attribution: 'Sights: Exämple' };
      expect(termsOf(data!)).toEqual({
        activities: { meta: activities, records: [activities] },
        snowdataStations: { meta: snow, records: undefined },
        snowdataRoutes: { meta: snow, records: undefined },
        tours: { meta: tours, records: [tours] },
        attractions: { meta: attractions, records: [attractions] },
      });
    } finally {
      await api.close();
    }
  });

  it("answers a record's terms wherever the record is answered: by id and in search", async () => {
    const api = await startTestApi({ DATA_DIR: tiny.dir, TOURS_ATTRIBUTION: 'Routes: Example' });
    try {
      const { data: list } = await api.query('{ tours(limit: 1) { data { id name } } activities(limit: 1) { data { id } } }');
      const tourId = list!.tours.data[0].id as string;
      const { data, errors } = await api.query(
        `query($tour: String!, $activity: String!, $name: String!) {
          tour(id: $tour) { license attribution }
          activity(id: $activity) { license attribution }
          search(q: $name, limit: 50) { data { item { ... on Tour { id license attribution } } } }
        }`,
        { tour: tourId, activity: list!.activities.data[0].id, name: list!.tours.data[0].name },
      );
      expect(errors).toBeUndefined();
      expect(data!.tour).toEqual({ license: 'CC-BY-SA-4.0', attribution: 'Routes: Example' });
      expect(data!.activity).toEqual({ license: 'LicenseRef-SwissActivities-Partner-Contract', attribution: 'Swiss Activities' });
      const tours = (data!.search.data as { item: { id?: string } }[]).map(({ item }) => item).filter((item) => item.id !== undefined);
      expect(tours).toContainEqual({ id: tourId, license: 'CC-BY-SA-4.0', attribution: 'Routes: Example' });
      for (const tour of tours) expect(tour).toEqual({ id: tour.id, license: 'CC-BY-SA-4.0', attribution: 'Routes: Example' });
    } finally {
      await api.close();
    }
  });
});

describe('over the committed fixture snapshot', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ATTRACTIONS_LICENSE: 'ODbL-1.0' });
  });
  afterAll(() => api.close());

  it("says in every attribution, as meta.source does, that it is fixture data", async () => {
    const { data, errors } = await api.query(QUERY);
    expect(errors).toBeUndefined();
    const lists: Record<string, keyof typeof DEFAULT_SOURCE_TERMS> = { activities: 'activities', snowdataStations: 'snowdata', snowdataRoutes: 'snowdata', tours: 'tours', attractions: 'attractions' };
    for (const [list, source] of Object.entries(lists)) {
      expect(data![list].meta.attribution, list).toBe(`${DEFAULT_SOURCE_TERMS[source].attribution}${FIXTURE_NOTE}`);
      for (const record of data![list].data ?? []) expect(record.attribution, list).toBe(`${DEFAULT_SOURCE_TERMS[source].attribution}${FIXTURE_NOTE}`);
    }
  });

  it('answers the licence an attraction states on its record, before the setting the meta answers', async () => {
    const { data, errors } = await api.query('{ attractions(limit: 500, locale: "en-CH") { meta { license } data { id license } } }');
    expect(errors).toBeUndefined();
    expect(data!.attractions.meta.license).toBe('ODbL-1.0');
    const stated = new Map(readArea('en-CH', 'attractions').map((record) => [record.id, record.upstreamLicense]));
    const answered = data!.attractions.data as { id: string; license: string }[];
    expect(answered.length).toBe(500);
    // The fixture generator's records state CC BY-SA 4.0, as every real one does.
    for (const { id, license } of answered) expect(license, id).toBe(stated.get(id) ?? 'ODbL-1.0');
    expect(answered.filter(({ license }) => license === 'CC-BY-SA-4.0').length).toBeGreaterThan(0);
  });
});
