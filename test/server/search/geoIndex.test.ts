import { describe, expect, it } from 'vitest';
import { distance } from 'geokdbush';
import { firstPositions, positionSetOf, type Intersection, type PositionSet } from '../../../server/search/positionSet.ts';
import { createGeoIndex, type GeoHit, type GeoIndex, type LngLatBox } from '../../../server/search/geoIndex.ts';
import { EARTH_RADIUS_KM, haversineKm } from '../../helpers/haversine.ts';

type Point = { lng: number; lat: number } | null;

/** Every point within radiusKm, sorted by distance then position, the slow obvious way. */
function bruteForce(points: Point[], centre: { lng: number; lat: number }, radiusKm: number, keep: (position: number) => boolean = () => true): GeoHit[] {
  const hits: GeoHit[] = [];
  points.forEach((point, position) => {
    if (point === null || !keep(position)) return;
    const distanceKm = haversineKm(centre.lng, centre.lat, point.lng, point.lat);
    if (distanceKm <= radiusKm) hits.push({ position, distanceKm });
  });
  return hits.sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
}

/** The positions whose point lies in a box, edges included, testing every point. */
function positionsIn(points: Point[], box: LngLatBox): number[] {
  const inside = (point: Point) => point !== null && point.lng >= box.minLng && point.lng <= box.maxLng && point.lat >= box.minLat && point.lat <= box.maxLat;
  return points.flatMap((point, position) => (inside(point) ? [position] : []));
}

/** The positions of a set, ascending. */
function positionsOf(set: PositionSet): number[] {
  return firstPositions([set], Infinity);
}

/** The same positions in the same order, at distances within 1e-9 km of the expected ones (one assertion, not one per hit). */
function expectSameHits(actual: GeoHit[], expected: GeoHit[], label?: string): void {
  expect(actual.map((hit) => hit.position), label).toEqual(expected.map((hit) => hit.position));
  const worst = actual.reduce((max, hit, i) => Math.max(max, Math.abs(hit.distanceKm - expected[i]!.distanceKm)), 0);
  expect(worst, label).toBeLessThan(1e-9);
}

/** Two answers of nearest() as one string each, so that thousands of hits compare at once. */
function answerKey({ total, hits }: { total: number; hits: GeoHit[] }): string {
  return `${total}: ${hits.map((hit) => `${hit.position}@${hit.distanceKm}`).join(' ')}`;
}

/**
 * Checks nearest() for several maxResults, 0 and more than there are among them, against the
 * expected hits (all of them, in order): the total is always all of them, the hits their start.
 */
function expectNearest(index: GeoIndex, centre: { lng: number; lat: number }, radiusKm: number, filter: Intersection | null, expected: GeoHit[]): void {
  for (const maxResults of [0, 1, 5, expected.length, expected.length + 5, 1500]) {
    const label = `${centre.lng} ${centre.lat} ${radiusKm} km, ${maxResults} results${filter ? `, ${filter.length} filter sets` : ''}`;
    const { total, hits } = index.nearest(centre.lng, centre.lat, radiusKm, filter, maxResults);
    expect(total, label).toBe(expected.length);
    expectSameHits(hits, expected.slice(0, maxResults), label);
  }
}

/** The filter of the positions below `size` that `keep` keeps, as the filter index gives it (one set). */
function filterOf(size: number, keep: (position: number) => boolean): Intersection {
  return [positionSetOf(size, Array.from({ length: size }, (_, position) => position).filter(keep))];
}

/** The point `km` from a location in the direction `bearingDeg` (clockwise from north), on the sphere of {@link EARTH_RADIUS_KM}. */
function destination(from: { lng: number; lat: number }, km: number, bearingDeg: number): { lng: number; lat: number } {
  const rad = Math.PI / 180;
  const angle = km / EARTH_RADIUS_KM;
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
/** Another seeded generator of numbers in [0, 1), for tests that make their own points. */
function seededRandom(start: number): () => number {
  let state = start;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
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
  describe('nearest', () => {
    it('counts and returns the same hits as a brute-force haversine sort, with and without a filter', () => {
      const even = (position: number) => position % 2 === 0;
      const notThird = (position: number) => position % 3 !== 0;
      for (const centre of Object.values(centres)) {
        for (const radiusKm of [5, 20, 50, 80, 100, 150, 1000]) {
          expectNearest(swiss, centre, radiusKm, null, bruteForce(swissPoints, centre, radiusKm));
          expectNearest(swiss, centre, radiusKm, filterOf(swissPoints.length, even), bruteForce(swissPoints, centre, radiusKm, even));
          // Two sets: the positions in both.
          const both = [...filterOf(swissPoints.length, even), ...filterOf(swissPoints.length, notThird)];
          expectNearest(swiss, centre, radiusKm, both, bruteForce(swissPoints, centre, radiusKm, (p) => even(p) && notThird(p)));
        }
      }
      expect(bruteForce(swissPoints, centres.Bern, 50).length).toBeGreaterThan(20);
      expect(bruteForce(swissPoints, centres.Bern, 50, even).length).toBeGreaterThan(5);
    });

    it('returns the nearest hits first when cut to a maximum, and none for a maximum of 0', () => {
      for (const centre of Object.values(centres)) {
        const all = bruteForce(swissPoints, centre, 100);
        expect(all.length).toBeGreaterThan(20);
        for (const maxResults of [1, 7, 20, all.length, all.length + 5]) {
          const { total, hits } = swiss.nearest(centre.lng, centre.lat, 100, null, maxResults);
          expect(total).toBe(all.length);
          expectSameHits(hits, all.slice(0, maxResults));
        }
        expect(swiss.nearest(centre.lng, centre.lat, 100, null, 0)).toEqual({ total: all.length, hits: [] });
      }
    });

    it('never returns a point without coordinates and keeps positions of the input array', () => {
      const points: Point[] = [null, { lng: 7.45, lat: 46.95 }, null, { lng: 7.46, lat: 46.95 }, null];
      const { total, hits } = createGeoIndex(points).nearest(7.45, 46.95, 1000, null, points.length);
      expect(total).toBe(2);
      expect(hits.map((hit) => hit.position)).toEqual([1, 3]);
      const swissHits = swiss.nearest(centres.Bern.lng, centres.Bern.lat, 1000, null, swissPoints.length).hits;
      expect(swissHits.length).toBeGreaterThan(300);
      for (const hit of swissHits) expect(swissPoints[hit.position]).not.toBeNull();
    });

    it('includes a point exactly on the radius and leaves out one just beyond it', () => {
      const centre = centres.Bern;
      const index = createGeoIndex([{ lng: 7.9, lat: 47.2 }, { lng: 7.2, lat: 46.5 }]);
      const edgeKm = distance(centre.lng, centre.lat, 7.9, 47.2);
      for (const maxResults of [0, 1, 5]) {
        expect(index.nearest(centre.lng, centre.lat, edgeKm, null, maxResults)).toEqual({ total: 1, hits: [{ position: 0, distanceKm: edgeKm }].slice(0, maxResults) });
        expect(index.nearest(centre.lng, centre.lat, edgeKm * (1 - 1e-12), null, maxResults)).toEqual({ total: 0, hits: [] });
      }
    });

    it('finds a point on the radius due north, due south and at the farthest longitudes east and west', () => {
      // These touch the box that the tree is searched in; a box any smaller leaves them out.
      for (const centre of [centres.Bern, { lng: 18.9553, lat: 69.6492 }, { lng: -68.3, lat: -54.8 }]) {
        for (const radiusKm of [0.5, 30, 700]) {
          const angle = radiusKm / EARTH_RADIUS_KM;
          const rad = Math.PI / 180;
          // Where the circle reaches farthest in longitude (a meridian touches it there).
          const lngSpan = Math.asin(Math.sin(angle) / Math.cos(centre.lat * rad)) / rad;
          const tangentLat = Math.asin(Math.sin(centre.lat * rad) / Math.cos(angle)) / rad;
          const points: Point[] = [
            destination(centre, radiusKm, 0),
            destination(centre, radiusKm, 180),
            { lng: centre.lng + lngSpan, lat: tangentLat },
            { lng: centre.lng - lngSpan, lat: tangentLat },
          ];
          points.forEach((point, position) => {
            const index = createGeoIndex(points.map((other) => (other === point ? point : null)));
            const edgeKm = distance(centre.lng, centre.lat, point!.lng, point!.lat);
            const label = `${centre.lng} ${centre.lat} ${radiusKm} km, point ${position}`;
            expect(edgeKm, label).toBeCloseTo(radiusKm, 6);
            expect(index.nearest(centre.lng, centre.lat, edgeKm, null, 1), label).toEqual({ total: 1, hits: [{ position, distanceKm: edgeKm }] });
          });
        }
      }
    });

    it('orders points at the same place by position, also across a cut', () => {
      // 40 of 80 records share one trailhead, the others lie 76 and 153 m east of it; a cut
      // at 5 must keep the five lowest positions at the trailhead.
      const points: Point[] = Array.from({ length: 80 }, (_, i) => ({ lng: 8.0 + (i % 4 === 3 ? 0 : (i % 4) * 1e-3), lat: 46.5 }));
      const centre = { lng: 8.0, lat: 46.5 };
      const index = createGeoIndex(points);
      const same = points.flatMap((point, position) => (point!.lng === 8.0 ? [position] : []));
      expect(same).toHaveLength(40);
      const { total, hits } = index.nearest(centre.lng, centre.lat, 10, null, points.length);
      expect(total).toBe(80);
      expect(hits.slice(0, 40).map((hit) => hit.position)).toEqual(same);
      expect(hits.slice(0, 40).every((hit) => hit.distanceKm === 0)).toBe(true);
      expect(index.nearest(centre.lng, centre.lat, 10, null, 5).hits.map((hit) => hit.position)).toEqual(same.slice(0, 5));
      const odd = (position: number) => position % 2 === 1;
      expectNearest(index, centre, 10, null, bruteForce(points, centre, 10));
      expectNearest(index, centre, 10, filterOf(points.length, odd), bruteForce(points, centre, 10, odd));
      for (const maxResults of [39, 40, 41]) {
        const cut = index.nearest(centre.lng, centre.lat, 10, null, maxResults).hits;
        expect(cut.map((hit) => hit.position)).toEqual(bruteForce(points, centre, 10).slice(0, maxResults).map((hit) => hit.position));
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
        expect(index.nearest(centre.lng, centre.lat, 20, null, maxResults)).toEqual({ total: 360, hits: byKilometres.slice(0, maxResults) });
      }
      const third = (position: number) => position % 3 === 0;
      expectNearest(index, centre, 20, filterOf(points.length, third), byKilometres.filter((hit) => third(hit.position)));
    });

    it('counts and finds across the antimeridian and around a pole', () => {
      const points: Point[] = [
        { lng: 179.9, lat: 0 },
        { lng: -179.9, lat: 0 },
        { lng: 179.0, lat: 0 },
        { lng: 0, lat: 89.9 },
        { lng: 180, lat: 89.5 },
        { lng: -90, lat: 89.95 },
      ];
      // The same again with a second point at one place beside the antimeridian.
      const twice: Point[] = [...points, { lng: -179.9, lat: 0 }];
      for (const set of [points, twice]) {
        const index = createGeoIndex(set);
        for (const [lng, lat, radiusKm] of [[-179.95, 0, 30], [179.95, 0, 150], [0, 89.8, 80], [90, 89.99, 20], [0, 0, 20015]] as const) {
          expectNearest(index, { lng, lat }, radiusKm, null, bruteForce(set, { lng, lat }, radiusKm));
        }
        expect(index.nearest(0, 89.8, 80, null, 0).total).toBe(3);
      }
      expect(createGeoIndex(points).nearest(-179.95, 0, 30, null, 5)).toMatchObject({ total: 2, hits: [{ position: 1 }, { position: 0 }] });
      expect(createGeoIndex(twice).nearest(-179.95, 0, 30, null, 2)).toMatchObject({ total: 3, hits: [{ position: 1 }, { position: 6 }] });
    });

    it('counts a dense cluster wholesale near its middle and its edges, with and without a filter, as a brute-force sort does', () => {
      // Thousands of points make a tree of many nodes, most of them well inside large radii.
      const next = seededRandom(7);
      const points: Point[] = [];
      for (let i = 0; i < 6000; i++) {
        if (next() < 0.05) points.push(null);
        else if (i > 0 && next() < 0.1) points.push(points[Math.floor(next() * i)]!);
        else points.push({ lng: 7.5 + next(), lat: 46.3 + 0.7 * next() });
      }
      const index = createGeoIndex(points);
      const everyOne = filterOf(points.length, () => true);
      // Runs of kept and left-out positions of every length, so that a node's slots hold both.
      const someOnly = (position: number) => position % 7 < 3 || position % 97 === 5;
      const filter = [...filterOf(points.length, someOnly), ...filterOf(points.length, (position) => position % 11 !== 4)];
      const both = (position: number) => someOnly(position) && position % 11 !== 4;
      for (const centre of [{ lng: 8, lat: 46.65 }, { lng: 7.5, lat: 46.3 }, { lng: 8.5, lat: 46.65 }, { lng: 8, lat: 47 }, { lng: 7.3, lat: 46.65 }]) {
        for (const radiusKm of [10, 30, 50, 80, 200]) {
          const expected = bruteForce(points, centre, radiusKm);
          for (const maxResults of [0, 20, expected.length]) {
            const label = `${centre.lng} ${centre.lat} ${radiusKm} km, ${maxResults} results`;
            const found = index.nearest(centre.lng, centre.lat, radiusKm, null, maxResults);
            expect(found.total, label).toBe(expected.length);
            expectSameHits(found.hits, expected.slice(0, maxResults), label);
            expect(answerKey(found), label).toBe(answerKey(index.nearest(centre.lng, centre.lat, radiusKm, everyOne, maxResults)));
          }
          expectNearest(index, centre, radiusKm, filter, bruteForce(points, centre, radiusKm, both));
        }
      }
      expect(bruteForce(points, { lng: 8, lat: 46.65 }, 50).length).toBeGreaterThan(5000);
    });

    it('counts every point of a dense cluster up to a radius that ends on one of them, and none beyond', () => {
      const next = seededRandom(11);
      const points: Point[] = Array.from({ length: 4000 }, () => ({ lng: 7.5 + next(), lat: 46.3 + 0.7 * next() }));
      const index = createGeoIndex(points);
      const centre = { lng: 8.05, lat: 46.62 };
      const byKilometres = points
        .map((point, position) => ({ position, distanceKm: distance(centre.lng, centre.lat, point!.lng, point!.lat) }))
        .sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
      for (let rank = 50; rank < points.length; rank += 97) {
        const edgeKm = byKilometres[rank]!.distanceKm;
        for (const radiusKm of [edgeKm, edgeKm * (1 + 1e-15), edgeKm * (1 - 1e-15), edgeKm * (1 - 1e-12)]) {
          const expected = byKilometres.filter((hit) => hit.distanceKm <= radiusKm);
          for (const maxResults of [0, 20, expected.length]) {
            const label = `${radiusKm} km, ${maxResults} results`;
            expect(answerKey(index.nearest(centre.lng, centre.lat, radiusKm, null, maxResults)), label).toBe(answerKey({ total: expected.length, hits: expected.slice(0, maxResults) }));
          }
        }
      }
    });

    it('leaves out points just beyond the radius when all of them lie on one circle', () => {
      // One node of points that are all as far from the centre as the radius, give or take the
      // last bits: no bound on the node as a whole can tell, the kilometre test must.
      const centre = centres.Bern;
      const points: Point[] = Array.from({ length: 60 }, (_, i) => destination(centre, 10, i * 6));
      const index = createGeoIndex(points);
      const kilometres = points.map((point) => distance(centre.lng, centre.lat, point!.lng, point!.lat));
      const nearestKm = Math.min(...kilometres);
      for (const radiusKm of [nearestKm * (1 - 1e-12), nearestKm * (1 - 1e-15), ...kilometres, Math.max(...kilometres)]) {
        const total = kilometres.filter((km) => km <= radiusKm).length;
        expect(index.nearest(centre.lng, centre.lat, radiusKm, null, 0), `${radiusKm} km`).toEqual({ total, hits: [] });
      }
      expect(index.nearest(centre.lng, centre.lat, nearestKm * (1 - 1e-12), null, 0).total).toBe(0);
    });

    it('counts nodes of points at one place that lies on the radius, however tight their bound', () => {
      // Hundreds of points at one place make nodes whose bound is that place alone: nothing but
      // the kilometre test may leave them out when the radius ends there.
      const centre = centres.Bern;
      const edge = destination(centre, 25, 40);
      const next = seededRandom(5);
      const points: Point[] = [...Array.from({ length: 400 }, () => edge), ...Array.from({ length: 400 }, () => ({ lng: 7 + next(), lat: 46.5 + 0.5 * next() }))];
      const index = createGeoIndex(points);
      const edgeKm = distance(centre.lng, centre.lat, edge.lng, edge.lat);
      const byKilometres = points
        .map((point, position) => ({ position, distanceKm: distance(centre.lng, centre.lat, point!.lng, point!.lat) }))
        .sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
      const kept = (position: number) => position % 3 !== 0;
      for (const radiusKm of [edgeKm, edgeKm * (1 - 1e-12)]) {
        const expected = byKilometres.filter((hit) => hit.distanceKm <= radiusKm);
        for (const maxResults of [0, 20, expected.length]) {
          expect(index.nearest(centre.lng, centre.lat, radiusKm, null, maxResults), `${radiusKm} km, ${maxResults} results`).toEqual({ total: expected.length, hits: expected.slice(0, maxResults) });
        }
        const inFilter = expected.filter((hit) => kept(hit.position));
        expect(index.nearest(centre.lng, centre.lat, radiusKm, filterOf(points.length, kept), 20), `${radiusKm} km, filtered`).toEqual({ total: inFilter.length, hits: inFilter.slice(0, 20) });
      }
      expect(index.nearest(centre.lng, centre.lat, edgeKm, null, 0).total).toBeGreaterThan(400);
    });

    it('agrees with a brute-force sort, with and without a filter, for random clusters, centres and radii', () => {
      const next = seededRandom(20240917);
      for (let trial = 0; trial < 120; trial++) {
        // Clusters anywhere, some across the antimeridian or around a pole, of up to 3000 points.
        const size = Math.floor(next() * 3000);
        const spreadDeg = 0.01 + next() * next() * 20;
        const middle = { lng: -180 + 360 * next(), lat: -89 + 178 * next() };
        const points: Point[] = Array.from({ length: size }, () => {
          if (next() < 0.03) return null;
          const lng = middle.lng + spreadDeg * (next() - 0.5);
          return { lng: lng > 180 ? lng - 360 : lng < -180 ? lng + 360 : lng, lat: Math.max(-90, Math.min(90, middle.lat + spreadDeg * (next() - 0.5))) };
        });
        const index = createGeoIndex(points);
        const everyOne = filterOf(points.length, () => true);
        const share = next();
        const kept = points.map(() => next() < share);
        const keep = (position: number) => kept[position]!;
        const centre = destination(middle, next() * spreadDeg * 80, next() * 360);
        centre.lng = ((centre.lng + 540) % 360) - 180;
        const radiusKm = Math.exp(next() * Math.log(3000));
        const expected = bruteForce(points, centre, radiusKm);
        for (const maxResults of [0, 1, 20, Math.floor(next() * expected.length), expected.length + 1]) {
          const label = `trial ${trial}: ${centre.lng} ${centre.lat} ${radiusKm} km, ${maxResults} results`;
          const found = index.nearest(centre.lng, centre.lat, radiusKm, null, maxResults);
          expect(found.total, label).toBe(expected.length);
          expect(found.hits.map((hit) => hit.position), label).toEqual(expected.slice(0, maxResults).map((hit) => hit.position));
          expect(answerKey(found), label).toBe(answerKey(index.nearest(centre.lng, centre.lat, radiusKm, everyOne, maxResults)));
        }
        expectNearest(index, centre, radiusKm, filterOf(points.length, keep), bruteForce(points, centre, radiusKm, keep));
      }
    });

    it('gives distances in kilometres', () => {
      const index = createGeoIndex([{ lng: 8.5417, lat: 47.3769 }]);
      // Bern to Zürich is about 95 km as the crow flies.
      const [hit] = index.nearest(centres.Bern.lng, centres.Bern.lat, 200, null, 1).hits;
      expect(hit!.distanceKm).toBeGreaterThan(94);
      expect(hit!.distanceKm).toBeLessThan(96);
    });
  });

  describe('within', () => {
    const onEdge = swissPoints.find((point) => point !== null)!;
    /** Boxes from a valley to the whole world, and one with a point on two of its edges. */
    const boxes: LngLatBox[] = [
      { minLng: 7.5, minLat: 46.4, maxLng: 8.1, maxLat: 46.8 },
      { minLng: 6.0, minLat: 46.0, maxLng: 7.3, maxLat: 47.0 },
      { minLng: 5.9, minLat: 45.8, maxLng: 10.5, maxLat: 47.9 },
      { minLng: -180, minLat: -90, maxLng: 180, maxLat: 90 },
      { minLng: 9.0, minLat: 46.0, maxLng: 9.01, maxLat: 46.01 },
      { minLng: onEdge.lng, minLat: onEdge.lat - 0.3, maxLng: onEdge.lng + 0.3, maxLat: onEdge.lat },
    ];

    it('finds the positions of the points in a box, as testing every point does', () => {
      for (const box of boxes) {
        const expected = positionsIn(swissPoints, box);
        expect(positionsOf(swiss.within(box)), JSON.stringify(box)).toEqual(expected);
      }
      expect(positionsIn(swissPoints, boxes[0]!).length).toBeGreaterThan(0);
      expect(positionsIn(swissPoints, boxes[5]!)).toContain(swissPoints.indexOf(onEdge));
      expect(positionsIn(swissPoints, boxes[2]!)).toHaveLength(swissPoints.filter((point) => point !== null).length);
    });

    it('cuts nearest() to the box: its total and hits are those of a brute-force sort of the points in it', () => {
      const even = (position: number) => position % 2 === 0;
      for (const centre of Object.values(centres)) {
        for (const radiusKm of [20, 100, 1000]) {
          for (const box of boxes) {
            const inBox = new Set(positionsIn(swissPoints, box));
            for (const maxResults of [0, 5, 1500]) {
              const label = `${JSON.stringify(box)} ${radiusKm} km, ${maxResults} results`;
              const expected = bruteForce(swissPoints, centre, radiusKm, (p) => inBox.has(p));
              const found = swiss.nearest(centre.lng, centre.lat, radiusKm, null, maxResults, box);
              expect(found.total, label).toBe(expected.length);
              expectSameHits(found.hits, expected.slice(0, maxResults), label);
              const filtered = bruteForce(swissPoints, centre, radiusKm, (p) => inBox.has(p) && even(p));
              const both = swiss.nearest(centre.lng, centre.lat, radiusKm, filterOf(swissPoints.length, even), maxResults, box);
              expect(both.total, label).toBe(filtered.length);
              expectSameHits(both.hits, filtered.slice(0, maxResults), label);
            }
          }
        }
      }
    });
  });

  describe('building', () => {
    it('answers nothing for no points', () => {
      for (const index of [createGeoIndex([]), createGeoIndex([null, null])]) {
        expect(index.nearest(7.45, 46.95, 50, null, 0)).toEqual({ total: 0, hits: [] });
        expect(index.nearest(7.45, 46.95, 50, null, 20)).toEqual({ total: 0, hits: [] });
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
