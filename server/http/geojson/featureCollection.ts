/**
 * A list's records as an RFC 7946 FeatureCollection (https://www.rfc-editor.org/rfc/rfc7946):
 * each a Point at its position, or, asked for lines, its line where it has one; and one record
 * as a Feature with its line.
 */

import type { TourGeometry } from '../../../sync/format.ts';
import type { Steps } from '../../util/timeSlice.ts';
import type { ListRecord } from './areas.ts';
import { creditOf } from './credit.ts';
import type { ListOperation, RecordOperation } from './listOperation.ts';

/** A GeoJSON geometry of a feature: a record's point or its line. */
export type FeatureGeometry = { type: 'Point'; coordinates: [number, number] } | TourGeometry;

/** A feature of one record; `id` is the record's. */
export interface RecordFeature {
  type: 'Feature';
  id: string | number;
  /** The line's `[west, south, east, north]` (RFC 7946 §5), on a feature drawn as a line. */
  bbox?: [number, number, number, number];
  /**
   * `[longitude, latitude]` in decimal degrees (WGS 84), as RFC 7946 §3.1.1 orders them, or the
   * line; null for a single record that has neither.
   */
  geometry: FeatureGeometry | null;
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
  features: RecordFeature[];
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

/** A single record's Feature, with the area and locale as foreign members, and its terms when known ({@link creditOf}). */
export type GeojsonRecordFeature = RecordFeature & { area: string; locale: string; license?: string | null; attribution?: string };

/**
 * The FeatureCollection of a list's records, in the list's order, as the bytes of its JSON: a
 * {@link GeojsonFeatureCollection} written as `JSON.stringify` writes one, a feature per step
 * (server/util/timeSlice.ts), so that a long answer is written in slices. Records without a
 * position are counted in `omitted`. With `withLine`, a record with a line is drawn as it, with
 * its `bbox`; one without a line keeps its point.
 */
export function* featureCollectionSteps(
  operation: ListOperation,
  records: readonly ListRecord[],
  locale: string,
  terms: CollectionTerms | null,
  withLine = false,
): Steps<Buffer> {
  const features: string[] = [];
  for (const record of records) {
    const feature = featureOf(operation, record, locale, withLine);
    if (feature.geometry !== null) features.push(JSON.stringify(feature));
    yield;
  }
  const { list } = operation.area;
  const total = records.length;
  const omitted = total - features.length;
  const members: Omit<GeojsonFeatureCollection, 'type' | 'features'> =
    terms === null ? { area: list, locale, total, omitted } : { area: list, locale, license: terms.license, attribution: terms.attribution, total, omitted };
  // The object's own members after `features`, as JSON.stringify of the whole would order them.
  const rest = JSON.stringify(members).slice(1);
  return Buffer.from(`{"type":"FeatureCollection","features":[${features.join(',')}],${rest}`);
}

/** The Feature of one record, with its line when it has one; its geometry null when it has neither line nor position. */
export function recordFeatureOf(operation: RecordOperation, record: ListRecord, locale: string): GeojsonRecordFeature {
  const feature: GeojsonRecordFeature = { ...featureOf(operation, record, locale, true), area: operation.area.list, locale };
  const credit = creditOf(record);
  if (credit !== null) Object.assign(feature, { license: credit.license, attribution: credit.attribution });
  return feature;
}

function featureOf(operation: ListOperation | RecordOperation, record: ListRecord, locale: string, withLine: boolean): RecordFeature {
  const { area, position } = operation;
  const id = record.id as string | number;
  const properties = { id, title: record[area.titleField] ?? null, area: area.list, ...area.label(record), query: operation.recordUrl(id, locale) };
  const line = withLine && area.line ? (record[area.line.geometry] as TourGeometry | null) : null;
  if (line !== null && area.line) {
    const bbox = record[area.line.bounds] as [number, number, number, number] | null;
    return { type: 'Feature', id, ...(bbox === null ? {} : { bbox }), geometry: line, properties };
  }
  const lng = position === null ? null : coordinateOf(record[position.lng], 180);
  const lat = position === null ? null : coordinateOf(record[position.lat], 90);
  const geometry = lng === null || lat === null ? null : { type: 'Point' as const, coordinates: [lng, lat] as [number, number] };
  return { type: 'Feature', id, geometry, properties };
}

/** A coordinate in degrees within ±`bound`, from a number or the text an upstream sent; null when there is none. */
function coordinateOf(value: unknown, bound: number): number | null {
  if (value === null || value === undefined || value === '') return null;
  const degrees = Number(value);
  return Number.isFinite(degrees) && Math.abs(degrees) <= bound ? degrees : null;
}
