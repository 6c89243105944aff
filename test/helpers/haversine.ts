/**
 * The tests' reference great-circle distance, written out independently of the code it checks,
 * on the sphere geokdbush measures on (server/search/geoIndex.ts).
 */

/** Radius of the sphere, in kilometres: the mean Earth radius geokdbush uses. */
export const EARTH_RADIUS_KM = 6371;

/** Great-circle distance between two points (degrees, `lng, lat` order), in kilometres, by the haversine formula. */
export function haversineKm(lng1: number, lat1: number, lng2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
