/**
 * Ready-made sample queries served at /api/schema?format=queries: at least one per Query
 * field. Ids in the variables are taken from the snapshot being served, so every sample
 * returns data, whatever the snapshot.
 */

import type { Store } from '../snapshot/store.ts';

export interface SampleQuery {
  name: string;
  description: string;
  query: string;
  variables: Record<string, unknown>;
}

export function sampleQueries(store: Store): SampleQuery[] {
  const de = store.locales['de-CH'];
  const firstId = <T extends { id: string | number }>(area: { records: readonly T[] }) => area.records[0]?.id ?? null;
  return [
    {
      name: 'TopActivities',
      description: 'The five best-ranked activities in German, with price and next date.',
      query: `query TopActivities($locale: String) {
  activities(locale: $locale, limit: 5) {
    total
    hasMore
    data { id bookingId title isBookable nextAvailableDate summary { rankingScoreValue popularity startingPrice { amount currency formatted } } location { title } type { title } }
  }
}`,
      variables: { locale: 'de-CH' },
    },
    {
      name: 'ActivitiesNearZurich',
      description: 'Activities within 30 km of Zürich main station, nearest first, with their distance in km.',
      query: `query ActivitiesNearZurich {
  activities(nearLat: 47.3779, nearLng: 8.5403, radiusKm: 30, limit: 10, locale: "en-CH") {
    total
    data { id title distance lat lng supplier { name } }
  }
}`,
      variables: {},
    },
    {
      name: 'SearchActivities',
      description: 'Fuzzy search on activity titles (typo-tolerant, accents optional).',
      query: `query SearchActivities($q: String!) {
  activities(q: $q, locale: "fr-CH", limit: 5) { total data { id title info { slug teaser } teaserImage { url alternativeText } } }
}`,
      variables: { q: 'parapente' },
    },
    {
      name: 'Activity',
      description: 'One activity by id.',
      query: `query Activity($id: String!) {
  activity(id: $id, locale: "de-CH") { id bookingId locale title info { title teaser slug } supplier { id name slug } location { id title slug activityCount } type { id title slug } summary { startingPrice { formatted } rankingScoreValue popularity isActive } isBookable nextAvailableDate lat lng }
}`,
      variables: { id: firstId(de.activities) },
    },
    {
      name: 'Locations',
      description: 'Activity locations with their number of activities, for a filter menu.',
      query: `query Locations { locations(locale: "it-CH", limit: 10) { id title slug activityCount } }`,
      variables: {},
    },
    {
      name: 'Types',
      description: 'Activity types, for a filter menu.',
      query: `query Types { types(locale: "en-CH") { id title slug } }`,
      variables: {},
    },
    {
      name: 'Stations',
      description: 'Ski-resort stations whose name matches, with today’s snow and open slopes.',
      query: `query Stations($q: String) {
  snowdataStations(q: $q, limit: 5) {
    total hasMore
    pagination { page totalPages }
    meta { locale lastSync expiresAt source responseTimeMs }
    data { id name latitude longitude snow { depthPiste freshSnow lastSnowfall } ski { slopesTotal slopesOpenLength condition } }
  }
}`,
      variables: { q: 'saas' },
    },
    {
      name: 'Station',
      description: 'One station with every section, forecasts, images, webcams and links.',
      query: `query Station($id: Int!) {
  snowdataStation(id: $id, locale: "de-CH") {
    id name latitude longitude lastUpdate
    resort { id name regionId }
    address { name street place zip phone email website }
    info { altitude seasonStart seasonEnd totalFacilities cableCars chairlifts skilifts babyLifts conveyorBelts hasShuttlebus report lifts { cableCar chairlift skilift babyLift } }
    snow { freshSnow freshSnowPisteTop depthResort depthPiste lastSnowfall avalancheRiskUrl report }
    ski { areaName slopesTotal slopesLength slopesOpenLength valleyRuns openFacilities openingTime closingTime condition snowCondition valleyRunsCondition report }
    snowboard { funparkName snowparksTotal snowparksOpen halfpipesOpen snowtubesOpen hasArtificialSnow hasFloodlight condition snowparks { name type status lastUpdated } }
    crosscountry { areaName phone classicLength classicPrepared skatingLength skatingPrepared dogTrailLength dogTrailOpen floodlightLength floodlightTill classicCondition skatingCondition report routes { title status } }
    hiking { areaName walkingTrailLength walkingTrailPrepared snowshoeTrailsTotal snowshoeTrailsLength condition openingTime closingTime report routes { title status } }
    tobogganing { areaName tracksTotal tracksLength tracksOpen tracksOpenLength hasArtificialSnow hasPublicTransport hasRental skillLevel condition report }
    sledge { runsTotal runsLength runsOpenLength condition }
    snowshoe { trailsTotal trailsLength trailsOpenLength condition }
    prices { dayTicket { ...Category } halfDayTicket { ...Category } weekTicket { ...Category } seasonTicket { ...Category } halfDayFrom familyReduction hourCardsAvailable dynamicPrices description }
    weather { condition temperatureResort temperaturePiste forecast }
    weatherForecast { type date temperature iconCode url }
    images { type url created updated }
    webcams { url sourceUrl place latitude longitude }
    links { type title url }
    detailLinks { lang url }
  }
}

fragment Category on SnowdataPriceCategory { adult child teenager senior currency }`,
      variables: { id: firstId(de.stations) },
    },
    {
      name: 'OpenSnowshoeRoutes',
      description: 'Winter routes of one type that are open.',
      query: `query OpenSnowshoeRoutes {
  snowdataRoutes(type: "snowshoe", status: "OPEN", limit: 10) {
    total hasMore pagination { page totalPages } meta { source lastSync }
    data { id type number status lastUpdated link isStationActive }
  }
}`,
      variables: {},
    },
    {
      name: 'HikesNearInterlaken',
      description: 'Easy summer hikes within 20 km of Interlaken, nearest first.',
      query: `query HikesNearInterlaken {
  tours(routeType: "hike", difficulty: "easy", nearLat: 46.6863, nearLng: 7.8632, radiusKm: 20, limit: 5) {
    total pagination { page totalPages hasMore } meta { locale source }
    data { id name distance_km distance duration ascent startPoint endPoint }
  }
}`,
      variables: {},
    },
    {
      name: 'SearchTours',
      description: 'Tours whose name or abstract matches, best match first.',
      query: `query SearchTours($q: String!) { tours(q: $q, locale: "de-CH", limit: 5) { total data { id name abstract routeType season } } }`,
      variables: { q: 'zermatt' },
    },
    {
      name: 'Tour',
      description: 'One tour by id.',
      query: `query Tour($id: String!) {
  tour(id: $id) { id name abstract url routeType routeCategory difficulty season latitude longitude startPoint endPoint distance duration ascent descent minAltitude maxAltitude isRoundtrip isBarrierFree switzerlandMobilityRoute switzerlandMobilityUrl geodataUrl providerName providerEmail providerPhone providerUrl imageUrl logoUrl landscapes views origin lastUpdated }
}`,
      variables: { id: firstId(de.tours) },
    },
    {
      name: 'TourRoute',
      description: 'A tour as a route: its line (GeoJSON), its bounds and its elevation profile.',
      query: `query TourRoute($id: String!) {
  tour(id: $id) { id name distance ascent bounds geometry elevationProfile(samples: 20) { distanceKm altitudeM } }
}`,
      variables: { id: de.tours.records.find((tour) => store.tourGeometry(tour.id) !== null)?.id ?? firstId(de.tours) },
    },
    {
      name: 'ToursCrossingZermatt',
      description: 'Tours whose line crosses a map view around Zermatt, not only those starting in it.',
      query: `query ToursCrossingZermatt { tours(bbox: [7.65, 45.95, 7.8, 46.05], bboxMatch: LINE, limit: 10) { total data { id name startPoint bounds } } }`,
      variables: {},
    },
    {
      name: 'FamilyAttractions',
      description: 'Free outdoor attractions for children up to 5 in summer.',
      query: `query FamilyAttractions {
  attractions(season: "summer", childrenAge: "0to5years", isOutdoor: true, limit: 5, locale: "en-CH") {
    total pagination { page totalPages } meta { locale lastSync source }
    data { id name abstract locality seasons childrenAges isAccessibleForFree imageUrl }
  }
}`,
      variables: {},
    },
    {
      name: 'AttractionsNearLucerne',
      description: 'Attractions within 10 km of Lucerne, nearest first.',
      query: `query AttractionsNearLucerne { attractions(nearLat: 47.0502, nearLng: 8.3093, radiusKm: 10, limit: 5) { total data { id name distance_km locality } } }`,
      variables: {},
    },
    {
      name: 'Attraction',
      description: 'One attraction by id.',
      query: `query Attraction($id: String!) {
  attraction(id: $id) { id name abstract description url latitude longitude locality postalCode contactName contactPhone contactEmail contactUrl touristType seasons sportTypes neededTime childrenAges difficulty natureTypes experienceTypes views isAccessibleForFree isWheelchairAccessible isIndoor isOutdoor suitableFor seasonStart seasonEnd imageUrl images destinationId lastUpdated }
}`,
      variables: { id: firstId(de.attractions) },
    },
    {
      name: 'SearchBox',
      description: 'One ranked list across every area, as a search box asks while typing, with the matched words marked.',
      query: `query SearchBox($q: String!) {
  search(q: $q, limit: 5) { total hasMore data { area id title score snippet latitude longitude } }
}`,
      variables: { q: 'grindelwald' },
    },
    {
      name: 'OpenStationsNearZermatt',
      description: 'Open ski stations within 40 km of Zermatt, most fresh snow first (docs/api.md, Questions a front end asks).',
      query: `query OpenStationsNearZermatt {
  snowdataStations(nearLat: 46.0207, nearLng: 7.7491, radiusKm: 40, isOpen: true, sort: FRESH_SNOW_DESC, limit: 5) {
    total
    data { id name distance_km isOpen snow { freshSnow depthPiste } ski { openFacilities } }
  }
}`,
      variables: {},
    },
    {
      name: 'FamilyIndoorAttractionsInLucerne',
      description: 'Family-friendly indoor attractions in Lucerne, with the other places that have some.',
      query: `query FamilyIndoorAttractionsInLucerne {
  attractions(suitableFor: "family", isIndoor: true, locality: "Luzern", locale: "en-CH") {
    total
    data { id name locality suitableFor }
    facets(fields: [LOCALITY], maxValues: 5) { field values { value count } }
  }
}`,
      variables: {},
    },
    {
      name: 'OpenSledgingRoutes',
      description: 'Sledging routes open now, each with its name and station.',
      query: `query OpenSledgingRoutes {
  snowdataRoutes(type: "sledging", status: "OPEN", limit: 10) { total data { id name number stationId stationName status link } }
}`,
      variables: {},
    },
    {
      name: 'HikeFilters',
      description: 'A filtered, sorted first page of hikes with the counts of a filter sidebar (facets).',
      query: `query HikeFilters {
  tours(routeType: "hike", maxDuration: 240, sort: ASCENT_DESC, limit: 5) {
    total
    data { id name duration ascent difficulty }
    facets(fields: [DIFFICULTY, IS_ROUNDTRIP, LANDSCAPE], maxValues: 5) { field values { value count } }
  }
}`,
      variables: {},
    },
    {
      name: 'ToursChangedSince',
      description: 'What changed in the tours since a snapshot version (here the one served: nothing), for keeping a copy in step: pass the meta.version you stored last, and select the upserted records per type, as in docs/api.md.',
      query: `query ToursChangedSince($since: String!) {
  changes(area: tours, since: $since, limit: 100) { fromVersion toVersion total hasMore deleted }
}`,
      variables: { since: store.snapshot.version },
    },
  ];
}
