/**
 * The winter routes of an STnet station: its cross-country tracks, winter hiking trails and
 * toboggan runs, with their status from the condition codes (docs/snowdata-mapping.md, "Winter
 * routes").
 */

import { createHash } from 'node:crypto';
import type { RouteRecord } from '../../format.ts';
import { content, decimal, integer, list, type Many, text, timestamp } from '../read.ts';
import type { StnetCode, StnetItem, StnetStation } from './shapes.ts';

/** Status of a route from its condition code; codes not listed (807 and unknown ones) give null. */
export const ROUTE_STATUS: Readonly<Record<number, 'OPEN' | 'CLOSED' | 'NOINFO'>> = {
  // Slopes, cross-country tracks and toboggan runs.
  800: 'NOINFO',
  801: 'OPEN',
  802: 'OPEN',
  803: 'OPEN',
  804: 'OPEN',
  805: 'CLOSED',
  806: 'CLOSED', // end of season
  // Winter hiking trails.
  1200: 'NOINFO',
  1201: 'OPEN',
  1202: 'OPEN',
  1203: 'CLOSED',
  1204: 'CLOSED', // end of season
};
/** Lift status 3001 (open): a station with one running lift is active. */
export const LIFT_OPEN = 3001;

/** Which station array becomes which route type. */
export const ROUTE_ARRAYS = [
  { type: 'crosscountry', section: 'crosscountry', array: 'tracksArray' },
  { type: 'winterhiking', section: 'hiking', array: 'trailsArray' },
  { type: 'sledging', section: 'tobogganing', array: 'runsArray' },
] as const;

/**
 * Builds the winter routes of one station from its cross-country tracks, winter hiking trails
 * and toboggan runs (docs/snowdata-mapping.md, "Winter routes"). Items without a name are left
 * out: the name is what keeps a route's id stable from one day to the next.
 */
export function stationRoutes(raw: StnetStation): RouteRecord[] {
  return stationRouteItems(raw).map((item) => item.route);
}

/** A station route with what the tour join (sync/joins/winterRoutes.ts) matches it by. */
export interface StationRouteItem {
  route: RouteRecord;
  /** The item's name as the service gives it. */
  name: string;
  /** The item's own `[lng, lat]`, null when it has none (trails never do). */
  position: [number, number] | null;
}

/** {@link stationRoutes}, each with the item's name and position. */
export function stationRouteItems(raw: StnetStation): StationRouteItem[] {
  const stationId = integer(raw?.id);
  if (stationId === null) return [];
  const active = isStationActive(raw);
  const lastUpdated = timestamp(raw.lastUpdate);
  const items: StationRouteItem[] = [];
  for (const { type, section, array } of ROUTE_ARRAYS) {
    const seen = new Map<string, number>();
    for (const [index, item] of list((raw[section] as Record<string, Many<StnetItem>> | null | undefined)?.[array]).entries()) {
      const name = text(item.name);
      if (name === null) continue;
      // Two items of one array with the same name still get their own ids.
      const repeat = (seen.get(name) ?? 0) + 1;
      seen.set(name, repeat);
      const order = integer(item.info?.sortOrder);
      const route: RouteRecord = {
        id: nameUuid(`${stationId}/${type}/${name}${repeat > 1 ? `#${repeat}` : ''}`),
        type,
        number: `${stationId}-${order ?? index + 1}`,
        status: routeStatus(item.info?.condition),
        lastUpdated,
        link: null,
        isStationActive: active,
        stationId,
      };
      items.push({ route, name, position: position(item) });
    }
  }
  return items;
}

/** A station is active while one of its lifts, slopes, tracks, trails or runs is open. */
export function isStationActive(raw: StnetStation): boolean {
  if (list(raw.liftInfo?.liftsArray).some((lift) => integer(lift.info?.status?.id) === LIFT_OPEN)) return true;
  const items = [...list(raw.ski?.slopesArray), ...ROUTE_ARRAYS.flatMap(({ section, array }) => list((raw[section] as Record<string, Many<StnetItem>> | null | undefined)?.[array]))];
  return items.some((item) => routeStatus(item.info?.condition) === 'OPEN');
}

export function routeStatus(code: StnetCode | null | undefined): 'OPEN' | 'CLOSED' | 'NOINFO' | null {
  const id = integer(code?.id);
  return id !== null && Object.hasOwn(ROUTE_STATUS, id) ? ROUTE_STATUS[id]! : null;
}

/** Our namespace for route ids; changing it changes every route id. */
export const ROUTE_NAMESPACE = '6f1c7a52-3b0e-4d8a-9c1e-5a7d2b4e8f10';

/** A name-based UUID (RFC 9562 version 5, SHA-1) in {@link ROUTE_NAMESPACE}. */
export function nameUuid(name: string): string {
  const hash = createHash('sha1').update(Buffer.from(ROUTE_NAMESPACE.replaceAll('-', ''), 'hex')).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `[lng, lat]` of a track or run with both coordinates in range; 0 means "not set" to the service's clients. */
export function position(item: StnetItem): [number, number] | null {
  const lat = decimal(content(item.info?.latitude));
  const lng = decimal(content(item.info?.longitude));
  if (lat === null || lng === null || lat === 0 || lng === 0 || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return [lng, lat];
}
