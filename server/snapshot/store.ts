/**
 * The in-memory store the resolvers read: per locale and area, the records in their
 * default order, a lookup by id, a full-text index, a geo index and the sets of the filter
 * arguments, all built once per snapshot. A new snapshot gets a new store; requests in
 * flight keep the one they started with.
 */

import type { AreaName, AreaRecords, RouteRecord, SourceEntry, SourceName, TourGeometry } from '../../sync/format.ts';
import { createSizeTally, type AnswerSizes } from './answerSizes.ts';
import { AREA_TYPES, type Snapshot } from './load.ts';
import { LOCALES, type Locale } from './locales.ts';
import { filterIndexSteps, type FilterIndex, type FilterValues } from '../search/filterIndex.ts';
import { geoIndexSteps, textIndexOf, textIndexPartsSteps, type GeoIndex, type TextIndex, type TextIndexParts } from '../search/indexes.ts';
import { sortSteps } from '../util/sortSteps.ts';
import { runSteps, runStepsSliced, type Steps } from '../util/timeSlice.ts';
import { compileWithDistance, type WithDistance } from './withDistance.ts';
import { nameRoute } from './routeNames.ts';
import { activityIndexOf } from './activityIndex.ts';
import type { TourLines } from './geometryFile.ts';
import { lineBounds } from '../search/lineGeometry.ts';

export interface AreaStore<R, F extends string = never> {
  /** Records in the area's default order (see DEFAULT_ORDER); positions index into this array. */
  readonly records: readonly R[];
  readonly byId: ReadonlyMap<string | number, R>;
  readonly text: TextIndex;
  readonly geo: GeoIndex;
  /** The area's filter arguments (see AREAS), by argument name. */
  readonly filters: FilterIndex<F>;
  /** Copies a record with its near-me distance; null for an area without near-me. */
  readonly withDistance: WithDistance<R> | null;
}

/** The filter arguments of an area's list query that the store indexes. */
type FilterName<A extends AreaName> = keyof (typeof AREAS)[A]['filters'] & string;

/**
 * A winter route as the store serves it: a route has no coordinates of its own, so it is placed
 * at the joined tour's start (same id), else at its station's point (the station id leads its
 * number); null when neither has one. A map draws it there, a map view finds it there, and
 * `search` weighs nearness from there.
 */
export type PlacedRoute = RouteRecord & {
  readonly latitude: number | null;
  readonly longitude: number | null;
  /** What the route is called (server/snapshot/routeNames.ts). */
  readonly name: string;
  /** The name of the station operating it; null when the snapshot has no such station. */
  readonly stationName: string | null;
};

/** A station as the store serves it: with whether it is open (see {@link stationIsOpen}). */
export type ServedStation = AreaRecords['stations'] & { readonly isOpen: boolean | null };

/** The records of an area as the store serves them. */
export type StoreRecords = Omit<AreaRecords, 'routes' | 'stations'> & { routes: PlacedRoute; stations: ServedStation };

export type LocaleStore = { readonly [A in AreaName]: AreaStore<StoreRecords[A], FilterName<A>> };

export interface Store {
  readonly snapshot: Snapshot;
  readonly locales: Readonly<Record<Locale, LocaleStore>>;
  /** What its answers weigh (server/snapshot/answerSizes.ts), which the limits estimate answers' bytes with. */
  readonly sizes: AnswerSizes;
  /** The manifest entry of a source, or undefined when it was never synced. */
  source(name: SourceName): SourceEntry | undefined;
  /**
   * A tour's line (GeoJSON, longitude first), the same in every locale: frozen, shared by every
   * answer. Null for an unknown id and for a tour without a line.
   */
  tourGeometry(id: string): TourGeometry | null;
}

/** The areas of a locale built so far, which an area's records may be placed by (Describe.placedBy). */
type BuiltAreas = { readonly [A in AreaName]?: { readonly byId: ReadonlyMap<string | number, StoreRecords[A]> } };

type Describe<R> = {
  /** Text fields in priority order; a match in an earlier field ranks first. */
  text: (record: R) => (string | null)[];
  /** The record's point; `built` holds the areas of `placedBy`. */
  point: (record: R, built: BuiltAreas) => { lng: number; lat: number } | null;
  /**
   * For records without coordinates of their own, the areas their point is read from: built
   * first, and the records are served copied with their point as `latitude` and `longitude`.
   */
  placedBy?: readonly AreaName[];
  /**
   * Fields the server works out for each record (schema.graphql names them), served on a copy of
   * the record; `built` holds the areas of `placedBy`.
   */
  derive?: (record: R, built: BuiltAreas, locale: Locale) => Readonly<Record<string, unknown>>;
  /** Default order when no text query or near-me filter decides it. */
  compare: (collator: Intl.Collator) => (a: R, b: R) => number;
  /**
   * Per filter argument of the area's list query (named as in schema.graphql), the values a
   * record has; the resolver's test for the argument is "the argument's value is among them".
   */
  filters: { readonly [name: string]: (record: R) => FilterValues };
  /** The field of a near-me distance (schema.graphql), for an area whose list query has near-me. */
  distanceField?: string;
};

const byName = (collator: Intl.Collator) => (a: { name: string; id: string | number }, b: { name: string; id: string | number }) =>
  collator.compare(a.name, b.name) || compareIds(a.id, b.id);
const byTitle = (collator: Intl.Collator) => (a: { title: string; id: string }, b: { title: string; id: string }) =>
  collator.compare(a.title, b.title) || compareIds(a.id, b.id);
const noPoint = () => null;
/**
 * Route numbers in their natural order ("2" before "10"), the same in every locale. One collator
 * for all comparisons: `localeCompare` with options builds one per call.
 */
const ROUTE_NUMBERS = new Intl.Collator('de-CH', { numeric: true });

function compareIds(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function point(lng: number | string | null, lat: number | string | null): { lng: number; lat: number } | null {
  if (lng === null || lat === null) return null;
  const x = Number(lng);
  const y = Number(lat);
  return Number.isFinite(x) && Number.isFinite(y) ? { lng: x, lat: y } : null;
}

const AREAS = {
  activities: {
    text: (r) => [r.title ?? r.info?.title ?? null],
    point: (r) => point(r.lng, r.lat),
    // Ranking order: score, then popularity, then id, so pages are stable.
    compare: () => (a, b) =>
      b.summary.rankingScoreValue - a.summary.rankingScoreValue || b.summary.popularity - a.summary.popularity || compareIds(a.id, b.id),
    filters: {
      typeId: (r) => r.type?.id,
      locationId: (r) => r.location?.id,
      supplierId: (r) => r.supplier?.id,
      attributeValue: (r) => r.attributeValues,
    },
    distanceField: 'distance',
  },
  locations: { text: (r) => [r.title], point: noPoint, compare: byTitle, filters: {} },
  types: { text: (r) => [r.title], point: noPoint, compare: byTitle, filters: {} },
  stations: {
    text: (r) => [r.name],
    point: (r) => point(r.longitude, r.latitude),
    compare: byName,
    derive: (r) => ({ isOpen: stationIsOpen(r) }),
    filters: { isOpen: (r) => stationIsOpen(r) },
    distanceField: 'distance_km',
  },
  routes: {
    text: (r) => [r.number],
    point: (r, built) => {
      const tour = built.tours!.byId.get(r.id);
      if (tour) return point(tour.longitude, tour.latitude);
      const station = built.stations!.byId.get(r.stationId);
      return station ? point(station.longitude, station.latitude) : null;
    },
    placedBy: ['tours', 'stations'],
    derive: (r, built, locale) => ({
      name: nameRoute(r, locale, built.tours!.byId, built.stations!.byId).title,
      stationName: built.stations!.byId.get(r.stationId)?.name ?? null,
    }),
    compare: () => (a, b) => compareIds(a.type, b.type) || ROUTE_NUMBERS.compare(a.number, b.number) || compareIds(a.id, b.id),
    filters: { type: (r) => r.type, status: (r) => r.status, stationId: (r) => String(r.stationId) },
    distanceField: 'distance_km',
  },
  tours: {
    text: (r) => [r.name, r.abstract],
    point: (r) => point(r.longitude, r.latitude),
    compare: byName,
    filters: {
      routeType: (r) => r.routeType,
      season: (r) => r.season,
      difficulty: (r) => r.difficulty,
      isRoundtrip: (r) => r.isRoundtrip,
      isBarrierFree: (r) => r.isBarrierFree,
      landscape: (r) => r.landscapes,
    },
    distanceField: 'distance_km',
  },
  attractions: {
    text: (r) => [r.name, r.abstract],
    point: (r) => point(r.longitude, r.latitude),
    compare: byName,
    filters: {
      season: (r) => r.seasons,
      sportType: (r) => r.sportTypes,
      experienceType: (r) => r.experienceTypes,
      neededTime: (r) => r.neededTime,
      childrenAge: (r) => r.childrenAges,
      isOutdoor: (r) => r.isOutdoor,
      isIndoor: (r) => r.isIndoor,
      isWheelchairAccessible: (r) => r.isWheelchairAccessible,
      isAccessibleForFree: (r) => r.isAccessibleForFree,
      suitableFor: (r) => r.suitableFor,
      locality: (r) => r.locality,
      natureType: (r) => r.natureTypes,
      touristType: (r) => r.touristType,
    },
    distanceField: 'distance_km',
  },
} satisfies { [A in AreaName]: Describe<AreaRecords[A]> };

/** The counts of a station that say something of it is open, each null when not reported. */
const OPEN_COUNTS: readonly ((station: AreaRecords['stations']) => number | null | undefined)[] = [
  (r) => r.ski?.openFacilities,
  (r) => r.ski?.slopesOpenLength,
  (r) => r.tobogganing?.tracksOpen,
  (r) => r.tobogganing?.tracksOpenLength,
  (r) => r.crosscountry?.classicPrepared,
  (r) => r.crosscountry?.skatingPrepared,
  (r) => r.hiking?.walkingTrailPrepared,
  (r) => r.snowboard?.snowparksOpen,
];

/**
 * Whether a station is open (docs/api.md, "Open stations"): true when it reports an open lift,
 * open slope length, open toboggan run, prepared cross-country or winter-hiking trail or open snow
 * park; false when it reports some of these and every one is 0; null when it reports none of them,
 * since then the data says nothing either way.
 */
export function stationIsOpen(station: AreaRecords['stations']): boolean | null {
  let reported = false;
  for (const count of OPEN_COUNTS) {
    const value = count(station);
    if (value === null || value === undefined) continue;
    if (value > 0) return true;
    reported = true;
  }
  return reported ? false : null;
}

/** The areas in the order they are built: an area after those it is placed by. */
const BUILD_ORDER: readonly AreaName[] = (() => {
  const order: AreaName[] = [];
  const visit = (area: AreaName): void => {
    if (order.includes(area)) return;
    for (const by of (AREAS[area] as Describe<unknown>).placedBy ?? []) visit(by);
    order.push(area);
  };
  for (const area of Object.keys(AREAS) as AreaName[]) visit(area);
  return order;
})();

/**
 * What can be made of an area's records before they reach the thread that serves: the order of
 * its store and the parts of its text index. Plain data and typed arrays: during a hot reload
 * the snapshot reader thread computes them (loadWorker.ts), which leaves the serving thread less
 * to do.
 */
export interface AreaParts {
  /** The records' default order, as positions in the area's records as loaded. */
  readonly order: Uint32Array;
  readonly text: TextIndexParts;
}

/** {@link AreaParts} computed ahead, per locale and area; an area without them is built in full. */
export type StoreParts = Partial<Record<Locale, Partial<Record<AreaName, AreaParts>>>>;

/** Computes the {@link AreaParts} of an area's records (as loaded), as steps. */
export function* areaPartsSteps(locale: Locale, area: AreaName, records: readonly unknown[]): Steps<AreaParts> {
  const describe = AREAS[area] as unknown as Describe<unknown>;
  const compare = describe.compare(localeCollator(locale));
  // A stable sort of the positions compares the records as a sort of the records does, in the same order.
  const order = yield* sortSteps(Array.from(records.keys()), (a, b) => compare(records[a], records[b]));
  return { order: Uint32Array.from(order), text: yield* textIndexPartsSteps(order.map((at) => describe.text(records[at]))) };
}

/** Builds every index of a snapshot at once. CPU-bound: for a cold start, before serving. */
export function createStore(snapshot: Snapshot): Store {
  return runSteps(buildStore(snapshot, {}));
}

/**
 * Builds every index of a snapshot in slices of a few milliseconds (server/util/timeSlice.ts),
 * letting the event loop run between them, so that requests keep being answered while a new
 * snapshot is indexed beside the one being served (hot reload). The same store as
 * {@link createStore}.
 * @param parts what was computed ahead of the records (see {@link AreaParts})
 * @param previous the store served now: an area whose records the snapshot shares with it (a
 *   file unchanged since, see loadSnapshotOffThread) keeps its indexes, which are those the same
 *   records would get again
 */
export function createStoreAsync(snapshot: Snapshot, parts: StoreParts = {}, previous?: Store): Promise<Store> {
  return runStepsSliced(buildStore(snapshot, parts, previous));
}

/** The order of names and titles in a locale. */
function localeCollator(locale: Locale): Intl.Collator {
  return new Intl.Collator(locale, { sensitivity: 'base', numeric: true });
}

/** The build, as steps: every index is built in steps of well under a slice. */
function* buildStore(snapshot: Snapshot, parts: StoreParts, previous?: Store): Steps<Store> {
  const locales = {} as Record<Locale, LocaleStore>;
  const tally = createSizeTally();
  for (const locale of LOCALES) {
    const content = snapshot.locales[locale];
    const areas = {} as Record<AreaName, AreaStore<never, string>>;
    for (const area of BUILD_ORDER) {
      const kept = previous === undefined ? undefined : keptArea(previous, content, locale, area);
      areas[area] = kept ?? (yield* buildArea(locale, area, content[area] as readonly never[], parts[locale]?.[area], areas as BuiltAreas));
      if (area === 'activities') {
        // Built here rather than by the first request that lists activities, within its time limit.
        yield;
        activityIndexOf(areas[area].records as readonly never[]);
      }
      // The records as served: placed ones with their point.
      yield* tally.add(AREA_TYPES[area], areas[area].records as readonly object[]);
      // A tour's line fields are resolved from the line kept apart from its record, the same in
      // every locale: measured once, as the fields an answer holds, so that the limits count them.
      if (area === 'tours' && locale === LOCALES[0]) yield* tally.add(AREA_TYPES.tours, lineFieldsOf(areas.tours.records, snapshot.geometry));
    }
    locales[locale] = areas as unknown as LocaleStore;
  }
  return {
    snapshot,
    locales,
    sizes: tally.sizes(),
    source: (name) => snapshot.manifest.sources[name],
    tourGeometry: (id) => (Object.hasOwn(snapshot.geometry, id) ? snapshot.geometry[id]! : null),
  };
}

/** A tour's `geometry` and `bounds` as an answer holds them, per tour (null without a line). */
function lineFieldsOf(tours: readonly { id: string }[], lines: TourLines): object[] {
  return tours.map(({ id }) => {
    const geometry = Object.hasOwn(lines, id) ? lines[id]! : null;
    return { geometry, bounds: geometry === null ? null : lineBounds(geometry) };
  });
}

/**
 * The area of the previous store that serves the new snapshot as it is: its records are the new
 * ones, and for placed records, so are those of the areas they are placed by. A function of its
 * own, so that no closure of buildStore captures `previous`: the store's `source` shares that
 * scope, and would keep every replaced store reachable.
 */
function keptArea(previous: Store, content: Snapshot['locales'][Locale], locale: Locale, area: AreaName): AreaStore<never, string> | undefined {
  for (const name of [area, ...((AREAS[area] as Describe<unknown>).placedBy ?? [])]) {
    if (!sameRecords(previous.snapshot.locales[locale][name], content[name])) return undefined;
  }
  return previous.locales[locale][area] as unknown as AreaStore<never, string>;
}

/**
 * Whether an area of the previous snapshot has the records of the new one: the same array (a file
 * carried over), or none in both (an area a snapshot leaves out is a new empty array each load).
 */
function sameRecords(previous: readonly unknown[], records: readonly unknown[]): boolean {
  return previous === records || (previous.length === 0 && records.length === 0);
}

/** Records mapped (by id, to their point) per step. */
const RECORDS_PER_STEP = 1024;

/** An area's store, from its parts when they were computed ahead, else computing them here. */
function* buildArea<R extends { id: string | number }>(
  locale: Locale,
  area: AreaName,
  input: readonly R[],
  ahead: AreaParts | undefined,
  built: BuiltAreas,
): Steps<AreaStore<R, string>> {
  const describe = AREAS[area] as unknown as Describe<R>;
  const parts = ahead ?? (yield* areaPartsSteps(locale, area, input));
  if (parts.order.length !== input.length) throw new Error(`the parts of an area of ${input.length} records order ${parts.order.length}`);
  const records = Array.from(parts.order, (at) => input[at]!);
  const byId = new Map<string | number, R>();
  const points: ({ lng: number; lat: number } | null)[] = [];
  for (const [position, record] of records.entries()) {
    if (position % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const at = describe.point(record, built);
    points.push(at);
    const placed = describe.placedBy === undefined ? null : { latitude: at?.lat ?? null, longitude: at?.lng ?? null };
    if (placed !== null || describe.derive !== undefined) {
      records[position] = Object.freeze({ ...record, ...placed, ...describe.derive?.(record, built, locale) });
    }
    byId.set(record.id, records[position]!);
  }
  return {
    records,
    byId,
    text: textIndexOf(parts.text),
    geo: yield* geoIndexSteps(points),
    filters: yield* filterIndexSteps(records, describe.filters),
    // Validated records all have the same fields (server/snapshot/validateRecord.ts): the first one's.
    withDistance: describe.distanceField === undefined ? null : compileWithDistance(Object.keys(records[0] ?? {}), describe.distanceField),
  };
}
