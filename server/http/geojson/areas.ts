/**
 * The areas GeoJSON is answered for: per list query, the fields a map label needs and how they
 * become a feature's properties. What the list takes and where a record's position is are read
 * from the schema (server/http/geojson/listOperation.ts), not listed here.
 */

import type { TourGeometry } from '../../../sync/format.ts';
import type { Store } from '../../snapshot/store.ts';

/** A record of a list as the GeoJSON operation selects it. */
export type ListRecord = Readonly<Record<string, unknown>>;

/** One area: a list query of the schema and what its features say. */
export interface GeojsonArea {
  /** The list query's root field, also the area's name in the path (`/api/geojson/tours`). */
  readonly list: string;
  /** The root field answering one record by `id` and `locale`; undefined when the schema has none. */
  readonly record?: string;
  /** The record's field shown as its title. */
  readonly titleField: string;
  /** What the label needs besides id, title and position, as a GraphQL selection of the record. */
  readonly labelSelection: string;
  /** The label's properties from a record selected with {@link GeojsonArea.labelSelection}. */
  label(record: ListRecord): Record<string, unknown>;
  /** For an area whose records have a line (a GeoJSON geometry of the record): where it is, and what a GPX track of it says. */
  readonly line?: AreaLine;
}

/** The fields of a record with a line, and where the store keeps the lines. */
export interface AreaLine {
  /** A record's line read from the store, for a list of lines: a page of records would carry each line through GraphQL's answer twice. */
  read(store: Store, id: string | number): TourGeometry | null;
  /** The record's field holding its line (a LineString or MultiLineString), null without one. */
  readonly geometry: string;
  /** The record's field holding the line's `[west, south, east, north]`. */
  readonly bounds: string;
  /** What a GPX track of the record says besides its name, as a GraphQL selection of the record. */
  readonly trackSelection: string;
  /** The track's description and page, from a record selected with {@link AreaLine.trackSelection}. */
  track(record: ListRecord): { description: string | null; url: string | null };
}

/** The areas by list name, in the order the allowed names are listed in refusals. */
export const GEOJSON_AREAS: ReadonlyMap<string, GeojsonArea> = new Map(
  (
    [
      {
        list: 'activities',
        record: 'activity',
        titleField: 'title',
        labelSelection: 'type { title } location { title } summary { startingPrice { amount currency formatted } } isBookable',
        label: (record) => {
          const summary = record.summary as { startingPrice: { amount: string; currency: string; formatted: string | null } | null };
          const price = summary.startingPrice;
          return {
            type: titleOf(record.type),
            location: titleOf(record.location),
            price: price === null ? null : (price.formatted ?? `${price.currency} ${price.amount}`),
            isBookable: record.isBookable,
          };
        },
      },
      {
        list: 'snowdataStations',
        record: 'snowdataStation',
        titleField: 'name',
        labelSelection: 'snow { depthPiste freshSnow } ski { openFacilities } info { totalFacilities altitude }',
        label: (record) => {
          const snow = record.snow as { depthPiste: number | null; freshSnow: number | null } | null;
          const ski = record.ski as { openFacilities: number | null } | null;
          const info = record.info as { totalFacilities: number | null; altitude: number | null } | null;
          return {
            snowDepthCm: snow?.depthPiste ?? null,
            freshSnowCm: snow?.freshSnow ?? null,
            openLifts: ski?.openFacilities ?? null,
            totalLifts: info?.totalFacilities ?? null,
            altitudeM: info?.altitude ?? null,
          };
        },
      },
      {
        list: 'snowdataRoutes',
        titleField: 'name',
        labelSelection: 'number type status stationId stationName isStationActive',
        label: (record) => ({
          number: record.number,
          type: record.type,
          status: record.status,
          stationId: record.stationId,
          stationName: record.stationName,
          isStationActive: record.isStationActive,
        }),
      },
      {
        list: 'tours',
        record: 'tour',
        titleField: 'name',
        labelSelection: 'routeType difficulty season distance duration',
        label: (record) => ({
          routeType: record.routeType,
          difficulty: record.difficulty,
          season: record.season,
          distanceKm: record.distance,
          durationMin: record.duration,
        }),
        line: {
          read: (store, id) => store.tourGeometry(String(id)),
          geometry: 'geometry',
          bounds: 'bounds',
          trackSelection: 'abstract url',
          track: (record) => ({ description: (record.abstract as string | null) ?? null, url: (record.url as string | null) ?? null }),
        },
      },
      {
        list: 'attractions',
        record: 'attraction',
        titleField: 'name',
        labelSelection: 'seasons experienceTypes isAccessibleForFree',
        label: (record) => ({ seasons: record.seasons, experienceTypes: record.experienceTypes, isAccessibleForFree: record.isAccessibleForFree }),
      },
    ] satisfies GeojsonArea[]
  ).map((area) => [area.list, area]),
);

function titleOf(value: unknown): string | null {
  return value === null ? null : (value as { title: string }).title;
}
