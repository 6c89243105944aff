import { describe, expect, it } from 'vitest';
import { distance } from 'geokdbush';
import { createGeoIndex, type GeoHit } from '../../server/geoIndex.ts';

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

  describe('building', () => {
    it('answers nothing for no points', () => {
      for (const index of [createGeoIndex([]), createGeoIndex([null, null])]) {
        expect(index.around(7.45, 46.95, 50)).toEqual([]);
        expect(index.count(7.45, 46.95, 50)).toBe(0);
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
