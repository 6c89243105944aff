import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createRecordValidator } from '../../../server/snapshot/validateRecord.ts';
import type { ActivityRecord, ActivityTypeRecord, AttractionRecord, LocationRecord, RouteRecord, StationRecord, TourRecord } from '../../../sync/format.ts';

const schema = buildSchema(readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'));

const activityOptions = { computedFields: ['distance', 'license', 'attribution'], extraFields: ['attributeValues', 'availableDates'] };
const validateActivity = createRecordValidator(schema, 'Activity', activityOptions);
const validateStation = createRecordValidator(schema, 'SnowdataStation', { computedFields: ['isOpen', 'distance_km'] });
const validateTour = createRecordValidator(schema, 'Tour', { computedFields: ['distance_km', 'geometry', 'bounds', 'elevationProfile', 'license', 'attribution'] });
const validateAttraction = createRecordValidator(schema, 'Attraction', { computedFields: ['distance_km', 'license', 'attribution'] });

function activity(): ActivityRecord {
  return {
    id: 'act-1',
    bookingId: 4711,
    locale: 'de-CH',
    title: 'Canyoning im Val Bavona',
    teaserImage: { url: 'https://example.ch/a.jpg', alternativeText: null },
    supplier: { id: 'sup-1', name: 'Outdoor Ticino', slug: null },
    location: { id: 'loc-1', title: 'Cevio', slug: 'cevio', activityCount: 12 },
    type: { id: 'type-1', title: 'Canyoning', slug: 'canyoning' },
    info: null,
    summary: {
      startingPrice: { amount: '129.00', currency: 'CHF', formatted: 'CHF 129.00' },
      rankingScoreValue: 4.5,
      popularity: 230,
      isActive: true,
    },
    isBookable: true,
    nextAvailableDate: null,
    updatedAt: null,
    lat: '46.3470',
    lng: '8.5912',
    attributeValues: ['family', 'outdoor'],
    availableDates: [],
  };
}

function station(): StationRecord {
  return {
    id: 148,
    name: 'Bosco/Gurin',
    latitude: 46.3165,
    longitude: 8.4907,
    resort: { id: 148, name: 'Bosco Gurin', regionId: null },
    address: null,
    info: {
      altitude: 1503,
      seasonStart: '2026-12-12',
      seasonEnd: null,
      totalFacilities: 5,
      cableCars: 0,
      chairlifts: 1,
      skilifts: 3,
      babyLifts: 1,
      conveyorBelts: null,
      hasShuttlebus: false,
      report: null,
      lifts: { cableCar: 0, chairlift: 1, skilift: 3, babyLift: 1 },
    },
    snow: null,
    ski: null,
    snowboard: {
      funparkName: 'Gurin Park',
      snowparksTotal: 1,
      snowparksOpen: 1,
      halfpipesOpen: null,
      snowtubesOpen: null,
      hasArtificialSnow: true,
      hasFloodlight: false,
      condition: null,
      snowparks: [{ name: 'Gurin Park', type: 'SNOWPARK', status: 'OPEN', lastUpdated: null }],
    },
    crosscountry: null,
    hiking: {
      areaName: null,
      walkingTrailLength: 4000,
      walkingTrailPrepared: 4000,
      snowshoeTrailsTotal: 2,
      snowshoeTrailsLength: 7500,
      condition: 'gut',
      openingTime: null,
      closingTime: null,
      report: null,
      routes: [{ title: 'Grossalp', status: 'OPEN' }],
    },
    tobogganing: null,
    sledge: null,
    snowshoe: { trailsTotal: 2, trailsLength: 7500, trailsOpenLength: null, condition: 'gut' },
    prices: null,
    weather: { condition: 'sonnig', temperatureResort: -3, temperaturePiste: -7, forecast: null },
    weatherForecast: [{ type: 'BERG', date: '2026-11-22', temperature: -8, iconCode: 1, url: null }],
    images: [
      { type: 'LOGO', url: 'https://example.ch/logo.png', created: null, updated: null },
      { type: 'SKIMAP', url: 'https://example.ch/map.jpg', created: null, updated: null },
      { type: 'STATION_PICTURE_1', url: 'https://example.ch/1.jpg', created: null, updated: null },
    ],
    webcams: [{ url: 'https://example.ch/cam.jpg', sourceUrl: null, place: 'Grossalp', latitude: 46.3165, longitude: 8.4907 }],
    links: null,
    detailLinks: [{ lang: 'de', url: 'https://example.ch/de/bosco-gurin' }],
    lastUpdate: '2026-11-21T06:00:00Z',
    raw: { resortId: 148, elements: [] },
  };
}

function tour(): TourRecord {
  return {
    id: '0b5e2c1a-7a1e-4d0c-9a43-2f1e6f1d2b11',
    name: 'Höhenweg Grindelwald–Männlichen',
    abstract: null,
    url: null,
    routeType: 'hike',
    routeCategory: 'Regional',
    difficulty: 'medium',
    season: 'summer',
    latitude: 46.6242,
    longitude: 8.0414,
    startPoint: 'Grindelwald',
    endPoint: 'Männlichen',
    distance: 12.4,
    duration: 270,
    ascent: 1290,
    descent: 20,
    minAltitude: 1034,
    maxAltitude: 2230,
    isRoundtrip: false,
    isBarrierFree: false,
    switzerlandMobilityRoute: null,
    switzerlandMobilityUrl: null,
    geodataUrl: null,
    providerName: null,
    providerEmail: null,
    providerPhone: null,
    providerUrl: null,
    imageUrl: null,
    logoUrl: null,
    landscapes: ['withpanoramicview'],
    views: ['mountainview', 'panorama'],
    origin: null,
    lastUpdated: null,
  };
}

function attraction(): AttractionRecord {
  return {
    id: '8c0d3f6e-1b7a-4d2f-8e9c-5a4b3c2d1e0f',
    name: 'Gornergrat',
    abstract: 'Aussichtspunkt mit Blick aufs Matterhorn',
    description: null,
    url: null,
    latitude: 45.9833,
    longitude: 7.7847,
    locality: 'Zermatt',
    postalCode: '3920',
    contactName: null,
    contactPhone: null,
    contactEmail: null,
    contactUrl: null,
    touristType: [],
    seasons: ['summer', 'winter'],
    sportTypes: [],
    neededTime: '2to4hourshalfday',
    childrenAges: [],
    difficulty: null,
    natureTypes: [],
    experienceTypes: ['nature'],
    views: ['mountainview'],
    isAccessibleForFree: false,
    isWheelchairAccessible: true,
    isIndoor: false,
    isOutdoor: true,
    suitableFor: ['family'],
    seasonStart: null,
    seasonEnd: null,
    imageUrl: null,
    images: [],
    destinationId: null,
    lastUpdated: null,
  };
}

/** A deep copy of `record` with `change` applied, as a plain JSON value. */
function changed<T>(record: T, change: (copy: any) => void): unknown {
  const copy = structuredClone(record);
  change(copy);
  return copy;
}

describe('createRecordValidator', () => {
  it('accepts a valid activity with its extra attributeValues', () => {
    expect(validateActivity(activity())).toBeNull();
  });

  it('accepts a valid station with nested objects, nested lists and raw data', () => {
    expect(validateStation(station())).toBeNull();
  });

  it('accepts a valid tour', () => {
    expect(validateTour(tour())).toBeNull();
  });

  it('accepts a valid attraction', () => {
    expect(validateAttraction(attraction())).toBeNull();
  });

  it('accepts valid locations, activity types and winter routes', () => {
    const location: LocationRecord = { id: 'loc-1', title: 'Zürich', slug: 'zurich', activityCount: null };
    const type: ActivityTypeRecord = { id: 'type-1', title: 'Rafting', slug: 'rafting' };
    const route: RouteRecord = {
      id: '2f7c9a4e-0000-4000-8000-000000000001',
      type: 'snowshoe',
      number: '12',
      stationId: 12,
      status: 'OPEN',
      lastUpdated: null,
      link: null,
      isStationActive: true,
    };
    expect(createRecordValidator(schema, 'Location')(location)).toBeNull();
    expect(createRecordValidator(schema, 'ActivityType')(type)).toBeNull();
    const validateRoute = createRecordValidator(schema, 'SnowdataRoute', { computedFields: ['latitude', 'longitude', 'name', 'stationName', 'distance_km'] });
    expect(validateRoute(route)).toBeNull();
    // The store places a route: a record that carries a point of its own is refused.
    expect(validateRoute({ ...route, latitude: 46.5, longitude: 7.9 })).toBe('field "latitude" is computed by the server and must be absent');
  });

  it('accepts null for every nullable field and empty lists', () => {
    const station: StationRecord = {
      id: 1,
      name: 'Leer',
      latitude: null,
      longitude: null,
      resort: null,
      address: null,
      info: null,
      snow: null,
      ski: null,
      snowboard: null,
      crosscountry: null,
      hiking: null,
      tobogganing: null,
      sledge: null,
      snowshoe: null,
      prices: null,
      weather: null,
      weatherForecast: [],
      images: null,
      webcams: null,
      links: null,
      detailLinks: null,
      lastUpdate: null,
      raw: null,
    };
    expect(validateStation(station)).toBeNull();
  });

  it('reports null in a nested non-null field with its path and type', () => {
    const record = changed(activity(), (r) => (r.summary.rankingScoreValue = null));
    expect(validateActivity(record)).toBe('field "summary.rankingScoreValue": expected Float!, found null');
  });

  it('reports a wrong scalar type inside a list of objects with its index', () => {
    const record = changed(station(), (r) => (r.images[2].url = 42));
    expect(validateStation(record)).toBe('field "images[2].url": expected String!, found number 42');
  });

  it('reports a wrong scalar type in a list nested two objects deep', () => {
    const record = changed(station(), (r) => (r.snowboard.snowparks[0].status = true));
    expect(validateStation(record)).toBe('field "snowboard.snowparks[0].status": expected String, found boolean');
  });

  it('reports a missing non-null field', () => {
    const record = changed(activity(), (r) => delete r.summary.isActive);
    expect(validateActivity(record)).toBe('missing field "summary.isActive"');
  });

  it('reports a missing nullable field, since the sync writes every key', () => {
    const record = changed(activity(), (r) => delete r.nextAvailableDate);
    expect(validateActivity(record)).toBe('missing field "nextAvailableDate"');
  });

  it('reports a missing JSON field even though any value is allowed', () => {
    const record = changed(station(), (r) => delete r.raw);
    expect(validateStation(record)).toBe('missing field "raw"');
  });

  it('reports an unknown key inside a nested object', () => {
    const record = changed(activity(), (r) => (r.supplier.website = 'https://example.ch'));
    expect(validateActivity(record)).toBe('unknown field "supplier.website"');
  });

  it('reports an unknown key at the top level', () => {
    const record = changed(tour(), (r) => (r.lengthKm = 12.4));
    expect(validateTour(record)).toBe('unknown field "lengthKm"');
  });

  it('refuses a non-integer and a number beyond 32 bits for Int', () => {
    expect(validateActivity(changed(activity(), (r) => (r.bookingId = 1.5)))).toBe('field "bookingId": expected Int!, found number 1.5');
    expect(validateActivity(changed(activity(), (r) => (r.bookingId = 2 ** 31)))).toBe(
      'field "bookingId": expected Int!, found number 2147483648',
    );
  });

  it('accepts negative integers for Int', () => {
    expect(validateStation(changed(station(), (r) => (r.weather.temperaturePiste = -2147483648)))).toBeNull();
  });

  it('refuses a non-finite number and a numeric string for Float', () => {
    expect(validateTour(changed(tour(), (r) => (r.latitude = Infinity)))).toBe('field "latitude": expected Float, found number Infinity');
    expect(validateTour(changed(tour(), (r) => (r.latitude = '46.6')))).toBe('field "latitude": expected Float, found string');
  });

  it('refuses a string for Boolean', () => {
    expect(validateAttraction(changed(attraction(), (r) => (r.isIndoor = 'false')))).toBe('field "isIndoor": expected Boolean!, found string');
  });

  it('refuses a non-list where a list is expected', () => {
    const record = changed(tour(), (r) => (r.landscapes = 'withpanoramicview'));
    expect(validateTour(record)).toBe('field "landscapes": expected [String!]!, found string');
  });

  it('refuses null for a non-null list and for a non-null list item', () => {
    expect(validateAttraction(changed(attraction(), (r) => (r.images = null)))).toBe('field "images": expected [String!]!, found null');
    expect(validateTour(changed(tour(), (r) => (r.views[1] = null)))).toBe('field "views[1]": expected String!, found null');
  });

  it('refuses an array or a scalar where an object is expected', () => {
    expect(validateActivity(changed(activity(), (r) => (r.summary = [])))).toBe('field "summary": expected Summary!, found array');
    expect(validateStation(changed(station(), (r) => (r.resort = 'Bosco')))).toBe('field "resort": expected SnowdataResort, found string');
  });

  it('accepts any value for a JSON field', () => {
    for (const raw of [{ a: [1, { b: null }] }, [1, 2], 'text', 3.5, false, null]) {
      expect(validateStation(changed(station(), (r) => (r.raw = raw)))).toBeNull();
    }
  });

  it('refuses a record that is not an object', () => {
    expect(validateActivity(null)).toBe('expected object of type Activity, found null');
    expect(validateActivity([activity()])).toBe('expected object of type Activity, found array');
    expect(validateActivity('act-1')).toBe('expected object of type Activity, found string');
  });

  it('reports the first problem in schema field order', () => {
    const record = changed(activity(), (r) => {
      r.title = 7;
      r.lng = 8.59;
    });
    expect(validateActivity(record)).toBe('field "title": expected String, found number 7');
  });

  it('refuses a computed field that a record carries', () => {
    expect(validateActivity({ ...activity(), distance: 3.2 })).toBe('field "distance" is computed by the server and must be absent');
    expect(validateTour({ ...tour(), distance_km: 3.2 })).toBe('field "distance_km" is computed by the server and must be absent');
  });

  it('requires a computed field when it is not declared as computed', () => {
    expect(createRecordValidator(schema, 'Tour')(tour())).toBe('missing field "distance_km"');
  });

  it('allows an extra field only when it is declared', () => {
    const { attributeValues, availableDates: _, ...withoutExtra } = activity();
    expect(validateActivity(withoutExtra)).toBeNull();
    const plain = createRecordValidator(schema, 'Activity', { computedFields: ['distance', 'license', 'attribution'] });
    expect(plain({ ...withoutExtra, attributeValues })).toBe('unknown field "attributeValues"');
  });

  it('applies computed and extra fields to the top level only', () => {
    const record = changed(activity(), (r) => (r.location.attributeValues = []));
    expect(validateActivity(record)).toBe('unknown field "location.attributeValues"');
  });

  it('checks a type that contains itself', () => {
    const recursive = buildSchema('type Query { node: Node } type Node { name: String! next: Node }');
    const validate = createRecordValidator(recursive, 'Node');
    expect(validate({ name: 'a', next: { name: 'b', next: null } })).toBeNull();
    expect(validate({ name: 'a', next: { name: 'b', next: { name: 3, next: null } } })).toBe(
      'field "next.next.name": expected String!, found number 3',
    );
  });

  it('does not take a missing field from the object prototype', () => {
    const odd = buildSchema('type Query { a: A } type A { constructor: String }');
    expect(createRecordValidator(odd, 'A')({})).toBe('missing field "constructor"');
  });

  it('throws at creation for a type name that is unknown or not an object type', () => {
    expect(() => createRecordValidator(schema, 'Activities')).toThrow('createRecordValidator: unknown type "Activities"');
    expect(() => createRecordValidator(schema, 'JSON')).toThrow('createRecordValidator: "JSON" is not an object type');
  });

  it('throws at creation for computed fields that are not nullable fields of the type', () => {
    expect(() => createRecordValidator(schema, 'Tour', { computedFields: ['distanceKm'] })).toThrow(
      'computed field "Tour.distanceKm" is not a field of the type',
    );
    expect(() => createRecordValidator(schema, 'Tour', { computedFields: ['name'] })).toThrow(
      'computed field "Tour.name" is String!; it must be nullable',
    );
  });

  it('throws at creation for an extra field that is a field of the type', () => {
    expect(() => createRecordValidator(schema, 'Activity', { extraFields: ['title'] })).toThrow(
      'extra field "Activity.title" is already a field of the type',
    );
  });

  it('throws at creation for scalars and kinds it cannot check', () => {
    const dated = buildSchema('scalar Date type Query { a: A } type A { at: Date } enum Color { RED } type B { color: Color }');
    expect(() => createRecordValidator(dated, 'A')).toThrow('cannot validate scalar "Date": no check for it');
    expect(() => createRecordValidator(dated, 'B')).toThrow('cannot validate "Color": only scalars, lists and object types are supported');
  });
});
