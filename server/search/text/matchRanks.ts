/**
 * How matches are ordered, as one packed integer per match. A word's match has a tier (KINDS ×
 * field + kind: the first field best, then exact word, prefix, typo) and a score (its place in
 * the field); a document's matches rank by their worst tier, then the sum of their tiers, then
 * the sum of their scores. A level is a tier and a score, numbered tier × RESOLUTION + score,
 * so in rank order.
 */

/** Distinct query words beyond this many are ignored, which bounds the cost of a search. */
export const MAX_QUERY_WORDS = 10;

/** Scores a word's place in its field can have, 0..8 (FlexSearch's default). */
export const RESOLUTION = 9;
/** Match kind, best first: the query word is the document word. */
export const EXACT = 0;
/** Match kind: the query word starts the document word. */
export const PREFIX = 1;
/** Match kind: the document word is one edit from the query word. */
export const TYPO = 2;
/** The number of match kinds. */
export const KINDS = 3;

// A candidate's match ranks packed into one integer, compared as it is: its worst tier above
// the sum of its tiers above the sum of its scores. The sums add up without carrying over, so
// a word's match is added to both in one step. Ten bits hold a sum of MAX_QUERY_WORDS tiers
// for up to MAX_FIELDS fields, and of as many scores.
const TIER_SUM_SHIFT = 10;
const WORST_TIER_SHIFT = 20;
const SUM_MASK = (1 << TIER_SUM_SHIFT) - 1;
const SUMS = (1 << WORST_TIER_SHIFT) - 1;
/** Most text fields per document (see the packing above). */
export const MAX_FIELDS = Math.floor(SUM_MASK / MAX_QUERY_WORDS / KINDS);

/** The packed rank of a word's match of a tier and score. */
function rankOf(tier: number, score: number): number {
  return (tier << WORST_TIER_SHIFT) | (tier << TIER_SUM_SHIFT) | score;
}

/** The packed rank of a document's matches, `rank`, with one more word's match (a packed rank). */
export function addMatch(rank: number, match: number): number {
  return Math.max(rank & ~SUMS, match & ~SUMS) | ((rank & SUMS) + (match & SUMS));
}

/** The packed rank of a word's match at a level (tier × RESOLUTION + score): mergedLevel's inverse. */
export function levelRank(level: number): number {
  return rankOf((level / RESOLUTION) | 0, level % RESOLUTION);
}

/** The level (tier × RESOLUTION + score) of a single word's match, by its packed rank. */
export function mergedLevel(rank: number): number {
  return (rank >>> WORST_TIER_SHIFT) * RESOLUTION + (rank & SUM_MASK);
}

/**
 * A packed match rank as a key counted from 0 in the same order, for `tierSpan` possible tier
 * sums and `scoreSpan` possible score sums.
 */
export function keyOf(rank: number, tierSpan: number, scoreSpan: number): number {
  return ((rank >>> WORST_TIER_SHIFT) * tierSpan + ((rank >>> TIER_SUM_SHIFT) & SUM_MASK)) * scoreSpan + (rank & SUM_MASK);
}

/** Whether a match (packed rank and position) ranks before another. */
export function ranksBefore(rank: number, position: number, otherRank: number, otherPosition: number): boolean {
  return rank < otherRank || (rank === otherRank && position < otherPosition);
}

/** The tier (KINDS × field + kind) of the worst-matching query word of a document's packed match rank. */
export function worstTierOf(rank: number): number {
  return rank >>> WORST_TIER_SHIFT;
}

/** The sum over the query words of their tiers, of a document's packed match rank: 0 when every word is exact in the first field. */
export function tierSumOf(rank: number): number {
  return (rank >>> TIER_SUM_SHIFT) & SUM_MASK;
}

/** The sum over the query words of their places in their fields (each 0..RESOLUTION - 1), of a document's packed match rank. */
export function scoreSumOf(rank: number): number {
  return rank & SUM_MASK;
}
