/** A list's records as an RFC 7946 FeatureCollection of Points (https://www.rfc-editor.org/rfc/rfc7946). */

import type { Steps } from '../../util/timeSlice.ts';
import type { ListRecord } from './areas.ts';
import type { ListOperation, PositionFields } from './listOperation.ts';

/** A Point feature of one record; `id` is the record's. */
export interface PointFeature {
  type: 'Feature';
  id: string | number;
  /** `[longitude, latitude]` in decimal degrees (WGS 84), as RFC 7946 §3.1.1 orders them. */
  geometry: { type: 'Point'; coordinates: [number, number] };
  /** The record's id, title and area, its label fields, and `query`: the GET URL of its record query (null when the area has none). */
  properties: Record<string, unknown>;
}

/** Whose data the features are: the list's `meta.license` and `meta.attribution`. */
export interface CollectionTerms {
  /** An SPDX licence expression, or the URL of the terms. */
  license: string;
  /** The credit a map showing the features must display (Leaflet's attribution control, say). */
  attribution: string;
}

/**
 * The answer: the features, and as foreign members (RFC 7946 §6.1) the area, the locale, the
 * licence and attribution of its records, the matching records and how many of them were left
 * out for having no position.
 */
export interface GeojsonFeatureCollection {
  type: 'FeatureCollection';
  features: PointFeature[];
  area: string;
  locale: string;
  /** Absent only for a list whose meta has no terms. */
  license?: string;
  attribution?: string;
  /** Records that matched the request. */
  total: number;
  /** Matching records left out: they have no coordinates (or none a map can place). */
  omitted: number;
}

/**
 * The FeatureCollection of a list's records, in the list's order, as the bytes of its JSON: a
 * {@link GeojsonFeatureCollection} written as `JSON.stringify` writes one, a feature per step
 * (server/util/timeSlice.ts), so that a long answer is written in slices. Records without a
 * position are counted in `omitted`.
 */
export function* featureCollectionSteps(operation: ListOperation, records: readonly ListRecord[], locale: string, terms: CollectionTerms | null): Steps<Buffer> {
  const { area, position } = operation;
  const features: string[] = [];
  for (const record of records) {
    const feature = position && featureOf(operation, record, position, locale);
    if (feature) features.push(JSON.stringify(feature));
    yield;
  }
  const total = records.length;
  const omitted = total - features.length;
  const members: Omit<GeojsonFeatureCollection, 'type' | 'features'> =
    terms === null ? { area: area.list, locale, total, omitted } : { area: area.list, locale, license: terms.license, attribution: terms.attribution, total, omitted };
  // The object's own members after `features`, as JSON.stringify of the whole would order them.
  const rest = JSON.stringify(members).slice(1);
  return Buffer.from(`{"type":"FeatureCollection","features":[${features.join(',')}],${rest}`);
}

/** The Point feature of a record, or null when it has no position. */
function featureOf(operation: ListOperation, record: ListRecord, position: PositionFields, locale: string): PointFeature | null {
  const lng = coordinateOf(record[position.lng], 180);
  const lat = coordinateOf(record[position.lat], 90);
  if (lng === null || lat === null) return null;
  const { area } = operation;
  const id = record.id as string | number;
  return {
    type: 'Feature',
    id,
    geometry: { type: 'Point', coordinates: [lng, lat] },
    properties: { id, title: record[area.titleField] ?? null, area: area.list, ...area.label(record), query: operation.recordUrl(id, locale) },
  };
}

/** A coordinate in degrees within ±`bound`, from a number or the text an upstream sent; null when there is none. */
function coordinateOf(value: unknown, bound: number): number | null {
  if (value === null || value === undefined || value === '') return null;
  const degrees = Number(value);
  return Number.isFinite(degrees) && Math.abs(degrees) <= bound ? degrees : null;
}
