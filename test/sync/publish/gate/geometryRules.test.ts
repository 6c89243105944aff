import { describe, expect, it } from 'vitest';
import { judgeLine, judgeLines, MAX_FAILED_LINE_SHARE, stepKm } from '../../../../sync/publish/gate/geometryRules.ts';
import type { Position, TourGeometry } from '../../../../sync/format.ts';
import { haversineKm } from '../../../helpers/haversine.ts';

/** A line due north from Bern, `km` long in `steps` steps. */
function north(km: number, steps: number): TourGeometry {
  return { type: 'LineString', coordinates: Array.from({ length: steps + 1 }, (_, i) => [7.44, 46.95 + (km / 111.195) * (i / steps), 540 + i] as Position) };
}

describe('judgeLine', () => {
  it('passes a line in Switzerland whose length is near its tour\'s distance, as it came', () => {
    const line = north(10, 50);
    expect(judgeLine(line, 10)).toEqual({ line, simplified: false });
    // A tour that states no distance is not held to a length.
    expect(judgeLine(line, null)).toEqual({ line, simplified: false });
  });

  it('leaves out a line far shorter or longer than its tour', () => {
    expect(judgeLine(north(10, 50), 25)).toEqual({ rule: 'geometry-length', reason: '10.0 km long for a tour of 25 km, expected 0.5–2 times its distance' });
    expect(judgeLine(north(10, 50), 4)).toMatchObject({ rule: 'geometry-length' });
  });

  it('leaves out a line holding a number that is not finite', () => {
    const line = north(1, 5);
    (line.coordinates[2] as number[])[2] = Infinity;
    expect(judgeLine(line, 1)).toEqual({ rule: 'geometry-finite', reason: 'line 0, position 2: Infinity is not a finite number' });
  });

  it('measures steps as the server does', () => {
    expect(stepKm([7.44, 46.95], [8.54, 47.37])).toBeCloseTo(haversineKm(7.44, 46.95, 8.54, 47.37), 6);
  });
});

describe('judgeLines', () => {
  it('judges only the lines of the tours to publish, and refuses past the failed share', () => {
    const good = north(5, 20);
    const input = { lines: { a: good, b: north(5, 20), gone: good }, fetched: 2, kept: 1, failed: [{ id: 'c', rule: 'geometry-fetch' }] };
    const distances = new Map<string, number | null>([['a', 5], ['b', 50], ['c', 5]]);
    const judged = judgeLines(input, distances);
    expect(Object.keys(judged.lines)).toEqual(['a']);
    expect(judged.report).toEqual({ fetched: 2, kept: 1, failed: 2, rejected: { 'geometry-fetch': 1, 'geometry-length': 1 }, simplified: 0, published: 1 });
    expect(judged.failedShare).toBeCloseTo(2 / 3);
    expect(judged.refuse).toBe(judged.failedShare > MAX_FAILED_LINE_SHARE);
    expect(judgeLines({ lines: {}, fetched: 0, kept: 0, failed: [] }, distances)).toMatchObject({ failedShare: 0, refuse: false });
  });
});
