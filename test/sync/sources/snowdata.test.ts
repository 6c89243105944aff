import { describe, expect, it } from 'vitest';
import type { StationRecord } from '../../../sync/snapshot.ts';
import { feedUrl, normalizeRoute, normalizeStation, type FeedRoute, type FeedStation } from '../../../sync/sources/snowdata.ts';
import { InvalidRecordError } from '../../../sync/sources/invalidRecordError.ts';

/** A feed record with every section filled. */
function fullStation(): FeedStation {
  return {
    stationId: '36830',
    stationName: 'Bosco/Gurin',
    resort: { resortId: '148', resortName: 'Bosco Gurin', regionId: '6' },
    contact: {
      company: 'Grossalp Bosco Gurin SA',
      street: ' Via Cantonale 5 ',
      zip: '6685',
      town: 'Bosco/Gurin',
      phone: '+41 91 759 02 02',
      email: 'info@bosco-gurin.ch',
      web: 'http://www.bosco-gurin.ch',
    },
    facilities: {
      altitudeM: '1507',
      seasonFrom: '12.12.2026',
      seasonTo: '11.4.2027',
      facilitiesTotal: '7',
      cableCars: '0',
      chairlifts: '2',
      skilifts: '4',
      babyLifts: '1',
      conveyorBelts: '',
      cableCarsOpen: '0',
      chairliftsOpen: '1',
      skiliftsOpen: '3',
      babyLiftsOpen: null,
      shuttleBus: 'false',
      remarks: 'Skianlagen täglich geöffnet (ausser Weihnachten)',
    },
    snow: {
      newSnowCm: '10',
      newSnowTopCm: '15',
      depthVillageCm: '100',
      depthPisteCm: '110',
      lastSnowfall: '08.12.2026',
      avalancheBulletinUrl: 'https://www.slf.ch/de/lawinenbulletin-und-schneesituation/',
      remarks: '',
    },
    alpine: {
      areaName: 'Bosco Gurin',
      slopesCount: '13',
      slopesKm: '30',
      slopesOpenKm: '12.5',
      valleyRunsCount: '1',
      liftsOpen: '4',
      openFrom: '08:45:00',
      openTo: '16:30:00',
      runCode: '802',
      snowCode: '902',
      valleyRunCode: '800',
      remarks: 'Talabfahrt bis Bosco geöffnet.',
    },
    freestyle: {
      funparkName: 'Snowpark Bosco',
      parksTotal: '2',
      parksOpen: '1',
      halfpipesOpen: '0',
      snowtubesOpen: '1',
      artificialSnow: 'true',
      floodlight: 'false',
      runCode: '803',
      parks: [
        { name: 'Snowpark', kind: 'SNOWPARK', statusCode: '1', updatedAt: '2026-12-20T07:10:00+01:00' },
        { name: 'Kinderpark Putschtschi', kind: 'KIDSPARK', statusCode: '2', updatedAt: null },
      ],
    },
    nordic: {
      areaName: 'Langlauf Bosco',
      phone: '+41 91 759 02 03',
      classicKm: '6',
      classicPreparedKm: '4.2',
      skatingKm: '6.0',
      skatingPreparedKm: '0',
      dogTrailKm: null,
      dogTrailOpenKm: null,
      floodlitKm: '1.5',
      floodlitUntil: '21:00:00',
      classicCode: '801',
      skatingCode: '805',
      remarks: 'Loipe bis Rossboda gespurt.',
      trails: [{ name: 'Pista sci di fondo', statusCode: '1' }],
    },
    winterHiking: {
      areaName: 'Winterwandern Bosco',
      walkingKm: '3',
      walkingPreparedKm: '3',
      snowshoeTrailsCount: '1',
      snowshoeKm: '2.5',
      snowshoeOpenKm: '2',
      trailCode: '801',
      openFrom: '09:00:00',
      openTo: '00:00:00',
      remarks: 'Schneeschuhtrail signalisiert.',
      trails: [
        { name: 'Percorso invernale', statusCode: '1' },
        { name: 'Percorso racchette da neve', statusCode: '0' },
      ],
    },
    sledging: {
      areaName: 'Schlittelweg Rossboda',
      runsCount: '2',
      runsKm: '6',
      runsOpenCount: '1',
      runsOpenKm: '3.5',
      artificialSnow: 'false',
      publicTransport: 'true',
      rental: 'true',
      skillCode: '1002',
      runCode: '802',
      remarks: 'Schlittenmiete an der Talstation.',
    },
    tickets: {
      currency: 'CHF',
      categories: [
        { kind: 'DAY', adult: '49.00', child: '25.00', youth: '37.00', senior: '44.00' },
        { kind: 'SEASON', adult: '390.00', child: '195.00', youth: null, senior: '350.00' },
      ],
      halfDayFrom: '12:00:00',
      familyDiscount: 'true',
      hourCards: 'false',
      dynamicPricing: null,
      remarks: 'Preise in CHF inkl. MWST.',
    },
    weather: { code: '601', tempVillageC: '-3', tempMountainC: '-9', outlook: 'Morgen sonnig.' },
    forecast: [
      { level: 'BERG', date: '2026-12-20', tempC: '-9', icon: '1', url: 'https://www.meteoschweiz.admin.ch/lokalprognose/bosco-gurin/6685.html' },
      { level: 'TAL', date: '2026-12-20', tempC: '-3', icon: '2', url: null },
    ],
    media: [
      { kind: 'LOGO', href: 'https://media.snowdata.example/stations/36830/logo.png', createdAt: '2024-11-02T07:00:00+01:00', modifiedAt: null },
      { kind: 'SKIMAP', href: 'https://media.snowdata.example/stations/36830/skimap.jpg', createdAt: null, modifiedAt: '2026-12-01T10:00:00+01:00' },
    ],
    webcams: [
      { imageUrl: 'https://webcams.snowdata.example/36830/1.jpg', pageUrl: 'http://www.bosco-gurin.ch/webcams', location: 'Bergstation', lat: '46.31644', lon: '8.49123' },
    ],
    links: [{ kind: 'TICKETSHOP', label: 'Ticketshop', href: 'http://www.bosco-gurin.ch/tickets' }],
    portalLinks: { it: 'https://www.myswitzerland.com/it-ch/bollettino-della-neve/bosco-gurin-36830/', de: 'https://www.myswitzerland.com/de-ch/schneebericht/bosco-gurin-36830/' },
    updatedAt: '2026-12-20T07:12:00+01:00',
  };
}

describe('normalizeStation', () => {
  it('maps a full station field by field', () => {
    const raw = fullStation();
    const expected: StationRecord = {
      id: 36830,
      name: 'Bosco/Gurin',
      latitude: 46.31644,
      longitude: 8.49123,
      resort: { id: 148, name: 'Bosco Gurin', regionId: 6 },
      address: {
        name: 'Grossalp Bosco Gurin SA',
        street: 'Via Cantonale 5',
        place: 'Bosco/Gurin',
        zip: 6685,
        phone: '+41 91 759 02 02',
        email: 'info@bosco-gurin.ch',
        website: 'http://www.bosco-gurin.ch',
      },
      info: {
        altitude: 1507,
        seasonStart: '2026-12-12',
        seasonEnd: '2027-04-11',
        totalFacilities: 7,
        cableCars: 0,
        chairlifts: 2,
        skilifts: 4,
        babyLifts: 1,
        conveyorBelts: null,
        hasShuttlebus: false,
        report: 'Skianlagen täglich geöffnet (ausser Weihnachten)',
        lifts: { cableCar: 0, chairlift: 1, skilift: 3, babyLift: null },
      },
      snow: {
        freshSnow: 10,
        freshSnowPisteTop: 15,
        depthResort: 100,
        depthPiste: 110,
        lastSnowfall: '2026-12-08',
        avalancheRiskUrl: 'https://www.slf.ch/de/lawinenbulletin-und-schneesituation/',
        report: null,
      },
      ski: {
        areaName: 'Bosco Gurin',
        slopesTotal: 13,
        slopesLength: 30000,
        slopesOpenLength: 12500,
        valleyRuns: 1,
        openFacilities: 4,
        openingTime: '08:45',
        closingTime: '16:30',
        condition: 'gut',
        snowCondition: 'griffig',
        valleyRunsCondition: null,
        report: 'Talabfahrt bis Bosco geöffnet.',
      },
      snowboard: {
        funparkName: 'Snowpark Bosco',
        snowparksTotal: 2,
        snowparksOpen: 1,
        halfpipesOpen: 0,
        snowtubesOpen: 1,
        hasArtificialSnow: true,
        hasFloodlight: false,
        condition: 'mässig',
        snowparks: [
          { name: 'Snowpark', type: 'SNOWPARK', status: 'OPEN', lastUpdated: '2026-12-20T06:10:00.000Z' },
          { name: 'Kinderpark Putschtschi', type: 'KIDSPARK', status: 'CLOSED', lastUpdated: null },
        ],
      },
      crosscountry: {
        areaName: 'Langlauf Bosco',
        phone: '+41 91 759 02 03',
        classicLength: 6000,
        classicPrepared: 4200,
        skatingLength: 6000,
        skatingPrepared: 0,
        dogTrailLength: null,
        dogTrailOpen: null,
        floodlightLength: 1500,
        floodlightTill: '21:00',
        classicCondition: 'sehr gut',
        skatingCondition: 'geschlossen',
        report: 'Loipe bis Rossboda gespurt.',
        routes: [{ title: 'Pista sci di fondo', status: 'OPEN' }],
      },
      hiking: {
        areaName: 'Winterwandern Bosco',
        walkingTrailLength: 3000,
        walkingTrailPrepared: 3000,
        snowshoeTrailsTotal: 1,
        snowshoeTrailsLength: 2500,
        condition: 'sehr gut',
        openingTime: '09:00',
        closingTime: null,
        report: 'Schneeschuhtrail signalisiert.',
        routes: [
          { title: 'Percorso invernale', status: 'OPEN' },
          { title: 'Percorso racchette da neve', status: 'NOINFO' },
        ],
      },
      tobogganing: {
        areaName: 'Schlittelweg Rossboda',
        tracksTotal: 2,
        tracksLength: 6000,
        tracksOpen: 1,
        tracksOpenLength: 3500,
        hasArtificialSnow: false,
        hasPublicTransport: true,
        hasRental: true,
        skillLevel: 'mittel',
        condition: 'gut',
        report: 'Schlittenmiete an der Talstation.',
      },
      sledge: { runsTotal: 2, runsLength: 6000, runsOpenLength: 3500, condition: 'gut' },
      snowshoe: { trailsTotal: 1, trailsLength: 2500, trailsOpenLength: 2000, condition: 'sehr gut' },
      prices: {
        dayTicket: { adult: '49.00', child: '25.00', teenager: '37.00', senior: '44.00', currency: 'CHF' },
        halfDayTicket: null,
        weekTicket: null,
        seasonTicket: { adult: '390.00', child: '195.00', teenager: null, senior: '350.00', currency: 'CHF' },
        halfDayFrom: '12:00',
        familyReduction: true,
        hourCardsAvailable: false,
        dynamicPrices: null,
        description: 'Preise in CHF inkl. MWST.',
      },
      weather: { condition: 'sonnig', temperatureResort: -3, temperaturePiste: -9, forecast: 'Morgen sonnig.' },
      weatherForecast: [
        { type: 'BERG', date: '2026-12-20', temperature: -9, iconCode: 1, url: 'https://www.meteoschweiz.admin.ch/lokalprognose/bosco-gurin/6685.html' },
        { type: 'TAL', date: '2026-12-20', temperature: -3, iconCode: 2, url: null },
      ],
      images: [
        { type: 'LOGO', url: 'https://media.snowdata.example/stations/36830/logo.png', created: '2024-11-02T06:00:00.000Z', updated: null },
        { type: 'SKIMAP', url: 'https://media.snowdata.example/stations/36830/skimap.jpg', created: null, updated: '2026-12-01T09:00:00.000Z' },
      ],
      webcams: [
        { url: 'https://webcams.snowdata.example/36830/1.jpg', sourceUrl: 'http://www.bosco-gurin.ch/webcams', place: 'Bergstation', latitude: 46.31644, longitude: 8.49123 },
      ],
      links: [{ type: 'TICKETSHOP', title: 'Ticketshop', url: 'http://www.bosco-gurin.ch/tickets' }],
      detailLinks: [
        { lang: 'de', url: 'https://www.myswitzerland.com/de-ch/schneebericht/bosco-gurin-36830/' },
        { lang: 'it', url: 'https://www.myswitzerland.com/it-ch/bollettino-della-neve/bosco-gurin-36830/' },
      ],
      lastUpdate: '2026-12-20T06:12:00.000Z',
      raw,
    };
    expect(normalizeStation(raw, 'de')).toEqual(expected);
  });

  it('keeps the feed record as received in raw', () => {
    const raw = fullStation();
    const snapshot = structuredClone(raw);
    const station = normalizeStation(raw, 'de');
    expect(station.raw).toBe(raw);
    expect(raw).toEqual(snapshot);
  });

  it('publishes codes as text in the requested language', () => {
    const station = normalizeStation(fullStation(), 'fr');
    expect([station.ski?.condition, station.ski?.snowCondition, station.tobogganing?.skillLevel, station.weather?.condition, station.sledge?.condition]).toEqual([
      'bonnes',
      'neige compacte',
      'moyen',
      'ensoleillé',
      'bonnes',
    ]);
  });

  it('derives sledge from tobogganing and snowshoe from hiking, and leaves both null without their sections', () => {
    const raw = fullStation();
    raw.sledging = { ...raw.sledging!, runsOpenKm: null, runCode: '805' };
    raw.winterHiking = { ...raw.winterHiking!, snowshoeOpenKm: null, trailCode: '999' };
    const station = normalizeStation(raw, 'en');
    expect([station.sledge, station.snowshoe]).toEqual([
      { runsTotal: 2, runsLength: 6000, runsOpenLength: null, condition: 'closed' },
      { trailsTotal: 1, trailsLength: 2500, trailsOpenLength: null, condition: null },
    ]);

    const without = normalizeStation({ ...fullStation(), sledging: null, winterHiking: null }, 'en');
    expect([without.tobogganing, without.sledge, without.hiking, without.snowshoe]).toEqual([null, null, null, null]);
  });

  it('takes the coordinates of the first webcam that has both', () => {
    const raw = fullStation();
    raw.webcams = [
      { imageUrl: 'https://cams.example/1.jpg', pageUrl: null, location: 'Dorf', lat: null, lon: null },
      { imageUrl: 'https://cams.example/2.jpg', pageUrl: null, location: 'Talstation', lat: '46.3', lon: '' },
      { imageUrl: 'https://cams.example/3.jpg', pageUrl: null, location: 'Gipfel', lat: '46.32011', lon: '8.48002' },
      { imageUrl: 'https://cams.example/4.jpg', pageUrl: null, location: 'Bergstation', lat: '46.1', lon: '8.1' },
    ];
    const station = normalizeStation(raw, 'de');
    expect([station.longitude, station.latitude]).toEqual([8.48002, 46.32011]);
    expect(station.webcams?.[1]).toEqual({ url: 'https://cams.example/2.jpg', sourceUrl: null, place: 'Talstation', latitude: null, longitude: null });
  });

  it('leaves the coordinates null when no webcam has them, or there are no webcams', () => {
    const raw = fullStation();
    raw.webcams = [{ imageUrl: 'https://cams.example/1.jpg', pageUrl: null, location: null, lat: 'n/a', lon: '8.4' }];
    const noCoordinates = normalizeStation(raw, 'de');
    const noWebcams = normalizeStation({ ...fullStation(), webcams: null }, 'de');
    expect([noCoordinates.latitude, noCoordinates.longitude, noWebcams.latitude, noWebcams.longitude, noWebcams.webcams]).toEqual([null, null, null, null, null]);
  });

  it('leaves out list items and sub-objects that lack a required field', () => {
    const raw = fullStation();
    raw.resort = { resortId: 'x', resortName: 'Bosco Gurin', regionId: null };
    raw.media = [{ kind: '', href: 'https://media.example/a.jpg', createdAt: null, modifiedAt: null }];
    raw.links = [{ kind: 'SKI_SCHOOL', label: 'Skischule', href: ' ' }];
    raw.forecast = [{ level: 'TAL', date: '2026-02-30', tempC: '1', icon: '1', url: null }];
    raw.webcams = [{ imageUrl: '', pageUrl: null, location: null, lat: '46', lon: '8' }];
    const station = normalizeStation(raw, 'de');
    expect([station.resort, station.images, station.links, station.weatherForecast, station.webcams]).toEqual([null, [], [], [], []]);
  });

  it('turns unreadable numbers, dates and the unset time into null', () => {
    const raw = fullStation();
    raw.facilities = { ...raw.facilities!, altitudeM: '1507 m', seasonFrom: '2026-12-12' };
    raw.alpine = { ...raw.alpine!, slopesKm: 'viele', openFrom: '00:00:00' };
    raw.updatedAt = 'yesterday';
    const station = normalizeStation(raw, 'de');
    expect([station.info?.altitude, station.info?.seasonStart, station.ski?.slopesLength, station.ski?.openingTime, station.lastUpdate]).toEqual([null, null, null, null, null]);
  });

  it('rejects a station without an integer id or a name', () => {
    expect(() => normalizeStation({ ...fullStation(), stationId: 'B-12' }, 'de')).toThrow(InvalidRecordError);
    expect(() => normalizeStation({ ...fullStation(), stationName: '  ' }, 'de')).toThrow('snowdata.stations 36830: stationId must be an integer and stationName non-empty');
  });
});

describe('normalizeRoute', () => {
  const route: FeedRoute = {
    routeId: '0b3c8a52-8d0f-4a8e-9d63-1c2f1a0e5b77',
    stationId: '36830',
    routeType: 'SCHLITTELWEG',
    routeNo: ' 15 ',
    statusCode: '1',
    updatedAt: '2026-12-19T06:33:00+01:00',
    portalUrl: 'https://www.myswitzerland.com/de-ch/winterrouten/0b3c8a52-8d0f-4a8e-9d63-1c2f1a0e5b77/',
    stationActive: 'true',
  };

  it('maps a route', () => {
    expect(normalizeRoute(route)).toEqual({
      id: '0b3c8a52-8d0f-4a8e-9d63-1c2f1a0e5b77',
      type: 'sledging',
      number: '15',
      status: 'OPEN',
      lastUpdated: '2026-12-19T05:33:00.000Z',
      link: 'https://www.myswitzerland.com/de-ch/winterrouten/0b3c8a52-8d0f-4a8e-9d63-1c2f1a0e5b77/',
      isStationActive: true,
    });
  });

  it('maps every route type and status code', () => {
    const types = (['SCHNEESCHUH', 'LOIPE', 'WINTERWANDERWEG', 'SCHLITTELWEG'] as const).map((routeType) => normalizeRoute({ ...route, routeType }).type);
    const statuses = ['0', '1', '2', '7', null].map((statusCode) => normalizeRoute({ ...route, statusCode }).status);
    expect([types, statuses]).toEqual([
      ['snowshoe', 'crosscountry', 'winterhiking', 'sledging'],
      ['NOINFO', 'OPEN', 'CLOSED', null, null],
    ]);
  });

  it('reads missing optional values as null and a missing station flag as false', () => {
    expect(normalizeRoute({ ...route, updatedAt: null, portalUrl: '', stationActive: null })).toMatchObject({ lastUpdated: null, link: null, isStationActive: false });
  });

  it('rejects a route of an unknown type or without a number', () => {
    expect(() => normalizeRoute({ ...route, routeType: 'SKIPISTE' as FeedRoute['routeType'] })).toThrow(InvalidRecordError);
    expect(() => normalizeRoute({ ...route, routeNo: '' })).toThrow(/routeId and routeNo must be non-empty/);
  });
});

describe('feedUrl', () => {
  it('builds a page request with language, offset and limit', () => {
    expect(feedUrl('https://feed.example/v1/', '/stations', 'fr', 200, 100)).toBe('https://feed.example/v1/stations?lang=fr&offset=200&limit=100');
  });
});
