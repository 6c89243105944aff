/**
 * Query field `changes`: what changed in an area and locale since an earlier snapshot version,
 * read from the change lists the sync wrote into the version served (server/snapshot/changeLists.ts).
 */

import { GraphQLError } from 'graphql';
import type { AreaChanges, ChangeArea, ChangesSince } from '../../sync/format.ts';
import type { Locale } from '../snapshot/locales.ts';
import type { AreaStore, Store } from '../snapshot/store.ts';
import { type ArgumentReader, badInput, checkLimit, checkLocale, checkOffset } from './args.ts';
import { activityIndexOf } from '../snapshot/activityIndex.ts';
import type { Context } from './context.ts';
import { parseTime } from './updatedSince.ts';

/** The areas of `changes`, named as their list queries (schema.graphql ChangesArea), and their snapshot areas. */
const CHANGES_AREAS = {
  activities: 'activities',
  snowdataStations: 'stations',
  snowdataRoutes: 'routes',
  tours: 'tours',
  attractions: 'attractions',
} as const satisfies Record<string, ChangeArea>;
type ChangesAreaName = keyof typeof CHANGES_AREAS;

/** Maximum of `changes(limit)`, as on the longest lists. */
export const CHANGES_MAX_LIMIT = 500;

/** A snapshot version id (sync/format.ts versionId, with `-<n>` for a second run in the same second). */
const VERSION_ID = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?$/;

interface ChangesArgs {
  area?: string;
  locale?: string | null;
  since?: string;
  limit?: number | null;
  offset?: number | null;
}

/** What `since` names: a version id, or a time (ms since the epoch). */
type Since = { version: string } | { at: number };

/** The arguments of `changes`, checked (see ArgumentReader). */
function readChangesArgs(args: ChangesArgs) {
  if (args.area === undefined || !Object.hasOwn(CHANGES_AREAS, args.area)) throw badInput(`area: "${args.area}" is not allowed; allowed: ${Object.keys(CHANGES_AREAS).join(', ')}`);
  return {
    area: CHANGES_AREAS[args.area as ChangesAreaName],
    locale: checkLocale(args.locale),
    since: checkSince(args.since ?? ''),
    limit: checkLimit(args.limit, 100, CHANGES_MAX_LIMIT),
    offset: checkOffset(args.offset),
  };
}

function checkSince(value: string): Since {
  if (VERSION_ID.test(value)) return { version: value };
  const at = parseTime(value);
  if (at === null) throw badInput(`since: "${value}" is neither a snapshot version id (e.g. 2026-11-20T04-00-00Z) nor an ISO 8601 time (e.g. 2026-11-20T04:00:00Z)`);
  return { at };
}

/** The argument readers of the Query fields of this file. */
export const changesArgumentReaders: Record<string, ArgumentReader> = { changes: readChangesArgs };

export const changesResolvers = {
  Query: {
    changes(_: unknown, args: ChangesArgs, { store, today }: Context) {
      const { area, locale, since, limit, offset } = readChangesArgs(args);
      const { version } = store.snapshot;
      const from = earlierVersion(store, since);
      const lists = from === null ? NO_CHANGES : (from.locales[locale]?.[area] ?? NO_CHANGES);
      const upserted = from === null ? [] : upsertedInOrder(store, locale, area, from, today);
      const total = upserted.length + lists.deleted.length;
      const end = Math.min(offset + limit, total);
      const records = upserted.slice(Math.min(offset, upserted.length), Math.min(end, upserted.length));
      const deleted: string[] = [];
      for (let i = Math.max(offset, upserted.length); i < end; i++) deleted.push(String(lists.deleted[i - upserted.length]));
      return { fromVersion: from?.version ?? version, toVersion: version, upserted: records, deleted, total, hasMore: end < total };
    },
  },
};

const NO_CHANGES: AreaChanges = Object.freeze({ upserted: [], deleted: [] }) as unknown as AreaChanges;

/**
 * The earlier version `since` names, or null for the version served itself (nothing changed
 * since); a time names the newest version created at or before it.
 *
 * @throws GraphQLError CHANGES_SINCE_TOO_OLD when the change lists do not reach it
 */
function earlierVersion(store: Store, since: Since): ChangesSince | null {
  const { manifest, changes } = store.snapshot;
  if ('version' in since) {
    if (since.version === manifest.version) return null;
    const found = changes.since.find((entry) => entry.version === since.version);
    if (found) return found;
  } else {
    if (Date.parse(manifest.createdAt) <= since.at) return null;
    // The lists are newest first: the first at or before the time is the newest such.
    const found = changes.since.find((entry) => Date.parse(entry.createdAt) <= since.at);
    if (found) return found;
  }
  const oldest = changes.since.at(-1)?.version ?? manifest.version;
  const asked = 'version' in since ? `version ${since.version}` : `time ${new Date(since.at).toISOString()}`;
  throw new GraphQLError(
    `since: ${asked} is older than the oldest version the change lists of ${manifest.version} reach back to (${oldest}), or unknown to it; fetch the list in full and take its meta.version as the next since`,
    { extensions: { code: 'CHANGES_SINCE_TOO_OLD', oldestVersion: oldest } },
  );
}

/**
 * Per area store and earlier version, the positions of the upserted records in the area's list
 * order, made on the first call that needs them: a store is replaced, never changed, so they hold
 * while it is served.
 */
const upsertedCache = new WeakMap<object, WeakMap<ChangesSince, readonly number[]>>();
/** Per area store, each record's position in its list order, by id. */
const positionsCache = new WeakMap<object, ReadonlyMap<string | number, number>>();

function upsertedInOrder(store: Store, locale: Locale, area: ChangeArea, from: ChangesSince, today: string): readonly object[] {
  const areaStore = store.locales[locale][area] as AreaStore<{ id: string | number }, string>;
  let byVersion = upsertedCache.get(areaStore);
  if (byVersion === undefined) upsertedCache.set(areaStore, (byVersion = new WeakMap()));
  let found = byVersion.get(from);
  if (found === undefined) {
    const positions = positionsOf(areaStore);
    const ids = from.locales[locale]?.[area]?.upserted ?? [];
    // The sync lists only ids its version holds; an id the store lacks cannot be served, so it is not listed.
    const inOrder = ids.map((id) => positions.get(id)).filter((position) => position !== undefined);
    inOrder.sort((a, b) => a - b);
    byVersion.set(from, (found = inOrder));
  }
  // Activities are served as on the day of the request (their next bookable day), as the list serves them.
  const records = area === 'activities' ? activityIndexOf(store.locales[locale].activities.records).on(today).records : areaStore.records;
  return found.map((position) => records[position]!);
}

function positionsOf(area: AreaStore<{ id: string | number }, string>): ReadonlyMap<string | number, number> {
  let positions = positionsCache.get(area);
  if (positions === undefined) {
    positions = new Map(area.records.map((record, position) => [record.id, position]));
    positionsCache.set(area, positions);
  }
  return positions;
}
