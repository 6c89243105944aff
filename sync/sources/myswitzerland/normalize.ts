/**
 * MySwitzerland tours and attractions to published records. The field-by-field mapping, with
 * the reasons behind each choice, is docs/myswitzerland-mapping.md.
 */

import type { AttractionRecord, TourRecord } from '../../format.ts';
import { FieldReader, InvalidRecordError } from '../read.ts';
import { type Fail, isObject, type Json, ObjectReader, typeName, unique } from './objectReader.ts';
import type { Language } from './api.ts';
import { licenseOf } from './license.ts';

/**
 * Switzerland with a margin of about 30 km (degrees), so Liechtenstein and places just across
 * a border still count. Coordinates outside it are upstream errors and are dropped.
 */
export const SERVICE_AREA = { minLng: 5.5, maxLng: 11, minLat: 45.5, maxLat: 48.2 } as const;

/**
 * Maps one upstream attraction onto the API's Attraction.
 *
 * Gaps become `null` (lists `[]`, booleans `false`); list values are deduplicated in
 * upstream order.
 *
 * @param lang the language the record was requested in
 * @param misses counts, per field path, the fields the record lacks
 * @throws InvalidRecordError when the record has no identifier or name, or a field we read
 *   has the wrong type
 */
export function normalizeAttraction(record: unknown, lang: Language, misses: FieldReader = new FieldReader()): AttractionRecord {
  const r = new RecordReader('attraction', record, misses);
  const facets = r.classifications();
  const address = r.first('address');
  const [latitude, longitude] = r.geo();
  const images = r.imageUrls();
  const indoorOutdoor = facets.get('indooroutdoorclassifications') ?? [];
  const [seasonStart, seasonEnd] = r.recommendedSeason();
  const neededTime = facets.get('neededtime')?.[0] ?? null;
  return {
    id: r.id,
    name: r.name,
    abstract: r.string('abstract'),
    description: r.string('description'),
    url: r.string('url'),
    latitude,
    longitude,
    locality: address.string('addressLocality'),
    postalCode: address.string('postalCode'),
    contactName: address.string('name'),
    // Some records have no address but a record-level telephone and email.
    contactPhone: address.string('telephone') ?? r.string('telephone'),
    contactEmail: address.string('email') ?? r.string('email'),
    contactUrl: address.string('url'),
    touristType: r.stringList('touristType'),
    seasons: facets.get('seasons') ?? [],
    sportTypes: facets.get('sporttype') ?? [],
    neededTime,
    childrenAges: facets.get('childrenage') ?? [],
    difficulty: facets.get('difficulty')?.[0] ?? null,
    natureTypes: facets.get('naturetype') ?? [],
    experienceTypes: facets.get('experiencetype') ?? [],
    views: facets.get('views') ?? [],
    isAccessibleForFree: r.boolean('isAccessibleForFree'),
    // `partiallywheelchairaccessible` does not count: a wheelchair user cannot rely on it.
    isWheelchairAccessible: (facets.get('wheelchairaccessibleclassifications') ?? []).includes('wheelchairaccessible'),
    isIndoor: indoorOutdoor.includes('indoor') || indoorOutdoor.includes('indooroutdoor'),
    isOutdoor: indoorOutdoor.includes('outdoor') || indoorOutdoor.includes('indooroutdoor'),
    suitableFor: facets.get('suitablefortype') ?? [],
    seasonStart,
    seasonEnd,
    imageUrl: r.photo() ?? images[0] ?? null,
    images,
    destinationId: r.object('containedInPlace').string('identifier'),
    lastUpdated: r.string('dateModified'),
    upstreamLicense: licenseOf(r.object('subjectOf').string('license')),
  };
}

const ROUTE_CATEGORIES: Record<string, string> = {
  national: 'National',
  regional: 'Regional',
  local: 'Local',
  handicap: 'Handicap',
};

// Tour difficulties are easy/medium/difficult; attractions of the same API use low/medium/high,
// and what `requirementconditions` holds is not documented, so accept both.
const TOUR_DIFFICULTIES: Record<string, string> = {
  easy: 'easy',
  low: 'easy',
  medium: 'medium',
  difficult: 'difficult',
  high: 'difficult',
};
const DIFFICULTY_RANK = ['easy', 'medium', 'difficult'];

/**
 * Maps one upstream tour onto the API's Tour. Distance in km, duration in minutes, heights
 * in metres, as upstream sends them (integers are rounded).
 *
 * @param lang the language the record was requested in
 * @param misses counts, per field path, the fields the record lacks
 * @throws InvalidRecordError when the record has no identifier or name, or a field we read
 *   has the wrong type
 */
export function normalizeTour(record: unknown, lang: Language, misses: FieldReader = new FieldReader()): TourRecord {
  const r = new RecordReader('tour', record, misses);
  const facets = r.classifications();
  const provider = r.first('provider');
  const contact = provider.first('address');
  const specs = r.first('specs');
  const mobility = r.object('switzerlandMobility');
  const requirements = mobility.object('requirements');
  const [latitude, longitude] = r.geo();
  const itinerary = r.items('itinerary').map((place) => place.string('name'));
  const category = facets.get('routecategories')?.[0] ?? mobility.string('routeCategory');
  const requiredLevels = [requirements.string('technical'), requirements.string('endurance')]
    .map((level) => (level === null ? -1 : DIFFICULTY_RANK.indexOf(TOUR_DIFFICULTIES[level] ?? '')))
    .filter((rank) => rank >= 0);
  const difficulty = facets.get('requirementconditions')?.[0];
  const season = [...specs.stringList('season').map((s) => s.toLowerCase()), ...(facets.get('seasons') ?? [])].find((s) => s === 'summer' || s === 'winter');
  return {
    id: r.id,
    name: r.name,
    abstract: r.string('abstract'),
    url: r.string('url'),
    routeType: facets.get('routestypes')?.[0] ?? null,
    routeCategory: category === null ? null : (ROUTE_CATEGORIES[category.toLowerCase()] ?? category),
    // The classification is general; SwitzerlandMobility routes grade technique and endurance
    // separately, and the harder of the two is the route's difficulty.
    difficulty:
      difficulty !== undefined
        ? (TOUR_DIFFICULTIES[difficulty] ?? null)
        : requiredLevels.length > 0
          ? (DIFFICULTY_RANK[Math.max(...requiredLevels)] ?? null)
          : null,
    // `specs.season` is what clients of the real API read; the facet covers tours without it.
    season: season ?? null,
    latitude,
    longitude,
    startPoint: itinerary[0] ?? null,
    endPoint: itinerary.length > 1 ? (itinerary[itinerary.length - 1] ?? null) : null,
    distance: specs.number('distance'),
    duration: specs.integer('duration'),
    ascent: specs.integer('ascent'),
    descent: specs.integer('descent'),
    minAltitude: specs.integer('minAltitude'),
    maxAltitude: specs.integer('maxAltitude'),
    isRoundtrip: specs.boolean('roundTrip'),
    isBarrierFree: specs.boolean('barrierFree'),
    switzerlandMobilityRoute: mobility.routeNumber('routeNumber'),
    switzerlandMobilityUrl: mobility.string('url'),
    geodataUrl: mobility.string('geodata'),
    providerName: provider.string('name'),
    providerEmail: contact.string('email'),
    providerPhone: contact.string('telephone'),
    providerUrl: contact.string('url'),
    imageUrl: r.photo() ?? r.imageUrls()[0] ?? null,
    logoUrl: r.imageRef('logo'),
    landscapes: facets.get('landscape') ?? [],
    views: facets.get('views') ?? [],
    origin: facets.get('origin')?.[0] ?? null,
    lastUpdated: r.string('dateModified'),
    // No real tour has been seen; a tour of the same API is read as an attraction is.
    upstreamLicense: licenseOf(r.object('subjectOf').string('license')),
  };
}

/** The record itself: checks identifier and name up front, and reads the shared parts. */
class RecordReader extends ObjectReader {
  readonly id: string;
  readonly name: string;

  constructor(kind: 'tour' | 'attraction', record: unknown, misses: FieldReader) {
    let id: string | null = null;
    const fail: Fail = (field, problem) => {
      throw new InvalidRecordError(kind, id, problem, field);
    };
    if (!isObject(record)) fail('', `record must be an object, got ${typeName(record)}`);
    super(record as Json, '', fail, misses);
    const identifier = (record as Json)['identifier'];
    if (identifier === undefined || identifier === null) fail('identifier', 'missing "identifier"');
    if (typeof identifier !== 'string' || identifier.trim() === '') {
      fail('identifier', `"identifier" must be a non-empty string, got ${JSON.stringify(identifier)}`);
    }
    id = identifier.trim();
    this.id = id;
    const name = this.string('name');
    if (name === null) fail('name', 'missing "name"');
    this.name = name;
  }

  /** Values (`values[].name`) per classification name, merged and deduplicated in order. */
  classifications(): Map<string, string[]> {
    const facets = new Map<string, string[]>();
    for (const entry of this.items('classification')) {
      const name = entry.string('name');
      const values = entry.items('values').map((v) => v.string('name'));
      // Entries without a name are lists of spoken languages, not facets.
      if (name === null) continue;
      const known = facets.get(name) ?? [];
      facets.set(name, unique([...known, ...values.filter((v): v is string => v !== null)]));
    }
    return facets;
  }

  /**
   * `[latitude, longitude]` from `geo`; both null unless both are present and inside
   * `SERVICE_AREA` (one real record places a Lucerne club near Dunkirk: a wrong point would
   * mislead near-me searches, a missing one only leaves the record out of them).
   */
  geo(): [number | null, number | null] {
    const geo = this.object('geo');
    const latitude = geo.number('latitude');
    const longitude = geo.number('longitude');
    if (latitude !== null && (latitude < -90 || latitude > 90)) this.fail('geo.latitude', `"geo.latitude" ${latitude} is outside [-90, 90]`);
    if (longitude !== null && (longitude < -180 || longitude > 180)) this.fail('geo.longitude', `"geo.longitude" ${longitude} is outside [-180, 180]`);
    if (latitude === null || longitude === null) return [null, null];
    const { minLng, maxLng, minLat, maxLat } = SERVICE_AREA;
    return longitude < minLng || longitude > maxLng || latitude < minLat || latitude > maxLat ? [null, null] : [latitude, longitude];
  }

  /** `image[].url`, deduplicated in order. */
  imageUrls(): string[] {
    return unique(this.items('image').flatMap((image) => image.string('url') ?? []));
  }

  photo(): string | null {
    return this.imageRef('photo');
  }

  /** `[seasonStart, seasonEnd]` as month names; `allyear` is January to December. */
  recommendedSeason(): [string | null, string | null] {
    const season = this.value['recommendedSeason'];
    if (typeof season === 'string') return season.trim() === 'allyear' ? ['january', 'december'] : [null, null];
    const range = this.object('recommendedSeason');
    return [range.string('start'), range.string('end')];
  }
}
