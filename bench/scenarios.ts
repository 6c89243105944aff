/**
 * The HTTP scenarios of `npm run bench` and the matrix they run in: each scenario
 * with the response cache off and on, with one worker and with every core, at the fixture
 * scale; the uncached runs again at 10x, where the cost of the data shows.
 */

import type { SampleQuery } from '../server/ops/sampleQueries.ts';

/** The GraphQL endpoint of the real server (server/http/graphql/route.ts GRAPHQL_PATH). */
const GRAPHQL_PATH = '/api/graphql';

/** One request a benchmark connection sends. */
export interface BenchRequest {
  /** Operation name, for the report. */
  name: string;
  method: 'GET' | 'POST';
  /** Path with the query string. */
  path: string;
  headers: Record<string, string>;
  /** JSON body of a POST; empty for a GET. */
  body: string;
}

export interface Scenario {
  name: string;
  description: string;
  /** GET scenarios run with one worker only: they differ from POST only in parsing. */
  method: 'GET' | 'POST';
  /**
   * Every request a document the server has not seen lately: more documents than the operation
   * cache keeps, sent in one rotation shared by every connection (bench/paired.ts), so that none
   * comes back before thousands of others. Such a scenario runs with the response cache off
   * only, since a request never repeated is never answered from it.
   */
  unseen?: boolean;
  /**
   * The requests each connection cycles through.
   * @param samples the server's sample queries (`/api/schema?format=queries`), whose ids come
   *   from the snapshot being served
   * @throws Error when a sample the scenario needs is missing
   */
  requests(samples: readonly SampleQuery[]): BenchRequest[];
}

/** How the real server runs: its dataset and the settings passed in its environment. */
export interface ServerSetup {
  /** 1 for the committed fixture snapshot in data/, 10 for bench/data/x10. */
  scale: number;
  /** RESPONSE_CACHE=1 or 0. */
  responseCache: boolean;
  /** WORKERS=N. */
  workers: number;
}

/** One server start and the scenarios measured against it. */
export interface PlannedRun {
  setup: ServerSetup;
  scenarios: Scenario[];
}

// graphql-http answers application/graphql-response+json when asked first
// (https://graphql.github.io/graphql-over-http/draft/#sec-Accept).
const ACCEPT = 'application/graphql-response+json, application/json';

function post(name: string, query: string, variables: Record<string, unknown> = {}): BenchRequest {
  return {
    name,
    method: 'POST',
    path: GRAPHQL_PATH,
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({ query, variables, operationName: name }),
  };
}

function get(name: string, query: string): BenchRequest {
  const search = new URLSearchParams({ query, operationName: name });
  return { name, method: 'GET', path: `${GRAPHQL_PATH}?${search}`, headers: { accept: ACCEPT }, body: '' };
}

const ACTIVITY_LIST = `query ActivityList {
  activities { total hasMore data { id title isBookable nextAvailableDate summary { startingPrice { formatted } } location { title } type { title } } }
}`;

/** The fields of a page of tours in `tours-list` and `tours-faceted`. */
const TOURS_PAGE_FIELDS = 'id name difficulty duration ascent distance startPoint';

/** A filtered, sorted and faceted first page (`tours-faceted`; bench/micro.ts measures it in process). */
export const TOURS_FACETED = `query ToursFaceted {
  tours(routeType: "hike", maxDuration: 240, sort: ASCENT_DESC, limit: 20) {
    total data { ${TOURS_PAGE_FIELDS} }
    facets(fields: [DIFFICULTY, IS_ROUNDTRIP, LANDSCAPE], maxValues: 10) { field values { value count } }
  }
}`;

/** The boxes of the bbox scenario, `[west, south, east, north]` in degrees. */
const MAP_VIEWS = [
  { name: 'Valley', bbox: [7.85, 46.5, 8.0, 46.65] },
  { name: 'Country', bbox: [5.9, 45.8, 10.5, 47.9] },
] as const;

/** A map view's request for tours in a box, with a text query when `q` is given. */
function toursInBox(name: string, bbox: readonly number[], q: string | null): BenchRequest {
  const query = `query ${name}($bbox: [Float!]${q === null ? '' : ', $q: String'}) {
  tours(bbox: $bbox${q === null ? '' : ', q: $q'}, locale: "de-CH", limit: 20) { total data { id name latitude longitude routeType } }
}`;
  return post(name, query, q === null ? { bbox } : { bbox, q });
}

function sample(samples: readonly SampleQuery[], name: string): SampleQuery {
  const found = samples.find((s) => s.name === name);
  if (!found) throw new Error(`sample query "${name}" not found; the server offers ${samples.map((s) => s.name).join(', ')}`);
  return found;
}

/** Documents in a scenario of unseen documents: four times the default OPERATION_CACHE_SIZE. */
export const UNSEEN_DOCUMENTS = 4000;

/** A pseudo-random generator (mulberry32): the same documents in every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Scalar fields of Tour that a client may pick (schema.graphql). */
const TOUR_FIELDS = [
  'abstract', 'url', 'routeType', 'routeCategory', 'difficulty', 'season', 'latitude', 'longitude', 'startPoint', 'endPoint',
  'distance', 'duration', 'ascent', 'descent', 'minAltitude', 'maxAltitude', 'isRoundtrip', 'isBarrierFree', 'imageUrl', 'origin',
];

/**
 * A map client panning across Switzerland: hikes within 30 km of a point written into the
 * document, a different point each request (20 × 7 fields, as `tours-near`).
 */
function panningRequests(): BenchRequest[] {
  const random = seeded(46);
  return Array.from({ length: UNSEEN_DOCUMENTS }, () => {
    const lat = (45.9 + random() * 1.8).toFixed(5);
    const lng = (6.1 + random() * 4.2).toFixed(5);
    return post(
      'HikesNearHere',
      `query HikesNearHere {
  tours(routeType: "hike", nearLat: ${lat}, nearLng: ${lng}, radiusKm: 30, limit: 20) { total data { id name distance_km difficulty duration ascent startPoint } }
}`,
    );
  });
}

/** Tours with a selection of fields no other request of the scenario has: each a document to check in full. */
function unseenSelectionRequests(): BenchRequest[] {
  const random = seeded(7);
  const seen = new Set<string>();
  const requests: BenchRequest[] = [];
  while (requests.length < UNSEEN_DOCUMENTS) {
    const fields = TOUR_FIELDS.filter(() => random() < 0.3);
    const key = fields.join(' ');
    if (fields.length < 3 || seen.has(key)) continue;
    seen.add(key);
    requests.push(
      post(
        'ToursPicked',
        `query ToursPicked($locale: String) {
  tours(locale: $locale, limit: 10) { total data { id name ${key} } }
}`,
        { locale: 'de-CH' },
      ),
    );
  }
  return requests;
}

/** Every scenario, in report order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'activities',
    description: 'Default `activities` list (20 per page, de-CH), 7 fields with nested objects',
    method: 'POST',
    requests: () => [post('ActivityList', ACTIVITY_LIST)],
  },
  {
    name: 'tours-near',
    description: '`tours` near-me with a filter: hikes within 30 km of Interlaken, 20 × 7 fields',
    method: 'POST',
    requests: () => [
      post(
        'HikesNearInterlaken',
        `query HikesNearInterlaken {
  tours(routeType: "hike", nearLat: 46.6863, nearLng: 7.8632, radiusKm: 30, limit: 20) { total data { id name distance_km difficulty duration ascent startPoint } }
}`,
      ),
    ],
  },
  {
    name: 'tours-list',
    description: 'Default `tours` list, first page (20 per page, de-CH), 20 × 7 fields: the plain list `tours-faceted` compares with',
    method: 'POST',
    requests: () => [post('ToursList', `query ToursList {\n  tours(limit: 20) { total data { ${TOURS_PAGE_FIELDS} } }\n}`)],
  },
  {
    name: 'tours-faceted',
    description:
      '`tours` filtered, sorted and faceted as a portal\'s first page asks: hikes up to 4 h by most ascent, 20 × 7 fields, with the counts of difficulty, round trip and landscape (facets counted over the other filters)',
    method: 'POST',
    requests: () => [post('ToursFaceted', TOURS_FACETED)],
  },
  {
    name: 'tours-q-broad',
    description:
      '`tours` full-text `q` with two words found in most tours ("unterwegs aufstieg"), de-CH, 20 × 5 fields',
    method: 'POST',
    requests: () => [
      post(
        'SearchToursBroad',
        `query SearchToursBroad($q: String!) {
  tours(q: $q, locale: "de-CH", limit: 20) { total data { id name routeType difficulty duration } }
}`,
        { q: 'unterwegs aufstieg' },
      ),
    ],
  },
  {
    name: 'attractions-prefix',
    description:
      '`attractions` as a search box asks after one keystroke ("s"), en-CH, 10 × 2 fields: the costliest search, a prefix of the thousands of words that start with it, where the server rather than the load generator needs the CPU',
    method: 'POST',
    requests: () => [
      post(
        'TypeaheadAttractions',
        `query TypeaheadAttractions($q: String!) {
  attractions(q: $q, locale: "en-CH", limit: 10) { total data { id name } }
}`,
        { q: 's' },
      ),
    ],
  },
  {
    name: 'attractions-q',
    description: '`attractions` fuzzy `q` with a typo ("lucenre"), en-CH, 20 × 5 fields',
    method: 'POST',
    requests: () => [
      post(
        'SearchAttractions',
        `query SearchAttractions($q: String!) {
  attractions(q: $q, locale: "en-CH", limit: 20) { total data { id name abstract locality imageUrl } }
}`,
        { q: 'lucenre' },
      ),
    ],
  },
  {
    name: 'bbox',
    description:
      '`tours` in a map view (`bbox`), de-CH, 20 × 5 fields and the total: the Lauterbrunnen valley and the whole country, each with and without `q` ("berg"), each connection cycling through the four',
    method: 'POST',
    requests: () =>
      MAP_VIEWS.flatMap(({ name, bbox }) => [toursInBox(`ToursIn${name}`, bbox, null), toursInBox(`SearchToursIn${name}`, bbox, 'berg')]),
  },
  {
    name: 'search',
    description: '`search` across areas as a search box asks per keystroke ("grindelwald"), de-CH, 10 hits × 4 fields with their snippets',
    method: 'POST',
    requests: () => [
      post(
        'SearchBox',
        `query SearchBox($q: String!) {
  search(q: $q, limit: 10) { total data { area id title snippet } }
}`,
        { q: 'grindelwald' },
      ),
    ],
  },
  {
    name: 'station',
    description: 'One `snowdataStation` with every nested field (the `Station` sample query)',
    method: 'POST',
    requests: (samples) => {
      const station = sample(samples, 'Station');
      return [post(station.name, station.query, station.variables)];
    },
  },
  {
    name: 'mix',
    description: 'Every sample query of `/api/schema?format=queries`, each connection cycling through them',
    method: 'POST',
    requests: (samples) => samples.map((s) => post(s.name, s.query, s.variables)),
  },
  {
    name: 'tours-near-inline',
    description: `\`tours\` near-me as a map client sends it while panning: hikes within 30 km of a point written into the document rather than sent as a variable, ${UNSEEN_DOCUMENTS.toLocaleString('en-US')} points in turn, 20 × 7 fields`,
    method: 'POST',
    unseen: true,
    requests: panningRequests,
  },
  {
    name: 'unseen-documents',
    description: `\`tours\` with a selection of fields no other request has (${UNSEEN_DOCUMENTS.toLocaleString('en-US')} of them in turn, more than the operation cache keeps), 10 items: each document is parsed, validated and its cost counted, as for a client that never sends the same document twice`,
    method: 'POST',
    unseen: true,
    requests: unseenSelectionRequests,
  },
  {
    name: 'activities-get',
    description: 'The `activities` list as a GET with the query in the URL',
    method: 'GET',
    requests: () => [get('ActivityList', ACTIVITY_LIST)],
  },
];

/**
 * The server starts of a run, in order.
 * @param scales dataset scales to measure (1 and/or 10)
 * @param cores the "all cores" worker count
 * @param names scenario names to keep; all when empty
 */
export function planRuns(scales: readonly number[], cores: number, names: readonly string[]): PlannedRun[] {
  const wanted = names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  const plan: PlannedRun[] = [];
  for (const scale of scales) {
    // Every scale runs uncached with every core too: the larger datasets are where a request
    // costs the server enough CPU for the load generator's share not to decide the scaling.
    const workerCounts = [...new Set([1, cores])];
    const cacheModes = scale === 1 ? [false, true] : [false];
    for (const workers of workerCounts) {
      for (const responseCache of cacheModes) {
        const scenarios = wanted.filter(
          (s) => (s.method === 'POST' || workers === 1) && (scale === 1 || s.method === 'POST') && !(s.unseen && responseCache),
        );
        if (scenarios.length > 0) plan.push({ setup: { scale, responseCache, workers }, scenarios });
      }
    }
  }
  return plan;
}
