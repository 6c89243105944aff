/**
 * The search indexes of an area, built once per snapshot: fuzzy full text (textIndex.ts)
 * and near-me (geoIndex.ts).
 */

export {
  createTextIndex,
  textIndexOf,
  textIndexPartsArrays,
  textIndexPartsSteps,
  MAX_QUERY_WORDS,
  MIN_TYPO_WORD_LENGTH,
  EXACT,
  KINDS,
  TYPO,
  RESOLUTION,
  matchedSpans,
  queryWords,
  scoreSumOf,
  tierSumOf,
  worstTierOf,
  type Span,
  type TextIndex,
  type TextIndexParts,
} from './text/textIndex.ts';
export { createGeoIndex, distanceKm, geoIndexSteps, type GeoHit, type GeoIndex, type LngLatBox } from './geoIndex.ts';
