import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLES_DIR, listSampleJson, readSampleJson } from '../../../sync/fixtures/samplesDir.ts';
import type { AttractionRecord, TourRecord } from '../../../sync/format.ts';
import { FieldReader, InvalidRecordError } from '../../../sync/sources/read.ts';
import { licenseOf } from '../../../sync/sources/myswitzerland/license.ts';
import { normalizeAttraction, normalizeTour } from '../../../sync/sources/myswitzerland/normalize.ts';

/** Every record of every real list response, duplicates across files included. */
function readSampleRecords(): Record<string, unknown>[] {
  const dir = path.join(DEFAULT_SAMPLES_DIR, 'myswitzerland', 'attractions-by-city');
  return listSampleJson(dir).flatMap((file) => (readSampleJson(file) as { data: Record<string, unknown>[] }).data);
}

const SAMPLES = readSampleRecords();

function sample(id: string): Record<string, unknown> {
  const found = SAMPLES.find((r) => r['identifier'] === id);
  if (!found) throw new Error(`no sample ${id}`);
  return found;
}

function thrown(fn: () => unknown): InvalidRecordError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidRecordError) return error;
    throw error;
  }
  throw new Error('expected an InvalidRecordError, nothing was thrown');
}


describe('normalizeAttraction on the real samples', () => {
  it('maps "Via Ferrata in Zermatt" field by field', () => {
    expect(normalizeAttraction(sample('dc2b782d-b1f1-40ee-aef6-2d9f9b012d05'), 'en')).toEqual(VIA_FERRATA);
  });

  it('maps the record with the most keys, which has no address but a record-level phone and email', () => {
    expect(normalizeAttraction(sample('84e620d1-a88c-43de-b6fd-b235adeb5ec4'), 'en')).toEqual(VINEYARD);
  });

  it('maps "Marzili Lido" with its recommended season and wheelchair access', () => {
    expect(normalizeAttraction(sample('f776b54d-986d-4e02-a4c3-c144e8431d28'), 'en')).toEqual(MARZILI);
  });

  it('maps "Hasliberg Route", which has no coordinates, address, abstract or destination id', () => {
    expect(normalizeAttraction(sample('8d50824c-a698-47c1-9faf-3589266bb5d1'), 'en')).toEqual(HASLIBERG);
  });

  it('normalises every one of the 1,299 real records without an error', () => {
    expect(SAMPLES).toHaveLength(1299);
    const failures = SAMPLES.flatMap((record) => {
      try {
        normalizeAttraction(record, 'en');
        return [];
      } catch (error) {
        return [String(error)];
      }
    });
    expect(failures).toEqual([]);
  });

  it('gives every real record an id, a name and lists without null, empty or repeated values', () => {
    for (const record of SAMPLES) {
      const a = normalizeAttraction(record, 'en');
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(a.name.length).toBeGreaterThan(0);
      for (const list of [a.touristType, a.seasons, a.sportTypes, a.childrenAges, a.natureTypes, a.experienceTypes, a.views, a.suitableFor, a.images]) {
        expect(new Set(list).size).toBe(list.length);
        expect(list.every((v) => typeof v === 'string' && v !== '')).toBe(true);
      }
    }
  });

  it('drops the coordinates of the real record that upstream places near Dunkirk', () => {
    const record = sample('44495882-6645-4d90-ac44-16a56e402ec9');
    expect(record['geo']).toMatchObject({ latitude: 51.01646004005973, longitude: 1.913500793460025 });
    expect(normalizeAttraction(record, 'en')).toMatchObject({ name: 'Stand Up Paddle Club Luzern', latitude: null, longitude: null });
  });
});

describe('normalizeAttraction on edge cases', () => {
  it('fills every gap of a record with only an identifier and a name', () => {
    expect(normalizeAttraction({ identifier: 'a-1', name: 'Rheinfall' }, 'de')).toEqual({
      id: 'a-1',
      name: 'Rheinfall',
      abstract: null,
      description: null,
      url: null,
      latitude: null,
      longitude: null,
      locality: null,
      postalCode: null,
      contactName: null,
      contactPhone: null,
      contactEmail: null,
      contactUrl: null,
      touristType: [],
      seasons: [],
      sportTypes: [],
      neededTime: null,
      childrenAges: [],
      difficulty: null,
      natureTypes: [],
      experienceTypes: [],
      views: [],
      isAccessibleForFree: false,
      isWheelchairAccessible: false,
      isIndoor: false,
      isOutdoor: false,
      suitableFor: [],
      seasonStart: null,
      seasonEnd: null,
      imageUrl: null,
      images: [],
      destinationId: null,
      lastUpdated: null,
      upstreamLicense: null,
    } satisfies AttractionRecord);
  });

  it('merges repeated classifications and images, keeping the first occurrence in upstream order', () => {
    const a = normalizeAttraction(
      {
        identifier: 'a-2',
        name: '  Gruyères castle ',
        abstract: '   ',
        touristType: 'Cultural Tourism',
        classification: [
          { name: 'seasons', values: [{ name: 'summer' }, { name: 'winter' }] },
          { values: [{ name: 'de', title: 'German' }] },
          { name: 'seasons', values: [{ name: 'winter' }, { name: 'autumn' }, {}] },
          { name: 'neededtime', values: [{ name: '2days' }, { name: 'severaldays' }] },
          { name: 'wheelchairaccessibleclassifications', values: [{ name: 'partiallywheelchairaccessible' }] },
          { name: 'indooroutdoorclassifications', values: [{ name: 'indoor' }] },
        ],
        image: [{ url: 'https://x.ch/1.jpg' }, { url: 'https://x.ch/2.jpg' }, { url: 'https://x.ch/1.jpg' }, { name: 'no url' }],
        photo: { url: 'https://x.ch/2.jpg' },
        recommendedSeason: 'allyear',
        dateModified: '2025-06-01T08:00:00Z',
      },
      'fr',
    );
    expect(a).toMatchObject({
      name: 'Gruyères castle',
      abstract: null,
      touristType: ['Cultural Tourism'],
      seasons: ['summer', 'winter', 'autumn'],
      // Kept as sent: the real facets hold 2days, 3days, 4days and 7days beside severaldays.
      neededTime: '2days',
      isWheelchairAccessible: false,
      isIndoor: true,
      isOutdoor: false,
      images: ['https://x.ch/1.jpg', 'https://x.ch/2.jpg'],
      imageUrl: 'https://x.ch/2.jpg',
      seasonStart: 'january',
      seasonEnd: 'december',
      lastUpdated: '2025-06-01T08:00:00Z',
    });
  });

  it.each([
    [null, '', 'attraction (no id): record must be an object, got null'],
    [['a'], '', 'attraction (no id): record must be an object, got array'],
    [{ name: 'Pilatus' }, 'identifier', 'attraction (no id): missing "identifier"'],
    [{ identifier: ' ', name: 'Pilatus' }, 'identifier', 'attraction (no id): "identifier" must be a non-empty string, got " "'],
    [{ identifier: 42, name: 'Pilatus' }, 'identifier', 'attraction (no id): "identifier" must be a non-empty string, got 42'],
    [{ identifier: 'a-3' }, 'name', 'attraction a-3: missing "name"'],
    [{ identifier: 'a-3', name: '  ' }, 'name', 'attraction a-3: missing "name"'],
    [{ identifier: 'a-3', name: 7 }, 'name', 'attraction a-3: "name" must be a string, got number'],
    [{ identifier: 'a-3', name: 'P', geo: { latitude: '46.9', longitude: 8.2 } }, 'geo.latitude', 'attraction a-3: "geo.latitude" must be a finite number, got string'],
    [{ identifier: 'a-3', name: 'P', geo: { latitude: 146.9, longitude: 8.2 } }, 'geo.latitude', 'attraction a-3: "geo.latitude" 146.9 is outside [-90, 90]'],
    [{ identifier: 'a-3', name: 'P', geo: [46.9, 8.2] }, 'geo', 'attraction a-3: "geo" must be an object, got array'],
    [{ identifier: 'a-3', name: 'P', classification: {} }, 'classification', 'attraction a-3: "classification" must be an array, got object'],
    [{ identifier: 'a-3', name: 'P', classification: [{ name: 'seasons', values: ['summer'] }] }, 'classification.0.values.0', 'attraction a-3: "classification.0.values.0" must be an object, got string'],
    [{ identifier: 'a-3', name: 'P', address: ['Zermatt'] }, 'address.0', 'attraction a-3: "address.0" must be an object, got string'],
    [{ identifier: 'a-3', name: 'P', isAccessibleForFree: 'yes' }, 'isAccessibleForFree', 'attraction a-3: "isAccessibleForFree" must be a boolean, got string'],
    [{ identifier: 'a-3', name: 'P', touristType: [1] }, 'touristType.0', 'attraction a-3: "touristType.0" must be a string, got number'],
  ])('refuses %j, naming the field', (record, field, message) => {
    const error = thrown(() => normalizeAttraction(record, 'en'));
    expect(error.message).toBe(message);
    expect(error.field).toBe(field);
    expect(error.kind).toBe('attraction');
  });
});

/** An upstream tour in the shape sync/sources/myswitzerland/normalize.ts reads (UpstreamTour). */
const ZERMATT_TOUR = {
  '@type': 'Tour',
  identifier: 'c0ffee00-0000-4000-8000-000000000001',
  name: 'Rundwanderung Zermatt – Riffelsee',
  abstract: 'Unterwegs von Zermatt via Riffelsee und zurück.',
  url: 'https://www.myswitzerland.com/de/experiences/route/rundwanderung-zermatt-riffelsee/',
  geo: { '@type': 'GeoCoordinates', latitude: 46.0207, longitude: 7.7491 },
  provider: {
    '@type': 'Organization',
    name: 'Zermatt Tourismus',
    address: [{ '@type': 'PostalAddress', telephone: '+41 (0)27 966 81 00', email: 'info@zermatt.ch', url: 'https://www.zermatt.ch/' }],
  },
  image: [{ url: 'https://static.stnet.ch/offers/images/1-o.jpg' }, { url: 'https://static.stnet.ch/offers/images/2-o.jpg' }],
  logo: 'https://static.stnet.ch/logos/zermatt-tourismus.png',
  classification: [
    { name: 'routestypes', values: [{ name: 'hike', title: 'Wandern' }] },
    { name: 'seasons', values: [{ name: 'winter' }] },
    { name: 'routecategories', values: [{ name: 'local', title: 'Lokal' }] },
    { name: 'requirementconditions', values: [{ name: 'medium' }] },
    { name: 'landscape', values: [{ name: 'alongwater' }, { name: 'withpanoramicview' }, { name: 'alongwater' }] },
    { name: 'views', values: [{ name: 'mountainview' }] },
    { name: 'origin', values: [{ name: 'myswitzerland' }] },
  ],
  specs: { season: 'summer', distance: 12.4, duration: 270.4, ascent: 780, descent: 780, minAltitude: 1604, maxAltitude: 2757, roundTrip: true, barrierFree: false },
  itinerary: [{ name: 'Zermatt' }, { name: 'Riffelsee' }, { name: 'Zermatt' }],
  dateModified: '2025-05-02T10:00:00Z',
};

describe('the licence a record states', () => {
  it('is kept on every real attraction sample, as the SPDX id of its Creative Commons URL', () => {
    const licenses = new Set(SAMPLES.map((record) => normalizeAttraction(record, 'en').upstreamLicense));
    expect([...licenses]).toEqual(['CC-BY-SA-4.0']);
  });

  it('is kept on a tour that states one, and null on one that does not', () => {
    expect(normalizeTour({ ...ZERMATT_TOUR, subjectOf: { '@type': 'CreativeWork', license: 'https://creativecommons.org/licenses/by/4.0/' } }, 'de').upstreamLicense).toBe('CC-BY-4.0');
    expect(normalizeTour(ZERMATT_TOUR, 'de').upstreamLicense).toBeNull();
  });

  it('maps the Creative Commons licences and CC0 to SPDX ids, and keeps any other text as stated', () => {
    expect(licenseOf('http://creativecommons.org/licenses/by-sa/4.0/')).toBe('CC-BY-SA-4.0');
    expect(licenseOf('https://creativecommons.org/licenses/by-nc-nd/3.0/legalcode')).toBe('CC-BY-NC-ND-3.0');
    expect(licenseOf('https://creativecommons.org/publicdomain/zero/1.0/')).toBe('CC0-1.0');
    // A national port has no SPDX id of its own here: its URL names its terms.
    expect(licenseOf('https://creativecommons.org/licenses/by/3.0/ch/')).toBe('https://creativecommons.org/licenses/by/3.0/ch/');
    expect(licenseOf('  Terms of use: see myswitzerland.com  ')).toBe('Terms of use: see myswitzerland.com');
    expect(licenseOf('  ')).toBeNull();
    expect(licenseOf(null)).toBeNull();
  });
});

describe('normalizeTour', () => {
  it('counts the fields a record lacks per field path, list items as []', () => {
    const misses = new FieldReader();
    normalizeTour(ZERMATT_TOUR, 'de', misses);
    expect(misses.misses['specs.distance']).toBeUndefined();
    // The upstream renames `distance` in the specs: each record's distance is counted as missing.
    const renamed = { ...ZERMATT_TOUR, specs: { ...ZERMATT_TOUR.specs, distance: undefined, length: 12.4 } };
    expect(normalizeTour(renamed, 'de', misses).distance).toBeNull();
    normalizeTour({ ...renamed, itinerary: [{ name: 'Zermatt' }, {}] }, 'de', misses);
    expect(misses.misses).toMatchObject({ 'specs.distance': 2, 'itinerary[].name': 1 });
  });

  it('maps a tour field by field', () => {
    expect(normalizeTour(ZERMATT_TOUR, 'de')).toEqual({
      id: 'c0ffee00-0000-4000-8000-000000000001',
      name: 'Rundwanderung Zermatt – Riffelsee',
      abstract: 'Unterwegs von Zermatt via Riffelsee und zurück.',
      url: 'https://www.myswitzerland.com/de/experiences/route/rundwanderung-zermatt-riffelsee/',
      routeType: 'hike',
      routeCategory: 'Local',
      difficulty: 'medium',
      season: 'summer',
      latitude: 46.0207,
      longitude: 7.7491,
      startPoint: 'Zermatt',
      endPoint: 'Zermatt',
      distance: 12.4,
      duration: 270,
      ascent: 780,
      descent: 780,
      minAltitude: 1604,
      maxAltitude: 2757,
      isRoundtrip: true,
      isBarrierFree: false,
      switzerlandMobilityRoute: null,
      switzerlandMobilityUrl: null,
      geodataUrl: null,
      providerName: 'Zermatt Tourismus',
      providerEmail: 'info@zermatt.ch',
      providerPhone: '+41 (0)27 966 81 00',
      providerUrl: 'https://www.zermatt.ch/',
      imageUrl: 'https://static.stnet.ch/offers/images/1-o.jpg',
      logoUrl: 'https://static.stnet.ch/logos/zermatt-tourismus.png',
      landscapes: ['alongwater', 'withpanoramicview'],
      views: ['mountainview'],
      origin: 'myswitzerland',
      lastUpdated: '2025-05-02T10:00:00Z',
      upstreamLicense: null,
    } satisfies TourRecord);
  });

  it('takes category, difficulty and route data from switzerlandMobility when the classifications lack them', () => {
    const tour = normalizeTour(
      {
        identifier: 't-2',
        name: 'Veloroute Bodensee–Genfersee',
        classification: [{ name: 'routestypes', values: [{ name: 'bicycle' }] }],
        photo: 'https://static.stnet.ch/offers/images/p-o.jpg',
        logo: { url: 'https://static.stnet.ch/logos/schweizmobil.png' },
        switzerlandMobility: {
          url: 'https://schweizmobil.ch/de/veloland/route-9',
          geodata: 'https://opendata.myswitzerland.io/v1/tours/t-2/geodata',
          routeCategory: 'national',
          routeNumber: '09',
          requirements: { technical: 'easy', endurance: 'difficult' },
        },
        itinerary: [{ name: 'Montreux' }, { name: 'Rorschach' }],
      },
      'de',
    );
    expect(tour).toMatchObject({
      routeType: 'bicycle',
      routeCategory: 'National',
      difficulty: 'difficult',
      season: null,
      startPoint: 'Montreux',
      endPoint: 'Rorschach',
      switzerlandMobilityRoute: 9,
      switzerlandMobilityUrl: 'https://schweizmobil.ch/de/veloland/route-9',
      geodataUrl: 'https://opendata.myswitzerland.io/v1/tours/t-2/geodata',
      imageUrl: 'https://static.stnet.ch/offers/images/p-o.jpg',
      logoUrl: 'https://static.stnet.ch/logos/schweizmobil.png',
      isRoundtrip: false,
      isBarrierFree: false,
    });
  });

  it('reads the attraction vocabulary low/high as easy/difficult and keeps an unknown category as sent', () => {
    const tour = (difficulty: string, category: string): TourRecord =>
      normalizeTour(
        { identifier: 't-3', name: 'Winterweg', classification: [{ name: 'requirementconditions', values: [{ name: difficulty }] }, { name: 'routecategories', values: [{ name: category }] }, { name: 'seasons', values: [{ name: 'autumn' }, { name: 'winter' }] }] },
        'it',
      );
    expect(tour('low', 'Handicap')).toMatchObject({ difficulty: 'easy', routeCategory: 'Handicap', season: 'winter' });
    expect(tour('high', 'REGIONAL')).toMatchObject({ difficulty: 'difficult', routeCategory: 'Regional' });
    expect(tour('extreme', 'cantonal')).toMatchObject({ difficulty: null, routeCategory: 'cantonal' });
  });

  it('reads specs, provider and its address sent as lists, taking the first object of each', () => {
    const tour = normalizeTour(
      {
        identifier: 't-5',
        name: 'Panoramaweg',
        specs: [{ season: 'Winter', distance: 7.5, minAltitude: 1500, maxAltitude: 1900 }, { season: 'summer', distance: 99 }],
        provider: [
          { name: 'Arosa Tourismus', address: { email: 'hallo@arosa.ch', telephone: '+41 81 378 70 20', url: 'https://arosa.swiss/' } },
          { name: 'Second provider' },
        ],
      },
      'de',
    );
    expect(tour).toMatchObject({
      season: 'winter',
      distance: 7.5,
      minAltitude: 1500,
      maxAltitude: 1900,
      providerName: 'Arosa Tourismus',
      providerEmail: 'hallo@arosa.ch',
      providerPhone: '+41 81 378 70 20',
      providerUrl: 'https://arosa.swiss/',
    });
    const empty = normalizeTour({ identifier: 't-6', name: 'Leer', specs: [], provider: [] }, 'de');
    expect(empty).toMatchObject({ season: null, distance: null, providerName: null });
    expect(() => normalizeTour({ identifier: 't-7', name: 'Kaputt', provider: ['Arosa'] }, 'de')).toThrow('tour t-7: "provider.0" must be an object, got string');
  });

  it('fills every gap of a tour with only an identifier and a name', () => {
    expect(normalizeTour({ identifier: 't-4', name: 'Sils/Segl – Fextal' }, 'en')).toEqual({
      id: 't-4',
      name: 'Sils/Segl – Fextal',
      abstract: null,
      url: null,
      routeType: null,
      routeCategory: null,
      difficulty: null,
      season: null,
      latitude: null,
      longitude: null,
      startPoint: null,
      endPoint: null,
      distance: null,
      duration: null,
      ascent: null,
      descent: null,
      minAltitude: null,
      maxAltitude: null,
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
      landscapes: [],
      views: [],
      origin: null,
      lastUpdated: null,
      upstreamLicense: null,
    } satisfies TourRecord);
  });

  it.each([
    [{ ...ZERMATT_TOUR, identifier: undefined }, 'identifier', 'tour (no id): missing "identifier"'],
    [{ ...ZERMATT_TOUR, name: null }, 'name', 'tour c0ffee00-0000-4000-8000-000000000001: missing "name"'],
    [{ ...ZERMATT_TOUR, specs: { distance: '12 km' } }, 'specs.distance', 'tour c0ffee00-0000-4000-8000-000000000001: "specs.distance" must be a finite number, got string'],
    [{ ...ZERMATT_TOUR, specs: { roundTrip: 'yes' } }, 'specs.roundTrip', 'tour c0ffee00-0000-4000-8000-000000000001: "specs.roundTrip" must be a boolean, got string'],
    [{ ...ZERMATT_TOUR, switzerlandMobility: 'route 9' }, 'switzerlandMobility', 'tour c0ffee00-0000-4000-8000-000000000001: "switzerlandMobility" must be an object, got string'],
    [{ ...ZERMATT_TOUR, itinerary: [{ name: 12 }] }, 'itinerary.0.name', 'tour c0ffee00-0000-4000-8000-000000000001: "itinerary.0.name" must be a string, got number'],
  ])('refuses a tour with a broken field (%#), naming it', (record, field, message) => {
    const error = thrown(() => normalizeTour(record, 'fr'));
    expect(error.message).toBe(message);
    expect(error.field).toBe(field);
    expect(error.kind).toBe('tour');
  });
});

// Expected results for the real samples, checked by hand against the records in
// test/fixtures/upstream/myswitzerland/attractions-by-city.

const VIA_FERRATA: AttractionRecord = {
  id: 'dc2b782d-b1f1-40ee-aef6-2d9f9b012d05',
  name: 'Via Ferrata in Zermatt',
  abstract: 'With its impressive rock formations surrounded by thundering waters, the Gorner canyon between Furri (1865m) and Zermatt (1620m) presents a unique display of the beauty and power of nature.',
  description: 'Characteristics: steep, exposed\nRoute guidance: numerous iron railings, ladders and ropes adapted to the terrain\nSuitable for: vertigo-free people of all ages (children from 12 years on). \nHighlights: suspension bridges, 3 cable car lifts, pendulum-crossings, 3 abseil spots. \nCondition: for all \nAscent / Descent via Zermatt-Furri mountain rail\nLength: \napprox. 1 kilometer downwards crossing accomplished in 3 to 4 hours.\nRental equipment: /span> equipment included in the arrangement\nDeparture point: Furri above Zermatt\nVia Ferrata in the region: view Saas Fee',
  url: 'https://www.myswitzerland.com/en/experiences/via-ferrata-in-zermatt/',
  latitude: 46.02116301296542,
  longitude: 7.746656525612845,
  locality: 'Zermatt',
  postalCode: '3920',
  contactName: 'ZERMATTERS',
  contactPhone: '+41 (0)27 966 24 66',
  contactEmail: 'info@zermatters.ch',
  contactUrl: 'https://www.zermatters.ch/',
  touristType: ['Adventure Tourism'],
  seasons: ['summer'],
  sportTypes: ['climb'],
  neededTime: '4to8hoursfullday',
  childrenAges: ['14plus'],
  difficulty: null,
  natureTypes: ['viaferrata'],
  experienceTypes: ['adventure', 'nature', 'active'],
  views: [],
  isAccessibleForFree: true,
  isWheelchairAccessible: false,
  isIndoor: false,
  isOutdoor: true,
  suitableFor: [],
  seasonStart: null,
  seasonEnd: null,
  imageUrl: 'https://www.myswitzerland.com/-/media/st/gadmin/images/sport/summer/adventure/klettersteigzermatt_40781.jpg',
  images: ['https://www.myswitzerland.com/-/media/st/gadmin/images/sport/summer/adventure/klettersteigzermatt_40781.jpg'],
  destinationId: '3a75caaf-aa16-4ba1-82a9-c800ca08336d',
  lastUpdated: null,
  upstreamLicense: 'CC-BY-SA-4.0',
};

const VINEYARD: AttractionRecord = {
  id: '84e620d1-a88c-43de-b6fd-b235adeb5ec4',
  name: 'Pleasant visit to the vineyard',
  abstract: null,
  description: 'Winegrower Coraline de Wurstemberger opens the door to her winery “Les Dames de Hautecour”. At the heart of the wine-growing village Mont-sur-Rolle the guests dine amid the vineyards, with a view of Lake Geneva, and drink Chasselas from the winery. The guests can even share a glass with the charming owner.',
  url: 'https://www.myswitzerland.com/en/experiences/pleasant-visit-to-the-vineyard/',
  latitude: 46.4707372731,
  longitude: 6.3391931392,
  locality: null,
  postalCode: null,
  contactName: null,
  contactPhone: '+41 (0)52 232 66 88',
  contactEmail: 'info@swisstavolata.ch',
  contactUrl: null,
  touristType: ['Wine Tourism', 'Culinary Tourism'],
  seasons: ['summer', 'autumn'],
  sportTypes: [],
  neededTime: '2to4hourshalfday',
  childrenAges: [],
  difficulty: null,
  natureTypes: [],
  experienceTypes: ['nature', 'culinary'],
  views: [],
  isAccessibleForFree: false,
  isWheelchairAccessible: false,
  isIndoor: true,
  isOutdoor: true,
  suitableFor: ['couples', 'family', 'group', 'individual'],
  seasonStart: null,
  seasonEnd: null,
  imageUrl: 'https://static.stnet.ch/offers/images/ef9af3e7-86bb-412e-8de9-f54ffaa78d0a-o.jpg',
  images: ['https://static.stnet.ch/offers/images/6566bfc5-cc0e-4754-bebe-eeca2f6314fd-o.jpg', 'https://static.stnet.ch/offers/images/ef9af3e7-86bb-412e-8de9-f54ffaa78d0a-o.jpg', 'https://static.stnet.ch/offers/images/0b64ca45-65f5-4a04-b3c9-0922d00534a1-o.jpg', 'https://static.stnet.ch/offers/images/6ce0d73a-43dc-48a9-9ef7-cb9561e14a2d-o.jpg'],
  destinationId: 'b8a698c6-3d2e-410f-90d3-2ae297617353',
  lastUpdated: null,
  upstreamLicense: 'CC-BY-SA-4.0',
};

const MARZILI: AttractionRecord = {
  id: 'f776b54d-986d-4e02-a4c3-c144e8431d28',
  name: 'Marzili Lido',
  abstract: 'The most popular open air bathing spot in Bern. As with all other public baths in the town of Bern, the Marzilibad is completely free. The separate “Paradiesli” and “Männerbad” areas allow men and women to sunbathe unclothed.',
  description: 'The Marzili (also known as the Marzer) has a paddling pool for younger guests and a sports pool with 8 x 50m lanes, a non-swimmer pool and a diving pool with 1m and 3m diving platforms. There are also 10,000 square metres of open space for relaxing in.\n\nIf you visit the city in summer, sooner or later you will be recommended a visit to the “most beautiful river baths in Europe” with a view of the Swiss Parliament House and minster – free of charge, please note.\n\nThe first baths opened here in 1782, when admission cost 5 cents. In 1822, an oval swimming pool with a timbered wall was added, fed by the River Aare. The green area was added in 1957 and in 1968 the 50-metre pool was built.\n\nWithout a doubt, the most special thing about the Marzili is the opportunity to swim in the open water of the River Aare (but you must be a strong swimmer to do so!). There are several spots around the pool and along the river with steps and handrails for you to enter the water. Guests change in the baths and then make their way upriver to the entry point of their choice.\n\nGetting there: By train to Bern, then preferably on foot – the lido is located directly beneath the Parliament House, Marzilibahn or by car (parking spaces are signposted “Marzilibad” and a charge is payable).',
  url: 'https://www.myswitzerland.com/en/experiences/marzili-lido/',
  latitude: 46.9417889089834,
  longitude: 7.444560561671979,
  locality: 'Bern',
  postalCode: '3005',
  contactName: 'Freibad Marzili',
  contactPhone: '+41 (0)31 311 00 46',
  contactEmail: null,
  contactUrl: 'http://www.aaremarzili.info/',
  touristType: ['City Tourism'],
  seasons: ['summer'],
  sportTypes: ['bathingandswimming'],
  neededTime: '2to4hourshalfday',
  childrenAges: ['14plus', '10to13years', '6to9years'],
  difficulty: null,
  natureTypes: [],
  experienceTypes: ['nature', 'urban', 'relax'],
  views: [],
  isAccessibleForFree: true,
  isWheelchairAccessible: true,
  isIndoor: false,
  isOutdoor: true,
  suitableFor: ['children', 'couples', 'family', 'individual'],
  seasonStart: 'may',
  seasonEnd: 'september',
  imageUrl: 'https://www.myswitzerland.com/-/media/st/gadmin/images/wellness/summer/marzili_38110.jpg',
  images: ['https://www.myswitzerland.com/-/media/st/gadmin/images/wellness/summer/marzili_38110.jpg', 'https://www.myswitzerland.com/-/media/st/gadmin/images/cities/summer/various/bern037_38110.jpg', 'https://www.myswitzerland.com/-/media/st/gadmin/images/cities/summer/cities/bt971_38110.jpg', 'https://www.myswitzerland.com/-/media/st/gadmin/images/landscapes/summer/rivers/5_aare_bern_38110.jpg', 'https://www.myswitzerland.com/-/media/st/gadmin/images/landscapes/summer/rivers/bt1381_38110.jpg'],
  destinationId: 'de89fc29-50af-466c-a466-583b66cdef9c',
  lastUpdated: null,
  upstreamLicense: 'CC-BY-SA-4.0',
};

const HASLIBERG: AttractionRecord = {
  id: '8d50824c-a698-47c1-9faf-3589266bb5d1',
  name: 'Hasliberg Route',
  abstract: null,
  description: 'In summer, from Brienz or Brünig-Hasliberg, the Hasliberg Route provides passengers a view of Switzerland’s largest open-air museum, namely Ballenberg. Brienz, adjacent to the attractive Brienz lake in the Bernese Oberland and famous for its traditional wood carvings is another beautiful spot- and one easily reached by rail or boat.\n\nAnd a stop at the imposing Giesbach falls on a boat ride from Interlaken represents yet another highlight on this scenic route. Families are particularly attracted to the unique Zwergenweg dwarf’s trail in Muggenstutz (PostBus stops Twing and Reuti) and the promises of fun and adventure for all. And there’s even more active fun in store! The Haslital valley and sun-spoilt Hasliberg terrace are home to a large network of varied hiking paths – a part of which with superb views over the Engelhörner, the Wetterhorn group and notorious Eiger and Mönch summits. \n\nIn winter the Hasliberg Route connects to the Meiringen-Hasliberg winter sports region; where visitors enjoy the sunny side of life along with numerous sportive and relaxing activities. Active ski and snowboard fans are delighted at the sight of 60 kilometres of broad and well-prepared pistes – a part of which, covered with artificial snow, guarantee winter sports fun in the absence of the real stuff! Moreover, our smallest guests are well entertained with suitable Skihäsiland lifts and playground infrastructure – and the promise of additional pure and healthy fun is fulfilled in winter with a number of beautiful hiking paths, exciting sled runs and cross-country course.\nAdditional useful information on the PostBus excursion routes and a wealth of pictures and video clips can be found at the link in the right-hand box.',
  url: 'https://www.myswitzerland.com/en/experiences/hasliberg-route/',
  latitude: null,
  longitude: null,
  locality: null,
  postalCode: null,
  contactName: null,
  contactPhone: null,
  contactEmail: null,
  contactUrl: null,
  touristType: [],
  seasons: [],
  sportTypes: [],
  neededTime: null,
  childrenAges: [],
  difficulty: null,
  natureTypes: [],
  experienceTypes: [],
  views: [],
  isAccessibleForFree: true,
  isWheelchairAccessible: false,
  isIndoor: false,
  isOutdoor: false,
  suitableFor: [],
  seasonStart: null,
  seasonEnd: null,
  imageUrl: 'https://www.myswitzerland.com/-/media/st/gadmin/images/transport/summer/bus/105l_hasliberg-linie_091_q3e1381_office_61072.jpg',
  images: ['https://www.myswitzerland.com/-/media/st/gadmin/images/transport/summer/bus/105l_hasliberg-linie_091_q3e1381_office_61072.jpg'],
  destinationId: null,
  lastUpdated: null,
  upstreamLicense: 'CC-BY-SA-4.0',
};

