/**
 * One ranking across areas: each area's best text matches (its own text index, as its list's
 * `q` finds them), scored on one scale and merged. docs/api.md (Search across areas) states the
 * scale; the weights below are its figures.
 */

import { distanceKm, EXACT, KINDS, MAX_QUERY_WORDS, queryWords, RESOLUTION, scoreSumOf, tierSumOf, TYPO, worstTierOf, type LngLatBox } from '../../search/indexes.ts';
import { looseSpelling, type Point, type SearchArea } from './searchAreas.ts';

/**
 * The matches taken from each area, best first by its text index: the hits a search can page
 * through (offset + limit) reach no further. Every page is cut from the same candidates, so
 * pages neither repeat nor skip a hit.
 */
export const SEARCH_DEPTH = 100;

/** Match classes, best last: a hit's class is the integer part of its score. */
const MATCH_CLASS = { TYPO: 1, WORDS: 2, TITLE_PREFIX: 3, EXACT_TITLE: 4 } as const;

// Within a class, the score's fraction: how well the words matched, the area's signal, and
// nearness when near-me is given. They add up to less than 1, so a class always outranks the
// ones below it.
const TEXT_WEIGHT = 0.5;
const SIGNAL_WEIGHT = 0.3;
const NEAR_WEIGHT = 0.19;
/** The distance at which nearness is one half, in km: a valley's scale. */
const NEAR_HALF_KM = 10;

/** A candidate of the merged ranking. */
export interface RankedHit {
  readonly area: SearchArea;
  /** Position in the area's records. */
  readonly position: number;
  readonly score: number;
}

/**
 * The candidates of every area, best first: by score, then in the order of `areas`, then in each
 * area's own order.
 * @param q a query with at least one word (the caller checks)
 * @param near with near-me, the point to weigh nearness from
 * @param box with a map view, only records whose point lies in it (edges included) are matches;
 *   null for all
 * @returns the candidates (at most SEARCH_DEPTH per area) and `total`, the number of matches in
 *   all of the areas
 */
export function rankHits(areas: readonly SearchArea[], q: string, near: Point | null, box: LngLatBox | null): { hits: RankedHit[]; total: number } {
  const words = queryWords(q).map(looseSpelling);
  // The text index ranks each distinct word once, up to MAX_QUERY_WORDS of them.
  const wordCount = Math.min(new Set(words).size, MAX_QUERY_WORDS);
  const hits: RankedHit[] = [];
  let total = 0;
  for (const area of areas) {
    // The box filters before the depth cut, so that a map view gets an area's best matches inside it.
    const found = area.text.search(q, { end: SEARCH_DEPTH, ranks: true, filter: box === null ? null : [area.geo.within(box)] });
    if (found === null) continue;
    total += found.total;
    const { positions } = found;
    const ranks = found.ranks!;
    const { signals } = area;
    for (let i = 0; i < positions.length; i++) {
      const position = positions[i]!;
      const rank = ranks[i]!;
      const within = TEXT_WEIGHT * textScore(rank, wordCount) + SIGNAL_WEIGHT * signals[position]! + (near === null ? 0 : NEAR_WEIGHT * nearness(near, area.point(position)));
      hits.push({ area, position, score: matchClass(area, position, rank, words) + within });
    }
  }
  // Array sort is stable: equal scores keep the order of areas, then each area's own.
  hits.sort((a, b) => b.score - a.score);
  return { hits, total };
}

/** The class of a match (see MATCH_CLASS and docs/api.md). */
function matchClass(area: SearchArea, position: number, rank: number, words: readonly string[]): number {
  const worstTier = worstTierOf(rank);
  const worstKind = worstTier % KINDS;
  if (worstKind === TYPO) return MATCH_CLASS.TYPO;
  // The title is the first field: its tiers are below KINDS.
  if (worstTier >= KINDS) return MATCH_CLASS.WORDS;
  const title = area.titleWords(position);
  if (title.length < words.length) return MATCH_CLASS.WORDS;
  const last = words.length - 1;
  for (let i = 0; i < last; i++) if (title[i] !== words[i]) return MATCH_CLASS.WORDS;
  if (worstKind === EXACT && title.length === words.length && title[last] === words[last]) return MATCH_CLASS.EXACT_TITLE;
  return title[last]!.startsWith(words[last]!) ? MATCH_CLASS.TITLE_PREFIX : MATCH_CLASS.WORDS;
}

/**
 * How well the words matched, 1 (every word exact, at the start of the first field) down towards
 * 0: the text index's tiers (field, then exact, prefix, typo) and places in the field, per word.
 */
function textScore(rank: number, wordCount: number): number {
  return 1 / (1 + (tierSumOf(rank) + scoreSumOf(rank) / RESOLUTION) / Math.max(1, wordCount));
}

/** 1 at `near`, 1/2 at NEAR_HALF_KM from it, towards 0 far away; 0 without a point. */
function nearness(near: Point, point: Point | null): number {
  return point === null ? 0 : 1 / (1 + distanceKm(near.lng, near.lat, point.lng, point.lat) / NEAR_HALF_KM);
}
