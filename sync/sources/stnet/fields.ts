/**
 * The STnet fields the adapter reads, as the probe compares an answer with them.
 */

import { list, type Many } from '../read.ts';
import type { StnetItem, StnetStation } from './shapes.ts';

/**
 * The fields the adapter reads, as dotted paths (list items as `[]`): what the probe compares
 * an answer with, and what docs/snowdata-mapping.md lists.
 */
export const READ_FIELDS: readonly string[] = (() => {
  const value = (path: string) => [path, `${path}.content`];
  const measure = (path: string) => [path, `${path}.content`, `${path}.unit`];
  const texts = (path: string) => [path, `${path}.textArray`, `${path}.textArray[].lang`, `${path}.textArray[].content`];
  const code = (path: string) => [...texts(path), `${path}.id`];
  /** An array of items read for their name, condition and `sortOrder` (and position, when `located`). */
  const items = (path: string, located = false) => [
    path,
    `${path}[].name`,
    `${path}[].info`,
    `${path}[].info.sortOrder`,
    ...code(`${path}[].info.condition`),
    ...(located ? [...value(`${path}[].info.latitude`), ...value(`${path}[].info.longitude`)] : []),
  ];
  const under = (section: string, fields: string[], read: (path: string) => string[]) => fields.flatMap((field) => read(`${section}.${field}`));
  return [
    'id',
    'name',
    ...value('lastUpdate'),
    'address',
    ...['place', 'zip', 'phone1', 'url'].map((field) => `address.${field}`),
    'info',
    ...under('info', ['numberOfFacilities', 'numberOfCableCarWinter', 'numberOfChairliftWinter', 'numberOfSkilift', 'numberOfBabyLifts', 'numberOfSnowConveyorBelts'], value),
    ...measure('info.heightOfSnowMeasurementResort'),
    'snow',
    ...under('snow', ['depthOfSnowResort', 'depthOfSnowPiste', 'freshSnow', 'freshSnowPisteTop'], measure),
    ...under('snow', ['lastSnowfallResort', 'avalancheRiskLevel'], value),
    ...texts('snow.reportSnow'),
    'ski',
    ...under('ski', ['numberOfSlopes', 'numberOfValleyRuns'], value),
    ...under('ski', ['lengthOfSlopes', 'lengthOfSlopesOpen'], measure),
    ...code('ski.runsCondition'),
    ...code('ski.snowConditionMain'),
    'ski.slopesArray',
    'ski.slopesArray[].info',
    ...code('ski.slopesArray[].info.condition'),
    'facility',
    ...under('facility', ['numberOfOpenFacilities', 'facilityOpeningTime', 'facilityClosingTime'], value),
    ...texts('facility.reportFacility'),
    'liftInfo',
    'liftInfo.liftsArray',
    'liftInfo.liftsArray[].info',
    ...code('liftInfo.liftsArray[].info.status'),
    'crosscountry',
    ...under('crosscountry', ['lengthOfClassic', 'lengthOfClassicPrepared', 'lengthOfSkating', 'lengthOfSkatingPrepared', 'lengthOfFloodlightTotal'], measure),
    ...items('crosscountry.tracksArray', true),
    'hiking',
    ...under('hiking', ['lengthOfWalkingtrailPrepared', 'lengthOfSnowshoeTrails'], measure),
    ...items('hiking.trailsArray'),
    'tobogganing',
    ...under('tobogganing', ['numberOfTracks', 'numberOfTracksOpen', 'hasArtificialSnow', 'hasPublicTransport', 'hasRentalPossibility'], value),
    ...measure('tobogganing.lengthOfTracks'),
    ...items('tobogganing.runsArray', true),
  ];
})();

/**
 * The fields of the optional parts (optionalParts.ts), as dotted paths: known to the probe, so
 * not reported as unexpected, and not reported as missing when an answer lacks them.
 */
export const OPTIONAL_FIELDS: readonly string[] = (() => {
  const value = (path: string) => [path, `${path}.content`];
  const measure = (path: string) => [path, `${path}.content`, `${path}.unit`];
  const texts = (path: string) => [path, `${path}.textArray`, `${path}.textArray[].lang`, `${path}.textArray[].content`];
  const ticket = (path: string) => [path, ...['adult', 'child', 'teenager', 'senior'].flatMap((group) => measure(`${path}.${group}`))];
  return [
    'prices',
    ...['dayTicket', 'halfDayTicket', 'weekTicket', 'seasonTicket'].flatMap((name) => ticket(`prices.${name}`)),
    ...['halfDayFrom', 'familyReduction', 'hourCardsAvailable', 'dynamicPrices'].flatMap((name) => value(`prices.${name}`)),
    ...texts('prices.description'),
    'weather',
    ...texts('weather.condition'),
    'weather.condition.id',
    ...measure('weather.temperatureResort'),
    ...measure('weather.temperaturePiste'),
    ...texts('weather.forecast'),
    'weather.forecastArray',
    'weather.forecastArray[].type',
    ...value('weather.forecastArray[].date'),
    ...measure('weather.forecastArray[].temperature'),
    ...value('weather.forecastArray[].iconCode'),
    ...value('weather.forecastArray[].url'),
    'imagesArray',
    'imagesArray[].type',
    ...['url', 'created', 'updated'].flatMap((name) => value(`imagesArray[].${name}`)),
    'webcamsArray',
    ...['url', 'sourceUrl'].flatMap((name) => value(`webcamsArray[].${name}`)),
    ...texts('webcamsArray[].place'),
    ...['latitude', 'longitude'].flatMap((name) => value(`webcamsArray[].${name}`)),
    'linksArray',
    'linksArray[].type',
    ...texts('linksArray[].title'),
    ...value('linksArray[].url'),
    'detailLinksArray',
    'detailLinksArray[].lang',
    ...value('detailLinksArray[].url'),
  ];
})();

/** The lists of a station that the service sends as a single object when they hold one item. */
const ITEM_ARRAYS = [
  ['ski', 'slopesArray'],
  ['liftInfo', 'liftsArray'],
  ['crosscountry', 'tracksArray'],
  ['hiking', 'trailsArray'],
  ['tobogganing', 'runsArray'],
  ['weather', 'forecastArray'],
] as const;
/** The lists at the top of a station that the service may send as a single object. */
const TOP_ARRAYS = ['imagesArray', 'webcamsArray', 'linksArray', 'detailLinksArray'] as const;

/** A copy of a station whose item arrays are lists, so that their fields compare as `[]` paths. */
export function withLists(station: StnetStation): StnetStation {
  const copy: Record<string, unknown> = { ...station };
  for (const [section, array] of ITEM_ARRAYS) {
    const part = copy[section] as Record<string, unknown> | null | undefined;
    if (part && typeof part === 'object' && part[array] != null) copy[section] = { ...part, [array]: list(part[array] as Many<StnetItem>) };
  }
  for (const array of TOP_ARRAYS) if (copy[array] != null) copy[array] = list(copy[array] as Many<object>);
  return copy as StnetStation;
}
