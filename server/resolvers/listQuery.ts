/**
 * A list query beyond the filters of selectRecords (select.ts): a `sort` of the list's own, range
 * filters, and the facets of the answer. Without a sort (or with near-me's DISTANCE_ASC) the page
 * is selectRecords' in its order; with one, the matches are those selectRecords would find, in
 * the sort's order.
 */

import type { FilterCondition } from '../search/filterIndex.ts';
import type { LngLatBox } from '../search/indexes.ts';
import { createRangeIndex, firstInOrder, type RangeIndex } from '../search/orderIndex.ts';
import { countPositions, positionSetOf, type Intersection, type PositionSet } from '../search/positionSet.ts';
import { countFacetValues } from '../search/facetCounts.ts';
import type { AreaStore } from '../snapshot/store.ts';
import { badInput, type NearMe } from './args.ts';
import { selectRecords, type Selection } from './select.ts';
import { collatorOf, DISTANCE, sortOrderOf, type SortDefinition } from './sorted.ts';

/** What a list query asks of one area. */
export interface ListQuery<R> {
  readonly q: string | null;
  readonly near: NearMe | null;
  readonly box: LngLatBox | null;
  /** The exact-value filters of the area's filter index, by argument name (null: not given). */
  readonly conditions: { readonly [name: string]: FilterCondition };
  /** Further sets every match lies in (range filters), beside the conditions. */
  readonly sets: readonly PositionSet[];
  /** The sort asked for, with its enum value; null for the list's default order. */
  readonly sort: { readonly name: string; readonly definition: SortDefinition<R> } | null;
  readonly locale: string;
}

/**
 * The matches of a list query in its order, at least its first `end`.
 */
export function selectList<R extends { id: string | number }>(area: AreaStore<R, string>, query: ListQuery<R>, end: number): Selection<R> {
  const { q, near, box, sort } = query;
  const filter = filterOf(area, query);
  // checkSort (sortArgument.ts) refused DISTANCE without near-me already.
  if (sort === null || sort.definition === DISTANCE) return selectRecords(area, { q, near, filter, box, end });
  const order = sortOrderOf(area.records, sort.name, sort.definition, collatorOf(query.locale));
  const sets: PositionSet[] = [...(filter ?? [])];
  const matched = q === null ? null : area.text.matchSet(q);
  if (matched !== null) sets.push(matched);
  const { records } = area;
  if (near) {
    const { withDistance } = area;
    if (withDistance === null) throw new Error('near-me asked of an area without a distance field (server/snapshot/store.ts AREAS)');
    const { total, hits } = area.geo.nearest(near.lng, near.lat, near.radiusKm, sets.length > 0 ? sets : null, records.length, box);
    hits.sort((a, b) => order.ranks[a.position]! - order.ranks[b.position]!);
    const page = hits.slice(0, end);
    return { items: page.map((hit) => records[hit.position]!), total, near: { distancesKm: page.map((hit) => hit.distanceKm), withDistance } };
  }
  if (box !== null) sets.push(area.geo.within(box));
  const positions = firstInOrder(order.positions, sets.length > 0 ? sets : null, end);
  return { items: positions.map((p) => records[p]!), total: sets.length > 0 ? countPositions(sets) : records.length, near: null };
}

/** The conditions' sets and the query's further sets, as selectRecords takes them: null for none. */
function filterOf<R>(area: AreaStore<R, string>, query: ListQuery<R>): Intersection | null {
  const matched = area.filters.match(query.conditions);
  if (query.sets.length === 0) return matched;
  return [...(matched ?? []), ...query.sets];
}

/** One facet a list offers: the filter argument it counts, and for a closed vocabulary its values. */
export interface FacetDefinition {
  /** The filter's name in the area's filter index. */
  readonly filter: string;
  /** Every value, in the order answered (counts of 0 included); null for an open vocabulary. */
  readonly values: readonly (string | boolean)[] | null;
}

/** One facet of an answer. */
export interface Facet {
  readonly field: string;
  readonly values: readonly { readonly value: string; readonly count: number }[];
}

/** Most values a facet of an open vocabulary answers, by `facets(maxValues)`. */
export const FACET_MAX_VALUES = 500;

/**
 * The facets of a list query, each counted over the query's other filters, text, near-me and box,
 * but not its own filter: what choosing each value would give. A closed vocabulary answers each of
 * its values; an open one the values with at least one record, most first (ties by value), at most
 * `maxValues`.
 * @param fields the facets asked for, as enum values of the list's facet field enum
 */
export function facetsOf<R>(
  area: AreaStore<R, string>,
  query: ListQuery<R>,
  definitions: Readonly<Record<string, FacetDefinition>>,
  fields: readonly string[],
  maxValues: number,
): Facet[] {
  const base: PositionSet[] = [...query.sets];
  const { q, near, box } = query;
  const matched = q === null ? null : area.text.matchSet(q);
  if (matched !== null) base.push(matched);
  if (near) {
    const { hits } = area.geo.nearest(near.lng, near.lat, near.radiusKm, null, area.records.length, box);
    base.push(positionSetOf(area.records.length, hits.map((hit) => hit.position)));
  } else if (box !== null) {
    base.push(area.geo.within(box));
  }
  const out: Facet[] = [];
  for (const field of new Set(fields)) {
    const definition = definitions[field]!;
    const others = area.filters.match({ ...query.conditions, [definition.filter]: null });
    const sets = [...base, ...(others ?? [])];
    const counts = countFacetValues(sets.length > 0 ? sets : null, area.filters.valuesOf(definition.filter));
    let values: { value: string; count: number }[];
    if (definition.values !== null) {
      values = definition.values.map((value) => ({ value: String(value), count: counts.get(value) ?? 0 }));
    } else {
      values = [];
      for (const [value, count] of counts) if (count > 0) values.push({ value: String(value), count });
      values.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
      values = values.slice(0, maxValues);
    }
    out.push({ field: definition.filter, values });
  }
  return out;
}

/** Checks `facets(maxValues)`. */
export function checkMaxValues(value: number | null | undefined): number {
  const max = value ?? 50;
  if (max < 1 || max > FACET_MAX_VALUES) throw badInput(`maxValues: ${max} is out of range; allowed: 1 to ${FACET_MAX_VALUES}`);
  return max;
}

const ranges = new WeakMap<object, Map<string, RangeIndex>>();

/**
 * The set of the records whose value lies in [min, max], from the range index of their array
 * (built on its first use); null when neither bound is given.
 * @param name the range's name, which its index is remembered by
 */
export function rangeSetOf<R>(records: readonly R[], name: string, value: (record: R) => number | null | undefined, min: number | null, max: number | null): PositionSet | null {
  if (min === null && max === null) return null;
  let byName = ranges.get(records);
  if (byName === undefined) ranges.set(records, (byName = new Map()));
  let index = byName.get(name);
  if (index === undefined) byName.set(name, (index = createRangeIndex(records, value)));
  return index.within(min, max);
}

/**
 * Checks a range's two bounds: numbers, min at most max.
 * @throws GraphQLError BAD_USER_INPUT naming both arguments
 */
export function checkRange(minName: string, min: number | null | undefined, maxName: string, max: number | null | undefined): { min: number | null; max: number | null } {
  const lo = min ?? null;
  const hi = max ?? null;
  if (lo !== null && hi !== null && lo > hi) throw badInput(`${minName}: ${lo} is greater than ${maxName}: ${hi}; allowed: ${minName} <= ${maxName}`);
  return { min: lo, max: hi };
}

/** The attachment of a list answer that its `facets` field reads (see {@link withFacets}). */
const FACETS = Symbol('facets');

type FacetReader = (fields: readonly string[], maxValues: number) => Facet[];

/**
 * Gives a list answer what its `facets` field needs, under a symbol: no answer, JSON.stringify or
 * answer writer sees it, and the counting runs only when a document asks for facets.
 */
export function withFacets<T extends object>(answer: T, read: FacetReader): T {
  // A symbol key, assigned rather than defined: cheaper, and still invisible to JSON and Object.keys.
  (answer as { [FACETS]?: FacetReader })[FACETS] = read;
  return answer;
}

/** The resolver of a list result's `facets(fields, maxValues)`. */
export function resolveFacets(parent: object, args: { fields: readonly string[]; maxValues?: number | null }): Facet[] {
  const read = (parent as { [FACETS]?: FacetReader })[FACETS];
  if (read === undefined) throw new Error('a list answer without its facets (server/resolvers/listQuery.ts withFacets)');
  return read(args.fields, checkMaxValues(args.maxValues));
}
