/**
 * The STnet service's shapes (test/fixtures/upstream/stnet/CONTRACT.md). Everything is optional:
 * the normaliser reads defensively and counts what is missing.
 */

import type { Many } from '../read.ts';

/** A value: `{ content, unit }`, or a bare value where clients read `content` defensively. */
export type StnetValue = { content?: unknown; unit?: unknown } | string | number | null | undefined;
/** One text of a `textArray`. */
export interface StnetText {
  lang?: unknown;
  content?: unknown;
}
/** Texts in every language. `textArray` may be a single object, like every list of the service. */
export interface StnetTexts {
  textArray?: StnetText[] | StnetText | null;
}
/** A condition or status: a code id with its texts. */
export interface StnetCode extends StnetTexts {
  id?: unknown;
}
/** An item of `slopesArray`, `liftsArray`, `tracksArray`, `trailsArray` or `runsArray`. */
export interface StnetItem {
  /** Can be a number (slope 5). */
  name?: unknown;
  description?: StnetTexts | null;
  info?: {
    type?: { id?: unknown } | null;
    condition?: StnetCode | null;
    /** Lifts carry `status` instead of `condition`. */
    status?: StnetCode | null;
    totalLength?: StnetValue;
    totalLengthToday?: StnetValue;
    lastPreparation?: StnetValue;
    sortOrder?: unknown;
    latitude?: StnetValue;
    longitude?: StnetValue;
  } | null;
}
/**
 * The optional parts below are assumed shapes: no client of the `full` type reads them and no
 * answer with them has been seen. They follow the service's own conventions (numbers as
 * `{ content, unit }`, texts as `textArray`, dates and URLs as `{ content }`, lists that may be a
 * single object); docs/snowdata-mapping.md lists the names assumed.
 */
/** The price of one ticket per age group, each `{ content, unit }` with the currency as unit. */
export interface StnetTicket {
  adult?: StnetValue;
  child?: StnetValue;
  teenager?: StnetValue;
  senior?: StnetValue;
}
/** A station's lift-ticket prices (assumed shape). */
export interface StnetPrices {
  dayTicket?: StnetTicket | null;
  halfDayTicket?: StnetTicket | null;
  weekTicket?: StnetTicket | null;
  seasonTicket?: StnetTicket | null;
  /** A time of day, `HH:MM`. */
  halfDayFrom?: StnetValue;
  familyReduction?: StnetValue;
  hourCardsAvailable?: StnetValue;
  dynamicPrices?: StnetValue;
  description?: StnetTexts | null;
}
/** One day of the forecast at one elevation (assumed shape). */
export interface StnetForecastDay {
  /** `BERG` (mountain) or `TAL` (valley). */
  type?: unknown;
  date?: StnetValue;
  temperature?: StnetValue;
  iconCode?: StnetValue;
  url?: StnetValue;
}
/** A station's weather and its 7-day forecast (assumed shape). */
export interface StnetWeather {
  condition?: StnetCode | null;
  temperatureResort?: StnetValue;
  temperaturePiste?: StnetValue;
  forecast?: StnetTexts | null;
  forecastArray?: Many<StnetForecastDay>;
}
/** An image (assumed shape); `type` is e.g. `LOGO`, `SKIMAP`, `STATION_PICTURE_1`. */
export interface StnetImage {
  type?: unknown;
  url?: StnetValue;
  created?: StnetValue;
  updated?: StnetValue;
}
/** A webcam (assumed shape). */
export interface StnetWebcam {
  url?: StnetValue;
  sourceUrl?: StnetValue;
  place?: StnetTexts | null;
  latitude?: StnetValue;
  longitude?: StnetValue;
}
/** A link (assumed shape); `type` is e.g. `TICKETSHOP`. */
export interface StnetLink {
  type?: unknown;
  title?: StnetTexts | null;
  url?: StnetValue;
}
/** The station's page on the tourism portal in one language (assumed shape). */
export interface StnetDetailLink {
  lang?: unknown;
  url?: StnetValue;
}
/** One station of `stationsArray` (`stn-stationType=full`). */
export interface StnetStation {
  id?: unknown;
  name?: unknown;
  lastUpdate?: StnetValue;
  address?: { place?: unknown; zip?: unknown; phone1?: unknown; url?: unknown } | null;
  info?: {
    numberOfFacilities?: StnetValue;
    numberOfCableCarWinter?: StnetValue;
    numberOfChairliftWinter?: StnetValue;
    numberOfSkilift?: StnetValue;
    numberOfBabyLifts?: StnetValue;
    numberOfSnowConveyorBelts?: StnetValue;
    heightOfSnowMeasurementResort?: StnetValue;
  } | null;
  snow?: {
    depthOfSnowResort?: StnetValue;
    depthOfSnowPiste?: StnetValue;
    freshSnow?: StnetValue;
    freshSnowPisteTop?: StnetValue;
    lastSnowfallResort?: StnetValue;
    lastSnowfallPiste?: StnetValue;
    avalancheRiskLevel?: StnetValue;
    reportSnow?: StnetTexts | null;
  } | null;
  ski?: {
    numberOfSlopes?: StnetValue;
    lengthOfSlopes?: StnetValue;
    lengthOfSlopesOpen?: StnetValue;
    numberOfValleyRuns?: StnetValue;
    numberOfValleyRunsOpen?: StnetValue;
    lengthOfSlopesArtificialSnow?: StnetValue;
    lengthOfSlopesWithFloodlight?: StnetValue;
    runsCondition?: StnetCode | null;
    snowConditionMain?: StnetCode | null;
    snowConditionPartial?: StnetCode | null;
    slopesArray?: Many<StnetItem>;
  } | null;
  facility?: {
    numberOfOpenFacilities?: StnetValue;
    facilityOpeningTime?: StnetValue;
    facilityClosingTime?: StnetValue;
    reportFacility?: StnetTexts | null;
  } | null;
  liftInfo?: { liftsArray?: Many<StnetItem> } | null;
  crosscountry?: {
    lengthOfClassic?: StnetValue;
    lengthOfClassicPrepared?: StnetValue;
    lengthOfSkating?: StnetValue;
    lengthOfSkatingPrepared?: StnetValue;
    lengthOfFloodlightTotal?: StnetValue;
    tracksArray?: Many<StnetItem>;
  } | null;
  hiking?: {
    lengthOfWalkingtrailPrepared?: StnetValue;
    lengthOfSnowshoeTrails?: StnetValue;
    trailsArray?: Many<StnetItem>;
  } | null;
  tobogganing?: {
    numberOfTracks?: StnetValue;
    numberOfTracksOpen?: StnetValue;
    lengthOfTracks?: StnetValue;
    hasArtificialSnow?: StnetValue;
    hasPublicTransport?: StnetValue;
    hasRentalPossibility?: StnetValue;
    runsArray?: Many<StnetItem>;
  } | null;
  prices?: StnetPrices | null;
  weather?: StnetWeather | null;
  imagesArray?: Many<StnetImage>;
  webcamsArray?: Many<StnetWebcam>;
  linksArray?: Many<StnetLink>;
  detailLinksArray?: Many<StnetDetailLink>;
}

/** One answer page. `stationsArray` is a single object when the page holds one station. */
export interface StnetPage {
  stations?: { header?: { totalPages?: unknown; resultSize?: unknown }; stationsArray?: Many<StnetStation> } | null;
}
