/**
 * The outline of Switzerland the map page draws its points over, in place of base tiles: the
 * country's polygon from Natural Earth's 1:50m Admin 0 boundaries (public domain,
 * https://www.naturalearthdata.com/about/terms-of-use/), as the world-atlas package ships them
 * in TopoJSON (https://github.com/topojson/world-atlas, ISC), turned into GeoJSON by
 * topojson-client (https://github.com/topojson/topojson-client).
 */

import { merge } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { readPackageFile } from '../staticAssets.ts';

/** Switzerland's ISO 3166-1 numeric code, which world-atlas uses as the id of each country. */
const SWITZERLAND_ID = '756';

/** The world-atlas file the outline is taken from; `npm run build` copies it into dist/map/. */
export const OUTLINE_SOURCE_FILE = 'countries-50m.json';

/**
 * Reads Switzerland's outline, once, from world-atlas (in dist/map/ beside the bundle, else in
 * node_modules).
 * @returns a GeoJSON Feature whose geometry is the country's outline, a MultiPolygon
 * @throws Error when the file cannot be read or holds no Switzerland
 */
export function readSwissOutline(): GeoJSON.Feature {
  const topology = JSON.parse(readPackageFile('world-atlas', OUTLINE_SOURCE_FILE, 'map').toString('utf8')) as Topology<{ countries: GeometryCollection }>;
  // Only Switzerland's arcs are decoded, not the world's; merging its one polygon gives it as a MultiPolygon.
  const country = topology.objects.countries.geometries.find((geometry) => geometry.id === SWITZERLAND_ID);
  if (country?.type !== 'Polygon' && country?.type !== 'MultiPolygon') {
    throw new Error(`world-atlas ${OUTLINE_SOURCE_FILE}: expected a Polygon or MultiPolygon with id ${SWITZERLAND_ID} (Switzerland), found ${country?.type ?? 'none'}`);
  }
  return { type: 'Feature', id: SWITZERLAND_ID, properties: { name: 'Switzerland', source: 'Natural Earth 1:50m, via world-atlas' }, geometry: merge(topology, [country]) };
}
