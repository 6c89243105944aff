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
}

/** One answer page. `stationsArray` is a single object when the page holds one station. */
export interface StnetPage {
  stations?: { header?: { totalPages?: unknown; resultSize?: unknown }; stationsArray?: Many<StnetStation> } | null;
}
