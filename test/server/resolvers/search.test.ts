import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArea, startTestApi, type TestApi } from '../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

/** The `search` field through real HTTP, over the committed fixture snapshot (data/). */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const HITS = `query Search($q: String!, $locale: String, $areas: [String!], $limit: Int, $offset: Int, $nearLat: Float, $nearLng: Float, $bbox: [Float!]) {
  search(q: $q, locale: $locale, areas: $areas, limit: $limit, offset: $offset, nearLat: $nearLat, nearLng: $nearLng, bbox: $bbox) {
    total hasMore data { area id title score snippet latitude longitude }
  }
}`;

interface Hit {
  area: string;
  id: string;
  title: string;
  score: number;
  snippet: string;
  latitude: number | null;
  longitude: number | null;
}

async function search(variables: Record<string, unknown>): Promise<{ total: number; hasMore: boolean; data: Hit[] }> {
  const response = await api.query(HITS, variables);
  expect(response.errors).toBeUndefined();
  return response.data!.search;
}

/** "area title" of the first `count` hits. */
async function top(variables: Record<string, unknown>, count: number): Promise<string[]> {
  const { data } = await search({ ...variables, limit: count });
  return data.map((hit) => `${hit.area} ${hit.title}`);
}

describe('search: what a user types into a portal search box finds at the top', () => {
  it('"grindelwald" finds the station Grindelwald first (exact title), then the attraction that starts with it', async () => {
    expect(await top({ q: 'grindelwald' }, 2)).toEqual(['snowdataStations Grindelwald', 'attractions Grindelwald First']);
  });

  it('"grindelwald first" finds the attraction Grindelwald First first', async () => {
    expect((await top({ q: 'grindelwald first' }, 1))[0]).toBe('attractions Grindelwald First');
  });

  it('"Grindelwlad" (a typo) still finds places called Grindelwald, scored as a typo', async () => {
    const { data } = await search({ q: 'Grindelwlad', limit: 5 });
    expect(data).toHaveLength(5);
    for (const hit of data) {
      expect(hit.title).toContain('Grindelwald');
      expect(Math.floor(hit.score)).toBe(1);
    }
  });

  it('"saas fee" finds the station Saas-Fee first', async () => {
    expect((await top({ q: 'saas fee' }, 1))[0]).toBe('snowdataStations Saas-Fee');
  });

  it('"zermatt" finds only records named after Zermatt at the top', async () => {
    const { data, total } = await search({ q: 'zermatt', limit: 10 });
    expect(total).toBeGreaterThan(10);
    for (const hit of data) expect(hit.title).toContain('Zermatt');
  });

  it('"schlitteln" finds sledging runs first, by the word for their type', async () => {
    const { data } = await search({ q: 'schlitteln', limit: 5 });
    expect(data.map((hit) => hit.area)).toEqual(Array(5).fill('snowdataRoutes'));
    const sledging = new Set(readArea('de-CH', 'routes').filter((route) => route.type === 'sledging').map((route) => route.id));
    for (const hit of data) expect(sledging.has(hit.id)).toBe(true);
  });

  it('"zurich" (without its umlaut) and "zuerich" both find Zürich Opera House among the first', async () => {
    expect(await top({ q: 'zurich' }, 6)).toContain('attractions Zürich Opera House');
    expect((await top({ q: 'zuerich' }, 1))[0]).toBe('attractions Zürich Opera House');
  });

  it('"moleson" (without its accent) finds Moléson first, then the station Moléson Gruyères', async () => {
    const titles = await top({ q: 'moleson' }, 2);
    expect(titles[0]).toMatch(/^attractions Moléson – /);
    expect(titles[1]).toBe('snowdataStations Moléson Gruyères');
  });

  it('"gru" (a prefix of three letters) finds the station Grüsch-Danusa, then Gruyère Golden Express', async () => {
    expect(await top({ q: 'gru' }, 2)).toEqual(['snowdataStations Grüsch-Danusa', 'attractions Gruyère Golden Express']);
  });

  it('"davos", "engelberg", "arosa" and "aletsch" find their ski station first', async () => {
    expect((await top({ q: 'davos' }, 1))[0]).toBe('snowdataStations Davos-Klosters');
    expect((await top({ q: 'engelberg' }, 1))[0]).toBe('snowdataStations Engelberg Titlis');
    expect((await top({ q: 'arosa' }, 1))[0]).toBe('snowdataStations Arosa Lenzerheide');
    expect((await top({ q: 'aletsch' }, 1))[0]).toBe('snowdataStations Aletsch Region');
  });

  it('"luge" in French finds the summer toboggan runs named Luge first', async () => {
    for (const title of await top({ q: 'luge', locale: 'fr-CH' }, 3)) expect(title).toMatch(/^attractions Luge sur rails /);
  });

  it('"slittino" in Italian finds the night sledging activities first', async () => {
    for (const title of await top({ q: 'slittino', locale: 'it-CH' }, 3)) expect(title).toMatch(/^activities Slittino notturno con fonduta ad? /);
  });

  it('"raquettes" in French finds snowshoe trails', async () => {
    for (const title of await top({ q: 'raquettes', locale: 'fr-CH' }, 5)) expect(title).toMatch(/ Parcours raquettes /);
  });

  it('"lugano" in English finds attractions called Lugano first', async () => {
    for (const title of await top({ q: 'lugano', locale: 'en-CH' }, 5)) expect(title).toMatch(/^attractions Lugano/);
  });

  it('"gleitschirm" finds the paragliding taster courses, most popular first', async () => {
    const { data } = await search({ q: 'gleitschirm', areas: ['activities'], limit: 3 });
    expect(data.map((hit) => hit.title)).toEqual(['Gleitschirm-Schnupperkurs in Lauterbrunnen', 'Gleitschirm-Schnupperkurs in Pontresina', 'Gleitschirm-Schnupperkurs in Fiesch']);
  });

  it('"st moritz" finds records named St. Moritz', async () => {
    for (const title of await top({ q: 'st moritz' }, 5)) expect(title).toContain('St. Moritz');
  });

  it('"lauterbrunnen wasserfall" finds the one waterfall by both words', async () => {
    expect(await search({ q: 'lauterbrunnen wasserfall' })).toMatchObject({ total: 1, hasMore: false, data: [{ area: 'attractions', title: 'Wasserfall bei Lauterbrunnen' }] });
  });

  it('"rodelbahn" near Grindelwald finds the Rodelbahn Grindelwald first, nearer ones before farther', async () => {
    const near = await top({ q: 'rodelbahn', nearLat: 46.624, nearLng: 8.041 }, 3);
    expect(near[0]).toBe('attractions Rodelbahn Grindelwald');
    const far = await top({ q: 'rodelbahn', nearLat: 46.0207, nearLng: 7.7491 }, 1);
    expect(far[0]).not.toBe('attractions Rodelbahn Grindelwald');
  });

  it("gives each hit its record's coordinates (null when it has none), and scores that never rise down the page", async () => {
    const { data } = await search({ q: 'grindelwald', limit: 20 });
    const station = readArea('de-CH', 'stations').find((record) => String(record.id) === data[0]!.id)!;
    const attraction = readArea('de-CH', 'attractions').find((record) => record.id === data[1]!.id)!;
    expect(data[0]).toMatchObject({ latitude: station.latitude, longitude: station.longitude });
    expect(data[1]).toMatchObject({ latitude: attraction.latitude, longitude: attraction.longitude });
    expect(attraction.latitude).toEqual(expect.any(Number));
    for (let i = 1; i < data.length; i++) expect(data[i]!.score).toBeLessThanOrEqual(data[i - 1]!.score);
  });

  it('searches only the areas asked for', async () => {
    const { data } = await search({ q: 'grindelwald', areas: ['tours', 'attractions'], limit: 20 });
    expect(new Set(data.map((hit) => hit.area))).toEqual(new Set(['tours', 'attractions']));
  });
});

/** The Lauterbrunnen valley, [west, south, east, north]. */
const VALLEY = [7.85, 46.5, 8.0, 46.65] as const;
const BBOX_RULE = 'allowed: [west, south, east, north] in degrees, west < east, south < north, longitudes -180 to 180, latitudes -90 to 90';

function inValley(hit: Hit): boolean {
  const [west, south, east, north] = VALLEY;
  return hit.longitude !== null && hit.latitude !== null && hit.longitude >= west && hit.longitude <= east && hit.latitude >= south && hit.latitude <= north;
}

/** Every hit a search can page through: its first 100. */
async function allHits(variables: Record<string, unknown>): Promise<{ total: number; data: Hit[] }> {
  const first = await search({ ...variables, limit: 50 });
  const second = await search({ ...variables, limit: 50, offset: 50 });
  return { total: first.total, data: [...first.data, ...second.data] };
}

describe('search: map view (bbox)', () => {
  it('answers the hits in a valley, in the order and with the scores they have without the box, and counts only those', async () => {
    const everywhere = await allHits({ q: 'wasserfall' });
    // Every match is a hit: the box's answer can be told from them.
    expect(everywhere.total).toBe(everywhere.data.length);
    const expected = everywhere.data.filter(inValley);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(everywhere.total);
    expect(await allHits({ q: 'wasserfall', bbox: VALLEY })).toEqual({ total: expected.length, data: expected });
  });

  it('takes the best matches inside the box, beyond those the search reaches without it', async () => {
    const everywhere = await allHits({ q: 'berg' });
    expect(everywhere.total).toBeGreaterThan(everywhere.data.length);
    const boxed = await allHits({ q: 'berg', bbox: VALLEY });
    expect(boxed.data.length).toBeGreaterThan(0);
    for (const hit of boxed.data) expect(inValley(hit)).toBe(true);
    expect(boxed.total).toBe(boxed.data.length);
    expect(boxed.total).toBeLessThan(everywhere.total);
    expect(boxed.total).toBeGreaterThan(everywhere.data.filter(inValley).length);
  });

  it('places a winter route where the list places it: the same latitude and longitude', async () => {
    const response = await api.query(
      `{ search(q: "schlitteln", areas: ["snowdataRoutes"], limit: 50) { data { latitude longitude item { ... on SnowdataRoute { latitude longitude } } } } }`,
    );
    const hits = response.data!.search.data as { latitude: number | null; longitude: number | null; item: { latitude: number | null; longitude: number | null } }[];
    expect(hits.filter((hit) => hit.latitude !== null).length).toBeGreaterThan(0);
    for (const { latitude, longitude, item } of hits) expect(item).toEqual({ latitude, longitude });
  });
});

describe('search: snippets', () => {
  it('mark the matched words in the title', async () => {
    const { data } = await search({ q: 'grindelwald first', limit: 1 });
    expect(data[0]!.snippet).toBe('<mark>Grindelwald</mark> <mark>First</mark>');
  });

  it('mark a word found with a typo or without its umlaut as written', async () => {
    expect((await search({ q: 'zuerich opera', limit: 1 })).data[0]!.snippet).toBe('<mark>Zürich</mark> <mark>Opera</mark> House');
  });
});

describe('search: item', () => {
  it('selects the full record of each union member', async () => {
    const query = `query Items($q: String!, $areas: [String!]) {
  search(q: $q, areas: $areas, limit: 1) { data { area id item {
    __typename
    ... on Activity { id title summary { popularity } }
    ... on SnowdataStation { stationId: id name info { altitude } }
    ... on SnowdataRoute { id type number }
    ... on Tour { id name routeType }
    ... on Attraction { id name seasons }
  } } }
}`;
    const cases = [
      ['activities', 'gleitschirm', 'Activity'],
      ['snowdataStations', 'grindelwald', 'SnowdataStation'],
      ['snowdataRoutes', 'schlitteln', 'SnowdataRoute'],
      ['tours', 'grindelwald', 'Tour'],
      ['attractions', 'grindelwald', 'Attraction'],
    ] as const;
    for (const [area, q, typename] of cases) {
      const response = await api.query(query, { q, areas: [area] });
      expect(response.errors).toBeUndefined();
      const hit = response.data!.search.data[0];
      expect(hit.item.__typename).toBe(typename);
      expect(String(hit.item.id ?? hit.item.stationId)).toBe(hit.id);
      const record = readArea('de-CH', area === 'snowdataStations' ? 'stations' : area === 'snowdataRoutes' ? 'routes' : area).find((r) => String(r.id) === hit.id)!;
      const expected: Record<string, unknown> = {
        Activity: { title: (record as any).title, summary: { popularity: (record as any).summary?.popularity } },
        SnowdataStation: { name: (record as any).name, info: { altitude: (record as any).info?.altitude } },
        SnowdataRoute: { type: (record as any).type, number: (record as any).number },
        Tour: { name: (record as any).name, routeType: (record as any).routeType },
        Attraction: { name: (record as any).name, seasons: (record as any).seasons },
      }[typename]!;
      expect(hit.item).toMatchObject(expected as object);
    }
  });
});

describe('search: paging', () => {
  it('cuts pages from one ranking: two pages of 5 are the page of 10', async () => {
    const all = await search({ q: 'zermatt', limit: 10 });
    const first = await search({ q: 'zermatt', limit: 5 });
    const second = await search({ q: 'zermatt', limit: 5, offset: 5 });
    expect([...first.data, ...second.data]).toEqual(all.data);
    expect(first.total).toBe(all.total);
    expect(first.hasMore).toBe(true);
  });

  it('counts every match in total, and says no next page past the last hit', async () => {
    const { total, hasMore, data } = await search({ q: 'lauterbrunnen wasserfall', limit: 0 });
    expect({ total, hasMore, data }).toEqual({ total: 1, hasMore: true, data: [] });
    expect(await search({ q: 'lauterbrunnen wasserfall', offset: 1 })).toEqual({ total: 1, hasMore: false, data: [] });
  });

  it('has no next page once offset + limit reaches 100', async () => {
    const { hasMore, data } = await search({ q: 'zermatt', limit: 50, offset: 50 });
    expect(data.length).toBeGreaterThan(0);
    expect(hasMore).toBe(false);
  });
});

describe('search: refusals', () => {
  it.each(
    (
      [
        [{ q: 'x', areas: ['hotels'] }, 'areas: "hotels" is not an area; allowed: activities, snowdataStations, snowdataRoutes, tours, attractions'],
        [{ q: 'x', areas: [] }, 'areas: is empty; allowed: null for every area, or some of activities, snowdataStations, snowdataRoutes, tours, attractions'],
        [{ q: 'x', locale: 'de-DE' }, 'locale: "de-DE" is not supported; allowed: de-CH, en-CH, fr-CH, it-CH'],
        [{ q: '   ' }, 'q: has no word to search for; allowed: text with at least one letter or digit'],
        [{ q: '?!' }, 'q: has no word to search for; allowed: text with at least one letter or digit'],
        [{ q: 'a'.repeat(201) }, 'q: 201 characters is too long; allowed: at most 200'],
        [{ q: 'x', limit: 51 }, 'limit: 51 is out of range; allowed: 0 to 50'],
        [{ q: 'x', offset: -1 }, 'offset: -1 is out of range; allowed: 0 or more'],
        [{ q: 'x', offset: 95, limit: 10 }, 'offset + limit: 95 + 10 reaches past hit 100; allowed: at most 100'],
        [{ q: 'x', nearLat: 46.6 }, 'nearLat and nearLng must be given together; got only nearLat'],
        [{ q: 'x', nearLat: 91, nearLng: 8 }, 'nearLat: 91 is out of range; allowed: -90 to 90'],
        [{ q: 'x', nearLat: 46, nearLng: 181 }, 'nearLng: 181 is out of range; allowed: -180 to 180'],
        [{ q: 'x', bbox: [7.8, 46.5, 8.0] }, `bbox: got 3 numbers, expected exactly 4; ${BBOX_RULE}`],
        [{ q: 'x', bbox: [8.0, 46.5, 7.8, 46.6] }, `bbox: west 8 is not less than east 7.8 (a box across the antimeridian is not supported); ${BBOX_RULE}`],
        [{ q: 'x', bbox: [7.8, 46.5, 8.0, 91] }, `bbox: north 91 is not a latitude; ${BBOX_RULE}`],
      ] as [Record<string, unknown>, string][]
    ).map(([variables, message]) => [message, variables] as const),
  )('refuses with BAD_USER_INPUT naming the rule: %s', async (message, variables) => {
    const response = await api.query(HITS, variables);
    expect(response).toEqual({ errors: [expect.objectContaining({ message, extensions: { code: 'BAD_USER_INPUT' } })] });
  });

  it('refuses a bad argument before any other field of the request runs', async () => {
    const response = await api.query(`{ tours(limit: 1) { total } search(q: "x", limit: 500) { total } }`);
    expect(response.data).toBeUndefined();
    expect(response.errors).toEqual([expect.objectContaining({ message: 'limit: 500 is out of range; allowed: 0 to 50' })]);
  });

  it('counts the item selections of every hit in the cost limit', async () => {
    const fields = Array.from({ length: 40 }, (_, i) => `f${i}: name`).join(' ');
    const response = await api.query(`{ search(q: "grindelwald", limit: 50) { data { item { ... on Tour { ${fields} } ... on Attraction { ${fields} } } } } }`);
    expect(response.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });
});

describe('search: caching', () => {
  it('answers a GET with an ETag and the Cache-Control of the other queries, and 304 to its ETag', async () => {
    const url = `${api.server.url}/api/graphql?query=${encodeURIComponent('{ search(q: "zermatt") { total data { id title } } }')}`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"/);
    const again = await fetch(url, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});

describe('search: escaping', () => {
  let snapshot: TinySnapshot;
  let tiny: TestApi;
  beforeAll(async () => {
    snapshot = await createTinySnapshot({ firstAttractionName: 'Fondue <script>alert(1)</script> & "Raclette"' });
    tiny = await startTestApi({ DATA_DIR: snapshot.dir });
  });
  afterAll(async () => {
    await tiny.close();
    await snapshot.remove();
  });

  it('escapes a title with markup and marks only the matched words', async () => {
    const response = await tiny.query(`{ search(q: "fondue script") { data { title snippet } } }`);
    expect(response).toEqual({
      data: {
        search: {
          data: [
            {
              title: 'Fondue <script>alert(1)</script> & "Raclette"',
              snippet: '<mark>Fondue</mark> &lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt; &amp; &quot;Raclette&quot;',
            },
          ],
        },
      },
    });
  });
});
