import { describe, expect, it } from 'vitest';
import { distance } from 'geokdbush';
import { createGeoIndex, type GeoHit, type GeoIndex } from '../../server/geoIndex.ts';

type Point = { lng: number; lat: number } | null;

/** Great-circle distance in km on a sphere of radius 6371 km (haversine), written out independently. */
function haversineKm(a: { lng: number; lat: number }, b: { lng: number; lat: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** Every point within radiusKm, sorted by distance then position, the slow obvious way. */
function bruteForce(points: Point[], centre: { lng: number; lat: number }, radiusKm: number, keep: (position: number) => boolean = () => true): GeoHit[] {
  const hits: GeoHit[] = [];
  points.forEach((point, position) => {
    if (point === null || !keep(position)) return;
    const distanceKm = haversineKm(centre, point);
    if (distanceKm <= radiusKm) hits.push({ position, distanceKm });
  });
  return hits.sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
}

function expectSameHits(actual: GeoHit[], expected: GeoHit[]): void {
  expect(actual.map((hit) => hit.position)).toEqual(expected.map((hit) => hit.position));
  actual.forEach((hit, i) => expect(hit.distanceKm).toBeCloseTo(expected[i]!.distanceKm, 9));
}

/**
 * Checks nearest() for several maxResults against the expected hits (all of them, in order)
 * and against count() and around(), which it replaces.
 */
function expectNearest(index: GeoIndex, centre: { lng: number; lat: number }, radiusKm: number, keep: ((position: number) => boolean) | undefined, expected: GeoHit[]): void {
  for (const maxResults of [0, 1, 5, expected.length, expected.length + 5, 1500]) {
    const label = `${centre.lng} ${centre.lat} ${radiusKm} km, ${maxResults} results${keep ? ', predicate' : ''}`;
    const { total, hits } = index.nearest(centre.lng, centre.lat, radiusKm, keep, maxResults);
    expect(total, label).toBe(expected.length);
    expectSameHits(hits, expected.slice(0, maxResults));
    expect({ total, hits }, label).toEqual({
      total: index.count(centre.lng, centre.lat, radiusKm, keep),
      hits: index.around(centre.lng, centre.lat, radiusKm, keep, maxResults),
    });
  }
}

/** The point `km` from a location in the direction `bearingDeg` (clockwise from north), on the 6371 km sphere. */
function destination(from: { lng: number; lat: number }, km: number, bearingDeg: number): { lng: number; lat: number } {
  const rad = Math.PI / 180;
  const angle = km / 6371;
  const bearing = bearingDeg * rad;
  const lat1 = from.lat * rad;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(angle) + Math.cos(lat1) * Math.sin(angle) * Math.cos(bearing));
  const dLng = Math.atan2(Math.sin(bearing) * Math.sin(angle) * Math.cos(lat1), Math.cos(angle) - Math.sin(lat1) * Math.sin(lat2));
  return { lng: from.lng + dLng / rad, lat: lat2 / rad };
}

// Seeded points across Switzerland (lng 5.96–10.49, lat 45.82–47.81), one in twelve missing.
let seed = 20240601;
function random(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
}
const swissPoints: Point[] = Array.from({ length: 400 }, () =>
  random() < 1 / 12 ? null : { lng: 5.96 + random() * 4.53, lat: 45.82 + random() * 1.99 },
);
const swiss = createGeoIndex(swissPoints);

const centres = {
  Bern: { lng: 7.4474, lat: 46.948 },
  Zürich: { lng: 8.5417, lat: 47.3769 },
  Zermatt: { lng: 7.7491, lat: 46.0207 },
  Genève: { lng: 6.1432, lat: 46.2044 },
  Scuol: { lng: 10.2986, lat: 46.7964 },
};

describe('createGeoIndex', () => {
  describe('around', () => {
    it('returns the same hits as a brute-force haversine sort', () => {
      for (const [name, centre] of Object.entries(centres)) {
        for (const radiusKm of [5, 20, 50, 150, 1000]) {
          const expected = bruteForce(swissPoints, centre, radiusKm);
          expectSameHits(swiss.around(centre.lng, centre.lat, radiusKm), expected);
          expect(swiss.count(centre.lng, centre.lat, radiusKm), `${name} ${radiusKm} km`).toBe(expected.length);
        }
      }
      expect(bruteForce(swissPoints, centres.Bern, 50).length).toBeGreaterThan(20);
    });

    it('returns the nearest hits first when cut to a maximum', () => {
      for (const centre of Object.values(centres)) {
        const all = swiss.around(centre.lng, centre.lat, 100);
        for (const maxResults of [1, 7, 20, all.length, all.length + 5]) {
          expect(swiss.around(centre.lng, centre.lat, 100, undefined, maxResults)).toEqual(all.slice(0, maxResults));
        }
        expect(swiss.around(centre.lng, centre.lat, 100, undefined, 0)).toEqual([]);
      }
    });

    it('applies the predicate to positions, with and without a maximum', () => {
      const even = (position: number) => position % 2 === 0;
      for (const centre of Object.values(centres)) {
        const expected = bruteForce(swissPoints, centre, 80, even);
        expectSameHits(swiss.around(centre.lng, centre.lat, 80, even), expected);
        expectSameHits(swiss.around(centre.lng, centre.lat, 80, even, 5), expected.slice(0, 5));
        expect(swiss.count(centre.lng, centre.lat, 80, even)).toBe(expected.length);
      }
    });

    it('never returns a point without coordinates and keeps positions of the input array', () => {
      const points: Point[] = [null, { lng: 7.45, lat: 46.95 }, null, { lng: 7.46, lat: 46.95 }, null];
      const index = createGeoIndex(points);
      expect(index.around(7.45, 46.95, 1000).map((hit) => hit.position)).toEqual([1, 3]);
      expect(index.count(7.45, 46.95, 1000)).toBe(2);
      for (const hit of swiss.around(centres.Bern.lng, centres.Bern.lat, 1000)) {
        expect(swissPoints[hit.position]).not.toBeNull();
      }
    });

    it('includes a point exactly on the radius and leaves out one just beyond it', () => {
      const centre = centres.Bern;
      const points: Point[] = [{ lng: 7.9, lat: 47.2 }, { lng: 7.2, lat: 46.5 }];
      const index = createGeoIndex(points);
      const edgeKm = distance(centre.lng, centre.lat, 7.9, 47.2);
      expect(index.around(centre.lng, centre.lat, edgeKm)).toEqual([{ position: 0, distanceKm: edgeKm }]);
      expect(index.count(centre.lng, centre.lat, edgeKm)).toBe(1);
      const justShort = edgeKm * (1 - 1e-12);
      expect(index.around(centre.lng, centre.lat, justShort)).toEqual([]);
      expect(index.count(centre.lng, centre.lat, justShort)).toBe(0);
    });

    it('orders points at the same distance by position, also across a cut', () => {
      // 60 records share one trailhead; a cut at 5 must keep the five lowest positions.
      const points: Point[] = Array.from({ length: 80 }, (_, i) => (i % 4 === 3 ? { lng: 8.0, lat: 46.5 } : { lng: 8.0 + (i % 4) * 1e-3, lat: 46.5 }));
      const index = createGeoIndex(points);
      const same = points.flatMap((point, position) => (point!.lng === 8.0 ? [position] : []));
      expect(same).toHaveLength(40);
      const hits = index.around(8.0, 46.5, 10);
      expect(hits.slice(0, 40).map((hit) => hit.position)).toEqual(same);
      expect(hits.slice(0, 40).every((hit) => hit.distanceKm === 0)).toBe(true);
      expect(index.around(8.0, 46.5, 10, undefined, 5).map((hit) => hit.position)).toEqual(same.slice(0, 5));
      expectSameHits(hits, bruteForce(points, { lng: 8.0, lat: 46.5 }, 10));
    });

    it('gives distances in kilometres', () => {
      const index = createGeoIndex([{ lng: 8.5417, lat: 47.3769 }]);
      // Bern to Zürich is about 95 km as the crow flies.
      const [hit] = index.around(centres.Bern.lng, centres.Bern.lat, 200);
      expect(hit!.distanceKm).toBeGreaterThan(94);
      expect(hit!.distanceKm).toBeLessThan(96);
    });
  });

  describe('count', () => {
    it('counts across the antimeridian and around a pole', () => {
      const points: Point[] = [
        { lng: 179.9, lat: 0 },
        { lng: -179.9, lat: 0 },
        { lng: 179.0, lat: 0 },
        { lng: 0, lat: 89.9 },
        { lng: 180, lat: 89.5 },
        { lng: -90, lat: 89.95 },
      ];
      const index = createGeoIndex(points);
      for (const [lng, lat, radiusKm] of [[-179.95, 0, 30], [179.95, 0, 150], [0, 89.8, 80], [90, 89.99, 20]] as const) {
        const expected = bruteForce(points, { lng, lat }, radiusKm);
        expect(index.count(lng, lat, radiusKm), `${lng} ${lat} ${radiusKm}`).toBe(expected.length);
        expectSameHits(index.around(lng, lat, radiusKm), expected);
      }
      expect(index.count(-179.95, 0, 30)).toBe(2);
      expect(index.count(0, 89.8, 80)).toBe(3);
    });
  });

  describe('nearest', () => {
    it('counts and returns the same hits as a brute-force haversine sort, with and without a predicate', () => {
      const even = (position: number) => position % 2 === 0;
      for (const centre of Object.values(centres)) {
        for (const radiusKm of [5, 20, 50, 150, 1000]) {
          expectNearest(swiss, centre, radiusKm, undefined, bruteForce(swissPoints, centre, radiusKm));
          expectNearest(swiss, centre, radiusKm, even, bruteForce(swissPoints, centre, radiusKm, even));
        }
      }
      expect(bruteForce(swissPoints, centres.Bern, 50, even).length).toBeGreaterThan(5);
    });

    it('orders points at the same place by position, also across a cut', () => {
      // 40 of 80 records share one trailhead, the others lie 76 and 153 m east of it.
      const points: Point[] = Array.from({ length: 80 }, (_, i) => ({ lng: 8.0 + (i % 4 === 3 ? 0 : (i % 4) * 1e-3), lat: 46.5 }));
      const centre = { lng: 8.0, lat: 46.5 };
      const index = createGeoIndex(points);
      const odd = (position: number) => position % 2 === 1;
      expectNearest(index, centre, 10, undefined, bruteForce(points, centre, 10));
      expectNearest(index, centre, 10, odd, bruteForce(points, centre, 10, odd));
      for (const maxResults of [39, 40, 41]) {
        const { hits } = index.nearest(centre.lng, centre.lat, 10, undefined, maxResults);
        expect(hits.map((hit) => hit.position)).toEqual(bruteForce(points, centre, 10).slice(0, maxResults).map((hit) => hit.position));
      }
    });

    it('orders points at one distance in many directions by the kilometres it returns, then by position', () => {
      // The distances differ in their last bits only, in an order unrelated to their dot
      // products; a cut anywhere must keep the points that sort first by kilometres.
      const centre = centres.Bern;
      const points: Point[] = Array.from({ length: 360 }, (_, i) => destination(centre, 10, (i * 137) % 360));
      const index = createGeoIndex(points);
      const byKilometres = points
        .map((point, position) => ({ position, distanceKm: distance(centre.lng, centre.lat, point!.lng, point!.lat) }))
        .sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
      expect(new Set(byKilometres.map((hit) => hit.distanceKm)).size).toBeGreaterThan(10);
      for (let maxResults = 0; maxResults <= points.length; maxResults++) {
        expect(index.nearest(centre.lng, centre.lat, 20, undefined, maxResults)).toEqual({ total: 360, hits: byKilometres.slice(0, maxResults) });
      }
      const third = (position: number) => position % 3 === 0;
      expectNearest(index, centre, 20, third, byKilometres.filter((hit) => third(hit.position)));
    });

    it('includes a point exactly on the radius and leaves out one just beyond it', () => {
      const centre = centres.Bern;
      const index = createGeoIndex([{ lng: 7.9, lat: 47.2 }, { lng: 7.2, lat: 46.5 }]);
      const edgeKm = distance(centre.lng, centre.lat, 7.9, 47.2);
      expect(index.nearest(centre.lng, centre.lat, edgeKm, undefined, 5)).toEqual({ total: 1, hits: [{ position: 0, distanceKm: edgeKm }] });
      expect(index.nearest(centre.lng, centre.lat, edgeKm * (1 - 1e-12), undefined, 5)).toEqual({ total: 0, hits: [] });
    });

    it('counts and finds across the antimeridian and around a pole', () => {
      const points: Point[] = [
        { lng: 179.9, lat: 0 },
        { lng: -179.9, lat: 0 },
        { lng: 179.0, lat: 0 },
        { lng: 0, lat: 89.9 },
        { lng: 180, lat: 89.5 },
        { lng: -90, lat: 89.95 },
        { lng: -179.9, lat: 0 },
      ];
      const index = createGeoIndex(points);
      for (const [lng, lat, radiusKm] of [[-179.95, 0, 30], [179.95, 0, 150], [0, 89.8, 80], [90, 89.99, 20], [0, 0, 20015]] as const) {
        expectNearest(index, { lng, lat }, radiusKm, undefined, bruteForce(points, { lng, lat }, radiusKm));
      }
      expect(index.nearest(-179.95, 0, 30, undefined, 2)).toMatchObject({ total: 3, hits: [{ position: 1 }, { position: 6 }] });
    });
  });

  describe('building', () => {
    it('answers nothing for no points', () => {
      for (const index of [createGeoIndex([]), createGeoIndex([null, null])]) {
        expect(index.around(7.45, 46.95, 50)).toEqual([]);
        expect(index.count(7.45, 46.95, 50)).toBe(0);
        expect(index.nearest(7.45, 46.95, 50, undefined, 20)).toEqual({ total: 0, hits: [] });
      }
    });

    it('refuses coordinates that are not numbers or out of range', () => {
      expect(() => createGeoIndex([{ lng: 7.45, lat: 46.95 }, { lng: Number.NaN, lat: 46 }])).toThrow(
        new RangeError('point 1 has lng NaN, lat 46; expected lng in [-180, 180] and lat in [-90, 90]'),
      );
      expect(() => createGeoIndex([{ lng: 7.45, lat: 91 }])).toThrow(RangeError);
      expect(() => createGeoIndex([{ lng: 180.5, lat: 46 }])).toThrow(RangeError);
      expect(() => createGeoIndex([{ lng: Infinity, lat: 46 }])).toThrow(RangeError);
    });
  });
});
