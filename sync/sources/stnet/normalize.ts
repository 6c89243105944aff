/**
 * STnet stations to published records: one station, one locale. The mapping, field by field
 * with its evidence, is docs/snowdata-mapping.md.
 */

import type { Locale, SnowdataCrosscountry, SnowdataHiking, SnowdataInfo, SnowdataMobilityRoute, SnowdataTobogganing, StationRecord } from '../../format.ts';
import { centimetres, clock, content, count, day, FieldReader, flag, integer, InvalidRecordError, list, type Many, metres, text, timestamp } from '../read.ts';
import { position } from './routes.ts';
import { readDetailLinks, readImages, readLinks, readPrices, readWeather, readWeatherForecast, readWebcams } from './optionalParts.ts';
import type { StnetItem, StnetStation, StnetTexts } from './shapes.ts';
import { TEXT_LANGUAGE, translate } from './translate.ts';

/**
 * Maps one station to the published record in one locale: texts in the locale's language (or
 * German when missing), lengths in metres, depths in centimetres. `raw` is the station as
 * received, every language included. What the service does not carry is null
 * (docs/snowdata-mapping.md lists it); the optional parts of the `full` type (prices, weather,
 * images, webcams, links) are read when present. Every field read through `r` that is missing
 * or unreadable is counted there under its path.
 *
 * @throws InvalidRecordError when `id` is not an integer or `name` is empty
 */
export function normalizeStation(raw: StnetStation, locale: Locale, r: FieldReader = new FieldReader()): StationRecord {
  const id = integer(raw?.id);
  const name = r.read('name', raw?.name, text);
  if (id === null || name === null) {
    throw new InvalidRecordError('snowdata.stations', raw?.id == null ? null : String(raw.id), 'id must be an integer and name non-empty');
  }
  const lang = TEXT_LANGUAGE[locale];
  const { info, snow, ski, facility } = raw;
  const hiking = readHiking(raw.hiking, lang, r);
  const tobogganing = readTobogganing(raw.tobogganing, r);
  const located = [...list(raw.crosscountry?.tracksArray), ...list(raw.tobogganing?.runsArray)].map(position).find((p) => p !== null) ?? null;
  return {
    id,
    name,
    latitude: located?.[1] ?? null,
    longitude: located?.[0] ?? null,
    resort: null,
    address: raw.address
      ? { name: null, street: null, place: r.read('address.place', raw.address.place, text), zip: integer(raw.address.zip), phone: r.read('address.phone1', raw.address.phone1, text), email: null, website: r.read('address.url', raw.address.url, text) }
      : null,
    info: readInfo(info, facility, lang, r),
    snow: snow
      ? {
          freshSnow: r.read('snow.freshSnow', snow.freshSnow, centimetres),
          freshSnowPisteTop: r.read('snow.freshSnowPisteTop', snow.freshSnowPisteTop, centimetres),
          depthResort: r.read('snow.depthOfSnowResort', snow.depthOfSnowResort, centimetres),
          depthPiste: r.read('snow.depthOfSnowPiste', snow.depthOfSnowPiste, centimetres),
          lastSnowfall: r.read('snow.lastSnowfallResort', snow.lastSnowfallResort, day),
          avalancheRiskUrl: r.read('snow.avalancheRiskLevel', snow.avalancheRiskLevel, (v) => text(content(v))),
          report: r.read('snow.reportSnow', snow.reportSnow, (texts) => translate(texts as StnetTexts, lang)),
        }
      : null,
    ski:
      ski || facility
        ? {
            areaName: null,
            slopesTotal: r.read('ski.numberOfSlopes', ski?.numberOfSlopes, count),
            slopesLength: r.read('ski.lengthOfSlopes', ski?.lengthOfSlopes, metres),
            slopesOpenLength: r.read('ski.lengthOfSlopesOpen', ski?.lengthOfSlopesOpen, metres),
            valleyRuns: r.read('ski.numberOfValleyRuns', ski?.numberOfValleyRuns, count),
            openFacilities: r.read('facility.numberOfOpenFacilities', facility?.numberOfOpenFacilities, count),
            openingTime: r.read('facility.facilityOpeningTime', facility?.facilityOpeningTime, clock),
            closingTime: r.read('facility.facilityClosingTime', facility?.facilityClosingTime, clock),
            condition: r.read('ski.runsCondition', ski?.runsCondition, (texts) => translate(texts as StnetTexts, lang)),
            snowCondition: r.read('ski.snowConditionMain', ski?.snowConditionMain, (texts) => translate(texts as StnetTexts, lang)),
            valleyRunsCondition: null,
            report: null,
          }
        : null,
    snowboard: null,
    crosscountry: readCrosscountry(raw.crosscountry, lang, r),
    hiking,
    tobogganing,
    sledge: tobogganing && { runsTotal: tobogganing.tracksTotal, runsLength: tobogganing.tracksLength, runsOpenLength: tobogganing.tracksOpenLength, condition: tobogganing.condition },
    snowshoe: hiking && { trailsTotal: hiking.snowshoeTrailsTotal, trailsLength: hiking.snowshoeTrailsLength, trailsOpenLength: null, condition: hiking.condition },
    prices: readPrices(raw.prices, lang, r),
    weather: readWeather(raw.weather, lang, r),
    weatherForecast: readWeatherForecast(raw.weather?.forecastArray, r),
    images: readImages(raw.imagesArray, r),
    webcams: readWebcams(raw.webcamsArray, lang, r),
    links: readLinks(raw.linksArray, lang, r),
    detailLinks: readDetailLinks(raw.detailLinksArray, r),
    lastUpdate: r.read('lastUpdate', raw.lastUpdate, timestamp),
    raw,
  };
}

/** The station's facilities: the lift counts are read once, for the totals and for `lifts`. */
function readInfo(info: StnetStation['info'], facility: StnetStation['facility'], lang: string, r: FieldReader): SnowdataInfo | null {
  if (!info && !facility) return null;
  // Read in the record's field order, so the miss counts keep their order.
  const altitude = r.read('info.heightOfSnowMeasurementResort', info?.heightOfSnowMeasurementResort, metres);
  const totalFacilities = r.read('info.numberOfFacilities', info?.numberOfFacilities, count);
  const cableCars = r.read('info.numberOfCableCarWinter', info?.numberOfCableCarWinter, count);
  const chairlifts = r.read('info.numberOfChairliftWinter', info?.numberOfChairliftWinter, count);
  const skilifts = r.read('info.numberOfSkilift', info?.numberOfSkilift, count);
  const babyLifts = r.read('info.numberOfBabyLifts', info?.numberOfBabyLifts, count);
  return {
    altitude,
    seasonStart: null,
    seasonEnd: null,
    totalFacilities,
    cableCars,
    chairlifts,
    skilifts,
    babyLifts,
    conveyorBelts: r.read('info.numberOfSnowConveyorBelts', info?.numberOfSnowConveyorBelts, count),
    hasShuttlebus: null,
    report: r.read('facility.reportFacility', facility?.reportFacility, (texts) => translate(texts as StnetTexts, lang)),
    lifts: info ? { cableCar: cableCars, chairlift: chairlifts, skilift: skilifts, babyLift: babyLifts } : null,
  };
}

function readCrosscountry(raw: StnetStation['crosscountry'], lang: string, r: FieldReader): SnowdataCrosscountry | null {
  if (!raw) return null;
  return {
    areaName: null,
    phone: null,
    classicLength: r.read('crosscountry.lengthOfClassic', raw.lengthOfClassic, metres),
    classicPrepared: r.read('crosscountry.lengthOfClassicPrepared', raw.lengthOfClassicPrepared, metres),
    skatingLength: r.read('crosscountry.lengthOfSkating', raw.lengthOfSkating, metres),
    skatingPrepared: r.read('crosscountry.lengthOfSkatingPrepared', raw.lengthOfSkatingPrepared, metres),
    dogTrailLength: null,
    dogTrailOpen: null,
    floodlightLength: r.read('crosscountry.lengthOfFloodlightTotal', raw.lengthOfFloodlightTotal, metres),
    floodlightTill: null,
    classicCondition: null,
    skatingCondition: null,
    report: null,
    routes: readMobilityRoutes(raw.tracksArray, lang),
  };
}

function readHiking(raw: StnetStation['hiking'], lang: string, r: FieldReader): SnowdataHiking | null {
  if (!raw) return null;
  return {
    areaName: null,
    walkingTrailLength: null,
    walkingTrailPrepared: r.read('hiking.lengthOfWalkingtrailPrepared', raw.lengthOfWalkingtrailPrepared, metres),
    snowshoeTrailsTotal: null,
    snowshoeTrailsLength: r.read('hiking.lengthOfSnowshoeTrails', raw.lengthOfSnowshoeTrails, metres),
    condition: null,
    openingTime: null,
    closingTime: null,
    report: null,
    routes: readMobilityRoutes(raw.trailsArray, lang),
  };
}

function readTobogganing(raw: StnetStation['tobogganing'], r: FieldReader): SnowdataTobogganing | null {
  if (!raw) return null;
  return {
    areaName: null,
    tracksTotal: r.read('tobogganing.numberOfTracks', raw.numberOfTracks, count),
    tracksLength: r.read('tobogganing.lengthOfTracks', raw.lengthOfTracks, metres),
    tracksOpen: r.read('tobogganing.numberOfTracksOpen', raw.numberOfTracksOpen, count),
    tracksOpenLength: null,
    hasArtificialSnow: r.read('tobogganing.hasArtificialSnow', raw.hasArtificialSnow, flag),
    hasPublicTransport: r.read('tobogganing.hasPublicTransport', raw.hasPublicTransport, flag),
    hasRental: r.read('tobogganing.hasRentalPossibility', raw.hasRentalPossibility, flag),
    skillLevel: null,
    condition: null,
    report: null,
  };
}

/** The named items of a section with their condition text; a section without its array gives null. */
function readMobilityRoutes(items: Many<StnetItem>, lang: string): SnowdataMobilityRoute[] | null {
  if (items == null) return null;
  return list(items).map((item) => ({ title: text(item.name), status: translate(item.info?.condition, lang) }));
}
