import { describe, expect, it } from 'vitest';
import type { Position, TourGeometry } from '../../../sync/format.ts';
import { distanceKm } from '../../../server/search/geoIndex.ts';
import { elevationProfile, lineBounds, lineCrossesBox, positionCount } from '../../../server/search/lineGeometry.ts';

const box = (minLng: number, minLat: number, maxLng: number, maxLat: number) => ({ minLng, minLat, maxLng, maxLat });
const line = (...coordinates: Position[]): TourGeometry => ({ type: 'LineString', coordinates });

describe('lineBounds', () => {
  it('answers [west, south, east, north] over every part of a MultiLineString, altitudes left out', () => {
    const geometry: TourGeometry = { type: 'MultiLineString', coordinates: [[[7.5, 46.1, 1200], [7.6, 46.3, 900]], [[7.4, 46.2, 3000]]] };
    expect(lineBounds(geometry)).toEqual([7.4, 46.1, 7.6, 46.3]);
    expect(positionCount(geometry)).toBe(3);
  });

  it('answers null for a line without positions', () => {
    expect(lineBounds(line())).toBeNull();
  });
});

describe('lineCrossesBox', () => {
  const view = box(8, 46, 9, 47);

  it('is true for a line with a position inside the box, or on its edge', () => {
    expect(lineCrossesBox(line([7, 45], [8.5, 46.5]), view)).toBe(true);
    expect(lineCrossesBox(line([9, 47], [10, 48]), view)).toBe(true);
  });

  it('is true for a segment crossing the box between two positions outside it', () => {
    expect(lineCrossesBox(line([7.5, 46.5], [9.5, 46.5]), view)).toBe(true);
    expect(lineCrossesBox(line([7.5, 45.5], [9.5, 47.5]), view)).toBe(true);
  });

  it('is false for a line passing beside the box, even when its bounds overlap the box', () => {
    // Bounds [7.5, 45.5, 9.5, 46.9] overlap the box; the segment cuts past its south-west corner.
    expect(lineCrossesBox(line([7.5, 46.4], [8.4, 45.5]), view)).toBe(false);
    expect(lineCrossesBox(line([7, 47.5], [9.5, 47.1]), view)).toBe(false);
  });

  it('checks a one-position part by its position', () => {
    expect(lineCrossesBox({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[8.2, 46.2]]] }, view)).toBe(true);
    expect(lineCrossesBox(line([10, 10]), view)).toBe(false);
  });

  it('agrees with a brute-force walk of points along each segment', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let round = 0; round < 300; round++) {
      const positions: Position[] = Array.from({ length: 3 }, () => [7 + random() * 3, 45 + random() * 3]);
      const geometry = line(...positions);
      let walked = false;
      for (let at = 1; at < positions.length && !walked; at++) {
        const [a, b] = [positions[at - 1]!, positions[at]!];
        for (let step = 0; step <= 2000; step++) {
          const t = step / 2000;
          const lng = a[0] + t * (b[0] - a[0]);
          const lat = a[1] + t * (b[1] - a[1]);
          if (lng >= 8 && lng <= 9 && lat >= 46 && lat <= 47) walked = true;
        }
      }
      // A segment grazing a corner can slip between two walked points; only a clear crossing must agree.
      if (walked) expect(lineCrossesBox(geometry, view)).toBe(true);
      if (!lineCrossesBox(geometry, view)) expect(walked).toBe(false);
    }
  });
});

describe('elevationProfile', () => {
  it('resamples evenly over the distance, interpolating the altitude between positions', () => {
    // Two segments of the same length along a meridian: 1000 m up, then 500 m down.
    const geometry = line([7, 46, 1000], [7, 46.01, 2000], [7, 46.02, 1500]);
    const total = distanceKm(7, 46, 7, 46.02);
    const profile = elevationProfile(geometry, 5)!;
    expect(profile.map((sample) => sample.altitudeM)).toEqual([1000, 1500, 2000, 1750, 1500]);
    expect(profile[0]!.distanceKm).toBe(0);
    expect(profile[4]!.distanceKm).toBeCloseTo(total, 3);
    expect(profile[2]!.distanceKm).toBeCloseTo(total / 2, 3);
  });

  it('answers as many samples as asked, fewer positions than samples or more', () => {
    const geometry = line([7, 46, 500], [7.01, 46, 600]);
    expect(elevationProfile(geometry, 2)).toHaveLength(2);
    expect(elevationProfile(geometry, 1000)).toHaveLength(1000);
    const many = line(...Array.from({ length: 5000 }, (_, at): Position => [7 + at / 10000, 46, at]));
    const profile = elevationProfile(many, 3)!;
    expect(profile.map((sample) => sample.altitudeM)).toEqual([0, 2499.5, 4999]);
  });

  it('does not count the gap between the parts of a MultiLineString', () => {
    const geometry: TourGeometry = { type: 'MultiLineString', coordinates: [[[7, 46, 100], [7, 46.01, 200]], [[8, 46, 300], [8, 46.01, 400]]] };
    const segment = distanceKm(7, 46, 7, 46.01);
    const profile = elevationProfile(geometry, 2)!;
    expect(profile[1]!.distanceKm).toBeCloseTo(2 * segment, 3);
    expect(profile[1]!.altitudeM).toBe(400);
  });

  it('passes over positions without an altitude, and answers null when none has one', () => {
    expect(elevationProfile(line([7, 46], [7, 46.01]), 10)).toBeNull();
    const profile = elevationProfile(line([7, 46, 1000], [7, 46.01], [7, 46.02, 2000]), 3)!;
    expect(profile.map((sample) => sample.altitudeM)).toEqual([1000, 1500, 2000]);
  });
});
