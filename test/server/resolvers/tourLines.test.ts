/**
 * Tour.geometry, bounds, elevationProfile and tours(bboxMatch:) through real HTTP, over the
 * committed fixture snapshot: each checked against the snapshot's geometry file read here, with
 * reference computations written out independently of the code they check, on the first
 * execution (graphql-js) and the later ones (graphql-jit) alike.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Position, TourGeometry } from '../../../sync/format.ts';
import { readArea, readLines, startTestApi, type GraphQLResponse, type TestApi } from '../../helpers/api.ts';
import { haversineKm } from '../../helpers/haversine.ts';

let api: TestApi;
let lines: Record<string, TourGeometry>;
const tours = readArea('en-CH', 'tours');

beforeAll(async () => {
  api = await startTestApi();
  lines = readLines();
});

afterAll(async () => {
  await api.close();
});

function parts(geometry: TourGeometry): Position[][] {
  return geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates;
}

/** The same query three times: graphql-js answers the first, graphql-jit the others; every answer must be the same. */
async function querySteadily(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  const first = await api.query(query, variables);
  for (let again = 0; again < 2; again++) expect(await api.query(query, variables)).toEqual(first);
  return first;
}

/** A tour with a line with altitudes, one with a line of several positions, and one without a line. */
function pickTours(): { withLine: string; withoutLine: string | undefined } {
  const withLine = tours.find((tour) => lines[tour.id] && parts(lines[tour.id]!).flat().length > 10 && parts(lines[tour.id]!).flat().every((p) => p.length === 3));
  expect(withLine, 'the fixture has a tour with a line with altitudes').toBeDefined();
  return { withLine: withLine!.id, withoutLine: tours.find((tour) => !lines[tour.id])?.id };
}

describe('Tour line fields', () => {
  it('answers the snapshot line, its bounds and a profile resampled evenly from start to end', async () => {
    const { withLine } = pickTours();
    const line = lines[withLine]!;
    const answer = await querySteadily('query($id: String!) { tour(id: $id, locale: "en-CH") { geometry bounds elevationProfile(samples: 7) { distanceKm altitudeM } } }', { id: withLine });
    expect(answer.errors).toBeUndefined();
    const tour = answer.data!.tour as { geometry: TourGeometry; bounds: number[]; elevationProfile: { distanceKm: number; altitudeM: number }[] };
    expect(tour.geometry).toEqual(line);

    const positions = parts(line).flat();
    const lngs = positions.map((p) => p[0]);
    const lats = positions.map((p) => p[1]);
    expect(tour.bounds).toEqual([Math.min(...lngs), Math.min(...lats), Math.max(...lngs), Math.max(...lats)]);

    let length = 0;
    for (const part of parts(line)) for (let at = 1; at < part.length; at++) length += haversineKm(part[at - 1]![0], part[at - 1]![1], part[at]![0], part[at]![1]);
    const profile = tour.elevationProfile;
    expect(profile).toHaveLength(7);
    profile.forEach((sample, at) => expect(sample.distanceKm).toBeCloseTo((length * at) / 6, 2));
    expect(profile[0]!.altitudeM).toBeCloseTo(positions[0]![2]!, 1);
    expect(profile[6]!.altitudeM).toBeCloseTo(positions.at(-1)![2]!, 1);
    const altitudes = positions.map((p) => p[2]!);
    for (const sample of profile) {
      expect(sample.altitudeM).toBeGreaterThanOrEqual(Math.min(...altitudes) - 0.05);
      expect(sample.altitudeM).toBeLessThanOrEqual(Math.max(...altitudes) + 0.05);
    }
  });

  it('answers the same line in every locale, and 100 samples by default', async () => {
    const { withLine } = pickTours();
    const answer = await api.query('query($id: String!) { de: tour(id: $id) { geometry elevationProfile { altitudeM } } fr: tour(id: $id, locale: "fr-CH") { geometry } }', { id: withLine });
    expect(answer.errors).toBeUndefined();
    const data = answer.data as { de: { geometry: unknown; elevationProfile: unknown[] }; fr: { geometry: unknown } };
    expect(data.fr.geometry).toEqual(data.de.geometry);
    expect(data.de.elevationProfile).toHaveLength(100);
  });

  it('answers null for a tour without a line', async () => {
    const { withoutLine } = pickTours();
    if (withoutLine === undefined) return;
    const answer = await querySteadily('query($id: String!) { tour(id: $id) { id geometry bounds elevationProfile { distanceKm } } }', { id: withoutLine });
    expect(answer).toEqual({ data: { tour: { id: withoutLine, geometry: null, bounds: null, elevationProfile: null } } });
  });

  it('refuses samples out of range, naming the range', async () => {
    const { withLine } = pickTours();
    for (const samples of [1, 1001]) {
      const answer = await api.query('query($id: String!, $samples: Int) { tour(id: $id) { elevationProfile(samples: $samples) { distanceKm } } }', { id: withLine, samples });
      expect(answer.errors).toEqual([
        expect.objectContaining({ message: `samples: ${samples} is out of range; allowed: 2 to 1000`, extensions: { code: 'BAD_USER_INPUT' }, path: ['tour', 'elevationProfile'] }),
      ]);
    }
  });

  it('counts the samples asked for in the cost of a list of profiles', async () => {
    const answer = await api.query('{ tours(limit: 500) { data { elevationProfile(samples: 1000) { distanceKm altitudeM } } } }');
    expect(answer.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });
});

/** Whether segments ab and cd share a point: by the signs of orientations, collinear overlaps included. */
function segmentsMeet(a: Position, b: Position, c: Position, d: Position): boolean {
  const orient = (p: Position, q: Position, r: Position) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const onSegment = (p: Position, q: Position, r: Position) =>
    Math.min(p[0], r[0]) <= q[0] && q[0] <= Math.max(p[0], r[0]) && Math.min(p[1], r[1]) <= q[1] && q[1] <= Math.max(p[1], r[1]);
  const [o1, o2, o3, o4] = [orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)];
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSegment(a, c, b)) || (o2 === 0 && onSegment(a, d, b)) || (o3 === 0 && onSegment(c, a, d)) || (o4 === 0 && onSegment(c, b, d));
}

/** The reference LINE match: a position inside the box, or a segment meeting one of its edges; a tour without a line by its start. */
function matchesLine(id: string, start: [number | null, number | null], [west, south, east, north]: number[]): boolean {
  const inside = (p: Position) => p[0] >= west! && p[0] <= east! && p[1] >= south! && p[1] <= north!;
  const line = lines[id];
  if (!line) return start[0] !== null && start[1] !== null && inside([start[0], start[1]]);
  const corners: Position[] = [[west!, south!], [east!, south!], [east!, north!], [west!, north!]];
  return parts(line).some(
    (part) => part.some(inside) || part.slice(1).some((b, at) => corners.some((c, edge) => segmentsMeet(part[at]!, b, c, corners[(edge + 1) % 4]!))),
  );
}

describe('tours(bboxMatch:)', () => {
  const boxes = [
    [7.6, 45.9, 7.9, 46.1],
    [7.9, 46.5, 8.2, 46.7],
    [8.8, 46.3, 9.9, 46.9],
    [6.8, 46.4, 7.2, 46.6],
  ];

  it('START answers exactly what bbox alone answers', async () => {
    for (const bbox of boxes) {
      const alone = await api.query('query($bbox: [Float!]) { tours(bbox: $bbox, limit: 500, locale: "en-CH") { total data { id } } }', { bbox });
      const start = await api.query('query($bbox: [Float!]) { tours(bbox: $bbox, bboxMatch: START, limit: 500, locale: "en-CH") { total data { id } } }', { bbox });
      expect(start).toEqual(alone);
    }
  });

  it('LINE answers the tours whose line meets the box, by a reference test of segments against its edges', async () => {
    let differs = false;
    for (const bbox of boxes) {
      const found: string[] = [];
      let total = 0;
      for (let offset = 0; offset === 0 || offset < total; offset += 500) {
        const answer = await querySteadily('query($bbox: [Float!], $offset: Int) { tours(bbox: $bbox, bboxMatch: LINE, limit: 500, offset: $offset, locale: "en-CH") { total data { id } } }', { bbox, offset });
        expect(answer.errors).toBeUndefined();
        const page = answer.data!.tours as { total: number; data: { id: string }[] };
        total = page.total;
        found.push(...page.data.map((tour) => tour.id));
      }
      const expected = tours.filter((tour) => matchesLine(tour.id, [tour.longitude, tour.latitude], bbox)).map((tour) => tour.id).sort();
      expect(found.sort()).toEqual(expected);
      expect(total).toBe(expected.length);
      const starts = tours.filter((tour) => tour.longitude !== null && tour.latitude !== null && tour.longitude >= bbox[0]! && tour.longitude <= bbox[2]! && tour.latitude >= bbox[1]! && tour.latitude <= bbox[3]!);
      if (starts.length !== expected.length) differs = true;
    }
    // The boxes were chosen so that some line leaves its box or enters it from outside.
    expect(differs).toBe(true);
  });

  it('LINE combines with the other filters and counts facets over the same matches', async () => {
    const bbox = boxes[2]!;
    const answer = await api.query(
      'query($bbox: [Float!]) { tours(bbox: $bbox, bboxMatch: LINE, routeType: "hike", limit: 500, locale: "en-CH") { total data { id } facets(fields: [ROUTE_TYPE]) { field values { value count } } } }',
      { bbox },
    );
    expect(answer.errors).toBeUndefined();
    const result = answer.data!.tours as { total: number; facets: { values: { value: string; count: number }[] }[] };
    const expected = tours.filter((tour) => tour.routeType === 'hike' && matchesLine(tour.id, [tour.longitude, tour.latitude], bbox));
    expect(result.total).toBe(expected.length);
    expect(result.facets[0]!.values.find((value) => value.value === 'hike')!.count).toBe(expected.length);
  });
});

describe('the answer-size limit and tours\' lines', () => {
  let small: TestApi;

  beforeAll(async () => {
    // Large enough for every tour's id, too small for every tour's line.
    small = await startTestApi({ MAX_RESPONSE_BYTES: '200000' });
  });

  afterAll(async () => {
    await small.close();
  });

  it('refuses a page of lines by its estimate, before building it, and answers the same page without them', async () => {
    const ids = await small.query('{ tours(limit: 500) { data { id bounds } } }');
    expect(ids.errors).toBeUndefined();
    const withLines = await small.query('{ tours(limit: 500) { data { id geometry } } }');
    expect(withLines.errors).toEqual([expect.objectContaining({ extensions: { code: 'RESPONSE_TOO_LARGE' } })]);
    expect(withLines.errors![0]!.message).toMatch(/^The answer would be about [\d,]+ bytes, more than the limit of 200,000 bytes/);
  });

  it('counts a profile as the samples asked for', async () => {
    const { withLine } = pickTours();
    const few = await small.query('query($id: String!) { tour(id: $id) { elevationProfile(samples: 10) { distanceKm altitudeM } } }', { id: withLine });
    expect(few.errors).toBeUndefined();
    const many = await small.query('{ tours(limit: 100) { data { elevationProfile(samples: 1000) { distanceKm altitudeM } } } }');
    expect(many.errors?.[0]?.extensions?.code).toMatch(/^(RESPONSE_TOO_LARGE|QUERY_TOO_COMPLEX)$/);
  });
});
