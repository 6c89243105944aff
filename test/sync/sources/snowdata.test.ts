import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, FetchError, type HttpClient } from '../../../sync/client.ts';
import { DEFAULT_SAMPLES_DIR } from '../../../sync/fixtures/samplesDir.ts';
import { Random } from '../../../sync/fixtures/random.ts';
import { generateSnowdata } from '../../../sync/fixtures/snowdata.ts';
import { startUpstream, type Upstream, UPSTREAM_KEYS } from '../../../sync/fixtures/upstream.ts';
import type { PageProgress } from '../../../sync/source.ts';
import type { StationRecord } from '../../../sync/format.ts';
import { FieldReader, InvalidRecordError } from '../../../sync/sources/read.ts';
import { snowdataSource } from '../../../sync/sources/stnet/snowdataSource.ts';
import { DEFAULT_BASE_URL, PAGE_SIZE, readPage, type SnowdataConfig, stnetDate, stnetPageUrl, stnetTicket } from '../../../sync/sources/stnet/api.ts';
import { normalizeStation } from '../../../sync/sources/stnet/normalize.ts';
import { READ_FIELDS } from '../../../sync/sources/stnet/fields.ts';
import { stationRoutes } from '../../../sync/sources/stnet/routes.ts';
import { type StnetCode, type StnetStation } from '../../../sync/sources/stnet/shapes.ts';

const texts = (de: string, en: string, fr: string, it?: string) => ({
  textArray: [
    { lang: 'de', content: de },
    { lang: 'en', content: en },
    { lang: 'fr', content: fr },
    ...(it === undefined ? [] : [{ lang: 'it', content: it }]),
  ],
});
const code = (id: number, de = `de ${id}`, en = `en ${id}`, fr = `fr ${id}`, it: string | undefined = `it ${id}`): StnetCode => ({ id, ...texts(de, en, fr, it) });

/** A station in the service's shape with every field the adapter reads. */
function fullStation(): StnetStation {
  return {
    id: 132,
    name: 'Verbier',
    lastUpdate: { content: '2026-01-28T07:45:00.000+01:00' },
    address: { place: ' Verbier ', zip: 1936, phone1: '+41 27 775 25 11', url: 'https://www.verbier4vallees.ch' },
    info: {
      numberOfFacilities: { content: 34 },
      numberOfCableCarWinter: { content: 9 },
      numberOfChairliftWinter: { content: 12 },
      numberOfSkilift: { content: 11 },
      numberOfBabyLifts: { content: 2 },
      numberOfSnowConveyorBelts: { content: '' },
      heightOfSnowMeasurementResort: { content: 1500, unit: 'm' },
    },
    snow: {
      depthOfSnowResort: { content: 80, unit: 'cm' },
      depthOfSnowPiste: { content: 1.6, unit: 'm' },
      freshSnow: { content: 5, unit: 'cm' },
      freshSnowPisteTop: 12,
      lastSnowfallResort: { content: '2026-01-24T00:00:00.000+01:00' },
      lastSnowfallPiste: { content: '2026-01-24T00:00:00.000+01:00' },
      avalancheRiskLevel: { content: 'https://www.slf.ch/de/lawinenbulletin-und-schneesituation/' },
      reportSnow: texts('Pulverschnee am Berg.', 'Powder up the mountain.', 'Poudreuse en altitude.'),
    },
    ski: {
      numberOfSlopes: { content: 80 },
      lengthOfSlopes: { content: 410, unit: 'km' },
      lengthOfSlopesOpen: { content: 385000, unit: 'm' },
      numberOfValleyRuns: { content: 3 },
      numberOfValleyRunsOpen: { content: 2 },
      runsCondition: code(802, 'gut-fahrbar', 'good-fair', 'bonnes-praticables', 'buone-praticabili'),
      snowConditionMain: code(901, 'pulver', 'powder', 'poudreuse', 'farinosa'),
      snowConditionPartial: code(905),
      slopesArray: { name: 5, info: { type: { id: 4000 }, condition: code(805), totalLength: { content: 1200, unit: 'm' } } },
    },
    facility: {
      numberOfOpenFacilities: { content: 31 },
      facilityOpeningTime: { content: '2026-01-28T08:30:00.000+01:00' },
      facilityClosingTime: { content: '2026-01-28T16:15:00.000+01:00' },
      reportFacility: texts('31 von 34 Anlagen offen.', '31 of 34 lifts open.', '31 installations sur 34 ouvertes.', '31 impianti su 34 aperti.'),
    },
    liftInfo: { liftsArray: [{ name: 'Médran', info: { type: { id: 4100 }, status: code(3003), sortOrder: 1 } }] },
    crosscountry: {
      lengthOfClassic: { content: 12000, unit: 'm' },
      lengthOfClassicPrepared: { content: 8000, unit: 'm' },
      lengthOfSkating: { content: 10000, unit: 'm' },
      lengthOfSkatingPrepared: { content: 6500, unit: 'm' },
      lengthOfFloodlightTotal: { content: 2000, unit: 'm' },
      tracksArray: [
        { name: 'Loipe Le Châble', info: { condition: code(806), sortOrder: 1, latitude: { content: 0 }, longitude: { content: 0 } } },
        { name: 'Piste de fond Verbier', info: { condition: code(801), sortOrder: 2, latitude: { content: 46.0961 }, longitude: { content: 7.2286 } } },
      ],
    },
    hiking: {
      lengthOfWalkingtrailPrepared: { content: 25000, unit: 'm' },
      lengthOfSnowshoeTrails: { content: 14000, unit: 'm' },
      trailsArray: [
        { name: 'Sentier des Planards', info: { condition: code(1202, 'begehbar', 'Passable', 'praticable', 'percorribile'), sortOrder: 1 } },
        { name: 'Sentier des Planards', info: { condition: code(1200), sortOrder: 2 } },
        { name: '', info: { condition: code(1201) } },
      ],
    },
    tobogganing: {
      numberOfTracks: { content: 2 },
      numberOfTracksOpen: { content: 1 },
      lengthOfTracks: { content: 10000, unit: 'm' },
      hasArtificialSnow: { content: 0 },
      hasPublicTransport: { content: 1 },
      hasRentalPossibility: { content: 1 },
      runsArray: { name: 'Piste de luge Savoleyres', info: { condition: code(807), latitude: { content: 46.11 }, longitude: { content: 7.24 } } },
    },
  };
}

describe('the STnet request', () => {
  it('signs with md5 of username, key, token and date, in lowercase hex', () => {
    expect(stnetTicket('user', 'key', 'token', '2026.01.28')).toBe('3ffc2f9af0567bda42dc30b189efb305');
  });

  it('dates the ticket in Switzerland, whatever the machine clock zone', () => {
    expect(stnetDate(new Date('2026-11-20T23:30:00Z'))).toBe('2026.11.21');
    expect(stnetDate(new Date('2026-07-01T21:59:00Z'))).toBe('2026.07.01');
    expect(stnetDate(new Date('2026-07-01T22:00:00Z'))).toBe('2026.07.02');
  });

  it('asks for one page of the full station type in JSON, with a fresh token and its ticket', () => {
    const config: SnowdataConfig = { baseUrl: DEFAULT_BASE_URL, username: 'ACME', apiKey: 's3cret', pagePauseMs: 0, timeoutMs: 60_000 };
    const first = new URL(stnetPageUrl(config, 3, new Date('2026-01-28T10:00:00Z')));
    const second = new URL(stnetPageUrl(config, 3, new Date('2026-01-28T10:00:00Z')));
    const params = Object.fromEntries(first.searchParams);
    expect(`${first.origin}${first.pathname}`).toBe('http://st.stnet.ch/api/services/wispostations');
    expect(params).toEqual({
      'stn-username': 'ACME',
      'stn-token': expect.stringMatching(/^[A-Za-z0-9]{16}$/),
      'stn-ticket': createHash('md5').update(`ACME:s3cret:${params['stn-token']}:2026.01.28`).digest('hex'),
      'stn-output': 'json',
      'stn-size': String(PAGE_SIZE),
      'stn-page': '3',
      'stn-stationType': 'full',
    });
    expect(second.searchParams.get('stn-token')).not.toBe(params['stn-token']);
    expect(first.href).not.toContain('s3cret');
  });
});

describe('readPage', () => {
  it('reads a list, a single station object and an empty page', () => {
    const page = (stationsArray: unknown) => readPage({ stations: { header: { totalPages: 4, resultSize: 151 }, stationsArray } }, 4);
    expect(page([{ id: 1 }, { id: 2 }]).stations).toEqual([{ id: 1 }, { id: 2 }]);
    expect(page({ id: 151 })).toEqual({ totalPages: 4, resultSize: 151, stations: [{ id: 151 }] });
    expect(page(undefined).stations).toEqual([]);
  });

  it('names the page and the expected shape when the answer is something else', () => {
    expect(() => readPage({ error: 'ticket invalid' }, 2)).toThrow(
      'STnet page 2: not a stations page (expected { stations: { header: { totalPages, resultSize }, stationsArray } }), got {"error":"ticket invalid"}',
    );
    expect(() => readPage({ stations: { header: { totalPages: 'many' }, stationsArray: [] } }, 1)).toThrow(/^STnet page 1: not a stations page/);
  });
});

describe('normalizeStation', () => {
  it('counts, per field path, each field it could not read, so a renamed value is drift and not a silent null', () => {
    const reader = new FieldReader();
    const full = fullStation();
    normalizeStation(full, 'de-CH', reader);
    expect(reader.misses['snow.depthOfSnowResort']).toBeUndefined();
    // The upstream renames `{ content, unit }` to `{ value, unit }` in the snow figures.
    const renamed = { ...full, snow: { ...full.snow, depthOfSnowResort: { value: 80, unit: 'cm' }, depthOfSnowPiste: { value: 60, unit: 'cm' } } } as StnetStation;
    const station = normalizeStation(renamed, 'de-CH', reader);
    normalizeStation(renamed, 'de-CH', reader);
    expect(station.snow?.depthResort).toBeNull();
    expect(reader.misses).toMatchObject({ 'snow.depthOfSnowResort': 2, 'snow.depthOfSnowPiste': 2 });
  });

  it('maps a full station field by field, lengths in metres and depths in centimetres', () => {
    const raw = fullStation();
    const expected: StationRecord = {
      id: 132,
      name: 'Verbier',
      latitude: 46.0961,
      longitude: 7.2286,
      resort: null,
      address: { name: null, street: null, place: 'Verbier', zip: 1936, phone: '+41 27 775 25 11', email: null, website: 'https://www.verbier4vallees.ch' },
      info: {
        altitude: 1500,
        seasonStart: null,
        seasonEnd: null,
        totalFacilities: 34,
        cableCars: 9,
        chairlifts: 12,
        skilifts: 11,
        babyLifts: 2,
        conveyorBelts: null,
        hasShuttlebus: null,
        report: '31 installations sur 34 ouvertes.',
        lifts: { cableCar: 9, chairlift: 12, skilift: 11, babyLift: 2 },
      },
      snow: {
        freshSnow: 5,
        freshSnowPisteTop: 12,
        depthResort: 80,
        depthPiste: 160,
        lastSnowfall: '2026-01-24',
        avalancheRiskUrl: 'https://www.slf.ch/de/lawinenbulletin-und-schneesituation/',
        report: 'Poudreuse en altitude.',
      },
      ski: {
        areaName: null,
        slopesTotal: 80,
        slopesLength: 410000,
        slopesOpenLength: 385000,
        valleyRuns: 3,
        openFacilities: 31,
        openingTime: '08:30',
        closingTime: '16:15',
        condition: 'bonnes-praticables',
        snowCondition: 'poudreuse',
        valleyRunsCondition: null,
        report: null,
      },
      snowboard: null,
      crosscountry: {
        areaName: null,
        phone: null,
        classicLength: 12000,
        classicPrepared: 8000,
        skatingLength: 10000,
        skatingPrepared: 6500,
        dogTrailLength: null,
        dogTrailOpen: null,
        floodlightLength: 2000,
        floodlightTill: null,
        classicCondition: null,
        skatingCondition: null,
        report: null,
        routes: [
          { title: 'Loipe Le Châble', status: 'fr 806' },
          { title: 'Piste de fond Verbier', status: 'fr 801' },
        ],
      },
      hiking: {
        areaName: null,
        walkingTrailLength: null,
        walkingTrailPrepared: 25000,
        snowshoeTrailsTotal: null,
        snowshoeTrailsLength: 14000,
        condition: null,
        openingTime: null,
        closingTime: null,
        report: null,
        routes: [
          { title: 'Sentier des Planards', status: 'praticable' },
          { title: 'Sentier des Planards', status: 'fr 1200' },
          { title: null, status: 'fr 1201' },
        ],
      },
      tobogganing: {
        areaName: null,
        tracksTotal: 2,
        tracksLength: 10000,
        tracksOpen: 1,
        tracksOpenLength: null,
        hasArtificialSnow: false,
        hasPublicTransport: true,
        hasRental: true,
        skillLevel: null,
        condition: null,
        report: null,
      },
      sledge: { runsTotal: 2, runsLength: 10000, runsOpenLength: null, condition: null },
      snowshoe: { trailsTotal: null, trailsLength: 14000, trailsOpenLength: null, condition: null },
      prices: null,
      weather: null,
      weatherForecast: null,
      images: null,
      webcams: null,
      links: null,
      detailLinks: null,
      lastUpdate: '2026-01-28T06:45:00.000Z',
      raw,
    };
    expect(normalizeStation(raw, 'fr-CH')).toEqual(expected);
  });

  it('keeps the station as received, every language included, in raw', () => {
    const raw = fullStation();
    const before = JSON.stringify(raw);
    expect(normalizeStation(raw, 'de-CH').raw).toBe(raw);
    expect(JSON.stringify(raw)).toBe(before);
  });

  it('takes each text in the locale language and falls back to German where that language is missing', () => {
    const raw = fullStation();
    const pick = (record: StationRecord) => [record.snow!.report, record.info!.report, record.ski!.condition];
    expect(pick(normalizeStation(raw, 'de-CH'))).toEqual(['Pulverschnee am Berg.', '31 von 34 Anlagen offen.', 'gut-fahrbar']);
    expect(pick(normalizeStation(raw, 'en-CH'))).toEqual(['Powder up the mountain.', '31 of 34 lifts open.', 'good-fair']);
    // reportSnow has no Italian text.
    expect(pick(normalizeStation(raw, 'it-CH'))).toEqual(['Pulverschnee am Berg.', '31 impianti su 34 aperti.', 'buone-praticabili']);
  });

  it('leaves the coordinates null when no track or run has both, and sections null when absent', () => {
    const record = normalizeStation({ id: '7', name: 'Skilift Tannenboden' }, 'de-CH');
    expect(record).toMatchObject({ id: 7, latitude: null, longitude: null, address: null, info: null, snow: null, ski: null, crosscountry: null, hiking: null, tobogganing: null, sledge: null, snowshoe: null, lastUpdate: null });
  });

  it('turns unreadable values, negative lengths and unknown units into null', () => {
    const record = normalizeStation(
      { id: 8, name: 'X', snow: { depthOfSnowResort: { content: 'viel', unit: 'cm' }, depthOfSnowPiste: { content: 40, unit: 'inch' }, lastSnowfallResort: { content: 'gestern' } }, ski: { lengthOfSlopes: { content: -1, unit: 'm' } } },
      'de-CH',
    );
    expect([record.snow!.depthResort, record.snow!.depthPiste, record.snow!.lastSnowfall, record.ski!.slopesLength]).toEqual([null, null, null, null]);
  });

  it('rejects a station without an integer id or a name', () => {
    expect(() => normalizeStation({ id: 'abc', name: 'Verbier' }, 'de-CH')).toThrow(InvalidRecordError);
    expect(() => normalizeStation({ id: 132, name: '  ' }, 'de-CH')).toThrow('id must be an integer and name non-empty');
  });
});

describe('stationRoutes', () => {
  const routes = stationRoutes(fullStation());

  it('builds a route from each named track, trail and run, numbered within its station', () => {
    expect(routes.map(({ type, number, status }) => [type, number, status])).toEqual([
      ['crosscountry', '132-1', 'CLOSED'],
      ['crosscountry', '132-2', 'OPEN'],
      ['winterhiking', '132-1', 'OPEN'],
      ['winterhiking', '132-2', 'NOINFO'],
      ['sledging', '132-1', null],
    ]);
    expect(routes.every((r) => r.link === null && r.lastUpdated === '2026-01-28T06:45:00.000Z' && r.isStationActive)).toBe(true);
  });

  it('gives every route a stable version-5 UUID of its own, even for two items with the same name', () => {
    expect(routes.map((r) => r.id)).toEqual(stationRoutes(fullStation()).map((r) => r.id));
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    for (const { id } of routes) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('derives the status from the condition code', () => {
    const statusOf = (id: number) => stationRoutes({ id: 1, name: 'X', crosscountry: { tracksArray: { name: 'T', info: { condition: { id } } } } })[0]!.status;
    expect([800, 801, 802, 803, 804, 805, 806, 807, 1200, 1201, 1202, 1203, 1204, 3001].map(statusOf)).toEqual([
      'NOINFO', 'OPEN', 'OPEN', 'OPEN', 'OPEN', 'CLOSED', 'CLOSED', null, 'NOINFO', 'OPEN', 'OPEN', 'CLOSED', 'CLOSED', null,
    ]);
  });

  it('marks the routes of a station with nothing open as inactive', () => {
    const station = fullStation();
    station.crosscountry!.tracksArray = { name: 'Loipe', info: { condition: code(805) } };
    station.hiking = null;
    expect(stationRoutes(station).map((r) => r.isStationActive)).toEqual([false, false]);
    station.liftInfo = { liftsArray: { name: 'Médran', info: { status: code(3001) } } };
    expect(stationRoutes(station).map((r) => r.isStationActive)).toEqual([true, true]);
  });
});

describe('against the loopback STnet service', () => {
  let upstream: Upstream | undefined;
  let http: HttpClient | undefined;
  afterEach(async () => {
    await http?.close();
    await upstream?.close();
    upstream = http = undefined;
  });

  /** Serves the first `count` fixture stations. */
  async function serve(count: number): Promise<{ stations: StnetStation[]; config: SnowdataConfig }> {
    const stations = generateSnowdata(new Random(5), 1, DEFAULT_SAMPLES_DIR).stations.slice(0, count);
    upstream = await startUpstream({ snowdata: { stations } } as Parameters<typeof startUpstream>[0]);
    http = createHttpClient({ maxAttempts: 1, secrets: [UPSTREAM_KEYS.STNET_API_KEY] });
    return { stations, config: { baseUrl: upstream.env.STNET_BASE_URL!, username: upstream.env.STNET_USERNAME!, apiKey: upstream.env.STNET_API_KEY!, pagePauseMs: 0, timeoutMs: 60_000 } };
  }

  it('pages to the end, a last page of one station included, and maps every locale from the one answer', async () => {
    const { stations, config } = await serve(PAGE_SIZE + 1);
    const pages: PageProgress[] = [];
    const data = await snowdataSource.fetch({ http: http!, config: config, locales: ['de-CH', 'it-CH'], syncDay: '2026-11-20', onPage: (_: string, p: PageProgress) => pages.push(p), onRetry: () => {}, served: async () => null });
    expect(upstream!.requests.map((r) => r.query['stn-page'])).toEqual(['1', '2']);
    expect(pages).toEqual([
      { pages: 1, totalPages: 2, items: PAGE_SIZE },
      { pages: 2, totalPages: 2, items: PAGE_SIZE + 1 },
    ]);
    expect(data.locales['de-CH']!.stations!.records.map((s) => s.id)).toEqual(stations.map((s) => s.id));
    expect(data.locales['it-CH']!.stations!.records).toEqual(stations.map((s) => normalizeStation(s, 'it-CH')));
    expect(data.locales['it-CH']!.routes!.records).toEqual(stations.flatMap(stationRoutes));
    expect(data.locales['de-CH']!.routes).toEqual(data.locales['it-CH']!.routes);
  });

  it('is refused with a wrong key, and the error shows neither the key, the token nor the ticket', async () => {
    const { config } = await serve(3);
    const error = await snowdataSource.fetch({ http: http!, config: { ...config, apiKey: 'not-the-key' }, locales: ['de-CH'], syncDay: '2026-11-20', onPage: () => {}, onRetry: () => {}, served: async () => null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).status).toBe(401);
    const sent = upstream!.requests[0]!.query;
    expect((error as FetchError).message).toContain('stn-token=REDACTED&stn-ticket=REDACTED');
    for (const secret of ['not-the-key', sent['stn-token']!, sent['stn-ticket']!]) expect((error as FetchError).message).not.toContain(secret);
  });

  it('probes the first page: reachable, key accepted, stations counted, fields compared', async () => {
    const { config } = await serve(PAGE_SIZE + 5);
    const [endpoint, ...more] = await snowdataSource.probe({ http: http!, config: config });
    expect(more).toEqual([]);
    expect(upstream!.requests.map((r) => r.query['stn-page'])).toEqual(['1']);
    expect(endpoint).toMatchObject({ name: 'WISPO stations', reachable: true, keyAccepted: true, records: PAGE_SIZE, missingFields: [] });
    expect(endpoint!.url).toContain('stn-token=REDACTED&stn-ticket=REDACTED');
    expect(endpoint!.error).toBeUndefined();
    // What the service carries and the adapter leaves in raw, single-item lists read as lists.
    expect(endpoint!.unexpectedFields).toEqual(expect.arrayContaining(['ski.numberOfValleyRunsOpen', 'snow.lastSnowfallPiste', 'tobogganing.runsArray[].description']));
    expect(endpoint!.unexpectedFields.filter((f) => /Array\.[a-z]/.test(f))).toEqual([]);
    expect(endpoint!.unexpectedFields.filter((f) => READ_FIELDS.includes(f))).toEqual([]);
  });

  it('probes a refused key and an unreachable host without throwing', async () => {
    const { config } = await serve(1);
    const [refused] = await snowdataSource.probe({ http: http!, config: { ...config, apiKey: 'nope' } });
    expect(refused).toMatchObject({ reachable: true, keyAccepted: false, records: null, error: expect.stringContaining('401 Unauthorized') });
    await upstream!.close();
    const [down] = await snowdataSource.probe({ http: http!, config: config });
    expect(down).toMatchObject({ reachable: false, keyAccepted: null, records: null, error: expect.stringContaining('ECONNREFUSED') });
  });
});
