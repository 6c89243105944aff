/**
 * The price and date filters and the `sort` of `activities`: their checks, the sets of positions
 * they give (which intersect with the exact-value filters' sets, so that a facet count can take
 * them as they are), and the order of a sorted page.
 */

import type { ActivityRecord } from '../../sync/format.ts';
import type { ActivitiesOnDay, ActivityIndex } from '../snapshot/activityIndex.ts';
import type { LngLatBox } from '../search/indexes.ts';
import { countPositions, firstPositions, hasPosition, type Intersection, type PositionSet } from '../search/positionSet.ts';
import type { AreaStore } from '../snapshot/store.ts';
import { isIsoDay } from '../util/zurichDay.ts';
import { badInput, type NearMe } from './args.ts';
import type { Selection } from './select.ts';

/** The values of the `ActivitiesSort` enum of schema.graphql. */
export const ACTIVITIES_SORTS = ['RANKING_DESC', 'PRICE_ASC', 'PRICE_DESC', 'POPULARITY_DESC', 'NEXT_AVAILABLE_DATE_ASC', 'DISTANCE_ASC'] as const;
export type ActivitiesSort = (typeof ACTIVITIES_SORTS)[number];

/** The price and date arguments of `activities`, checked; null where not given. */
export interface ActivityRanges {
  /** Starting price in CHF, both ends included. */
  readonly price: { readonly min: number | null; readonly max: number | null } | null;
  /** Bookable on at least one day of it, `YYYY-MM-DD`, both ends included. */
  readonly dates: { readonly from: string | null; readonly to: string | null } | null;
}

/**
 * @throws GraphQLError BAD_USER_INPUT for a negative or non-finite price, a malformed date, or a
 *   range whose minimum is above its maximum
 */
export function checkActivityFilters(args: { minPrice?: number | null; maxPrice?: number | null; availableFrom?: string | null; availableTo?: string | null }): ActivityRanges {
  const min = checkPrice('minPrice', args.minPrice);
  const max = checkPrice('maxPrice', args.maxPrice);
  if (min !== null && max !== null && min > max) throw badInput(`minPrice: ${min} is above maxPrice: ${max}; allowed: minPrice at most maxPrice`);
  const from = checkDay('availableFrom', args.availableFrom);
  const to = checkDay('availableTo', args.availableTo);
  if (from !== null && to !== null && from > to) throw badInput(`availableFrom: "${from}" is after availableTo: "${to}"; allowed: availableFrom on or before availableTo`);
  return {
    price: min === null && max === null ? null : { min, max },
    dates: from === null && to === null ? null : { from, to },
  };
}

function checkPrice(name: string, value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isFinite(value) || value < 0) throw badInput(`${name}: ${value} is out of range; allowed: an amount in CHF of 0 or more`);
  return value;
}

function checkDay(name: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (!isIsoDay(value)) throw badInput(`${name}: ${JSON.stringify(value.slice(0, 40))} is not a date; allowed: an ISO 8601 date, YYYY-MM-DD`);
  return value;
}

/**
 * `sort`, which GraphQL has already checked against the enum; null keeps the order without it.
 * @throws GraphQLError BAD_USER_INPUT for DISTANCE_ASC without nearLat and nearLng
 */
export function checkActivitiesSort(sort: ActivitiesSort | null | undefined, near: NearMe | null): ActivitiesSort | null {
  if (sort === null || sort === undefined) return null;
  if (sort === 'DISTANCE_ASC' && near === null) throw badInput('sort: DISTANCE_ASC needs nearLat and nearLng; allowed without them: ' + ACTIVITIES_SORTS.filter((s) => s !== 'DISTANCE_ASC').join(', '));
  return sort;
}

/**
 * The sets of the price and date arguments of `activities`: the price range and the bookable
 * days. A day before `today` is past, so the days searched start at `today`, and a range wholly
 * past matches nothing. A facet count takes them as they are, since no facet counts them.
 */
export function activityRangeSets(index: ActivityIndex, ranges: ActivityRanges, today: string): PositionSet[] {
  const sets: PositionSet[] = [];
  if (ranges.price) sets.push(index.priceBetween(ranges.price.min, ranges.price.max));
  if (ranges.dates) {
    const { from, to } = ranges.dates;
    const first = from === null || from < today ? today : from;
    sets.push(index.bookableBetween(first, to ?? LAST_DAY));
  }
  return sets;
}

/**
 * The sets of the filter arguments of `activities`: the exact-value ones (the store's filter
 * index) and {@link activityRangeSets}.
 * @returns null when no filter is given
 */
export function activityFilterSets(
  area: AreaStore<ActivityRecord, 'typeId' | 'locationId' | 'supplierId' | 'attributeValue'>,
  conditions: { typeId?: string | null; locationId?: string | null; supplierId?: string | null; attributeValue?: string | null },
  rangeSets: readonly PositionSet[],
): Intersection | null {
  const exact = area.filters.match(conditions);
  if (rangeSets.length === 0) return exact;
  return [...(exact ?? []), ...rangeSets];
}

/** Later than any bookable day: an open end of a date range. */
const LAST_DAY = '9999-12-31';

/** Inverse permutations: per order, each position's rank in it. */
const ranks = new WeakMap<Uint32Array, Uint32Array>();

function rankOf(order: Uint32Array): Uint32Array {
  let rank = ranks.get(order);
  if (rank === undefined) {
    rank = new Uint32Array(order.length);
    for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
    ranks.set(order, rank);
  }
  return rank;
}

/**
 * The matches of a list query with `sort`, in its order: the filters, `q`, the box and near-me's
 * radius narrow the list, and `sort` alone orders it (ties by id, so that pages never overlap).
 * With near-me every item keeps its distance.
 */
export function sortedActivities(
  area: AreaStore<ActivityRecord, string>,
  index: ActivityIndex,
  served: ActivitiesOnDay,
  options: { q: string | null; near: NearMe | null; filter: Intersection | null; box: LngLatBox | null; end: number; sort: ActivitiesSort },
): Selection<ActivityRecord> {
  const { q, near, box, end, sort } = options;
  const { records } = served;
  const sets: PositionSet[] = options.filter === null ? [] : [...options.filter];
  const matched = q === null ? null : area.text.matchSet(q);
  if (matched !== null) sets.push(matched);
  // RANKING_DESC is the store's own order (position order); DISTANCE_ASC has none of its own.
  const order = sort === 'RANKING_DESC' || sort === 'DISTANCE_ASC' ? null : sort === 'NEXT_AVAILABLE_DATE_ASC' ? served.nextDateOrder : index.order(sort);

  if (near) {
    const { withDistance } = area;
    if (withDistance === null) throw new Error('near-me asked of activities without a distance field (server/snapshot/store.ts AREAS)');
    const { total, hits } = area.geo.nearest(near.lng, near.lat, near.radiusKm, sets.length === 0 ? null : sets, records.length, box);
    if (sort === 'DISTANCE_ASC') hits.sort((a, b) => a.distanceKm - b.distanceKm || compareIds(records[a.position]!.id, records[b.position]!.id));
    else if (order === null) hits.sort((a, b) => a.position - b.position);
    else {
      const rank = rankOf(order);
      hits.sort((a, b) => rank[a.position]! - rank[b.position]!);
    }
    const page = hits.slice(0, end);
    return { items: page.map((hit) => records[hit.position]!), total, near: { distancesKm: page.map((hit) => hit.distanceKm), withDistance } };
  }

  if (box !== null) sets.push(area.geo.within(box));
  if (sets.length === 0) {
    return { items: order === null ? records : Array.from(order.subarray(0, end), (p) => records[p]!), total: records.length, near: null };
  }
  if (order === null) return { items: firstPositions(sets, end).map((p) => records[p]!), total: countPositions(sets), near: null };
  const items: ActivityRecord[] = [];
  for (let i = 0; i < order.length && items.length < end; i++) {
    const p = order[i]!;
    if (hasPosition(sets, p)) items.push(records[p]!);
  }
  return { items, total: countPositions(sets), near: null };
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
