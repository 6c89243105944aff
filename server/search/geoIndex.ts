/**
 * Near-me and map-view search over a fixed array of points, built once per locale and area: a
 * KDBush tree walked here, distances from geokdbush's haversine on a sphere of radius 6371 km
 * (https://github.com/mourner/geokdbush).
 */

import KDBush from 'kdbush';
import { distance } from 'geokdbush';
import { runSteps, type Steps } from '../util/timeSlice.ts';
import { countPositionsBetween, hasPosition, positionSetOf, wordCount, type Intersection, type PositionSet } from './positionSet.ts';

/** One point found near a location. */
export interface GeoHit {
  /** Index of the point in the array given to {@link createGeoIndex}. */
  position: number;
  /** Great-circle distance from the query location, in kilometres. */
  distanceKm: number;
}

/**
 * A box of longitudes and latitudes in degrees, edges included; `minLng <= maxLng`, so a box
 * never crosses the antimeridian.
 */
export interface LngLatBox {
  minLng: number;
  minLat: number;
  maxLng: number;
  maxLat: number;
}

/** A search over the points given to {@link createGeoIndex}. */
export interface GeoIndex {
  /**
   * The positions whose point lies in a box (edges included), found as KDBush's `range` finds
   * them, by a walk of its tree that takes a node lying wholly in the box without testing its points.
   * @returns a new set of positions of the array given to {@link createGeoIndex}, to intersect
   *   with the filter and text sets (positionSet.ts); the caller may keep or change it
   */
  within(box: LngLatBox): PositionSet;

  /**
   * Counts the points within `radiusKm` of a location (great-circle distance <= radiusKm)
   * and finds the nearest of them, in one pass.
   * @param lng longitude of the location, in degrees
   * @param lat latitude of the location, in degrees
   * @param radiusKm search radius in kilometres
   * @param filter counts and returns only the positions in it (filterIndex.ts); null for all.
   *   Its sets are translated into the tree's order once and remembered: they must not change.
   * @param maxResults returns at most this many hits (a whole number, may be 0), the nearest ones
   * @param box counts and returns only the points in it (edges included); null or absent for all
   * @returns `total`, the number of points found, and `hits`, the nearest `maxResults` of them
   *   by ascending distance, equal distances by ascending position
   */
  nearest(
    lng: number,
    lat: number,
    radiusKm: number,
    filter: Intersection | null,
    maxResults: number,
    box?: LngLatBox | null,
  ): { total: number; hits: GeoHit[] };
}

const EARTH_RADIUS_KM = 6371;
const DEGREES = 180 / Math.PI;
// The search box is worked out in degrees and the points tested in kilometres; the slack
// widens the box so that rounding never leaves out a point that the kilometre test keeps.
const SLACK = 1e-9;
// Dot products of unit vectors within this of the radius's cosine are too close to call
// in floating point (errors are near 1e-16); those points get the kilometre test.
const DOT_MARGIN = 1e-12;

// Where a kd-tree node's points lie for nearest() (TreeGeoIndex #place).
const WALK = 0;
const OUTSIDE = 1;
const INSIDE_BEYOND_REACH = 2;

/**
 * Builds the index.
 * @param points one entry per record, in degrees; null for a record without coordinates,
 *   which is never found.
 * @throws RangeError when a coordinate is not a finite number or lies outside
 *   [-180, 180] (longitude) or [-90, 90] (latitude).
 */
export function createGeoIndex(points: ReadonlyArray<{ lng: number; lat: number } | null>): GeoIndex {
  return runSteps(geoIndexSteps(points));
}

/** {@link createGeoIndex} as steps (server/util/timeSlice.ts): the same index, the same errors. */
export function* geoIndexSteps(points: ReadonlyArray<{ lng: number; lat: number } | null>): Steps<GeoIndex> {
  const located: number[] = [];
  for (const [position, point] of points.entries()) {
    if (point === null) continue;
    const { lng, lat } = point;
    if (!(Math.abs(lng) <= 180) || !(Math.abs(lat) <= 90)) {
      throw new RangeError(`point ${position} has lng ${lng}, lat ${lat}; expected lng in [-180, 180] and lat in [-90, 90]`);
    }
    located.push(position);
  }
  yield;
  const tree = new KDBush(located.length);
  for (const position of located) {
    const { lng, lat } = points[position]!;
    tree.add(lng, lat);
  }
  yield;
  tree.finish();
  yield;
  // nearest() walks KDBush's kd-sorted arrays itself, so it gets per-slot copies of what it
  // reads: the position and, so that a dot product tells inside from outside without
  // trigonometry, the unit vector.
  const slots = tree.ids.length;
  const slotPositions = new Int32Array(slots);
  const slotUnits = new Float64Array(3 * slots);
  for (let slot = 0; slot < slots; slot++) {
    slotPositions[slot] = located[tree.ids[slot]!]!;
    slotUnits.set(unitVector(tree.coords[2 * slot]!, tree.coords[2 * slot + 1]!), 3 * slot);
  }
  return new TreeGeoIndex(tree, points, slotPositions, slotUnits, ...(yield* describeNodes(tree, slotUnits)));
}

/**
 * For every node of the kd-tree, numbered 0 for the root and 2n + 1, 2n + 2 for the lower and
 * upper halves of node n: the box of its points in degrees (min lng, min lat, max lng, max lat),
 * and a cap on the unit sphere that holds them (centre x, y, z, and the cosine and sine of its
 * angular radius).
 */
function* describeNodes(tree: KDBush, slotUnits: Float64Array): Steps<[boxes: Float64Array, caps: Float64Array]> {
  const { coords, nodeSize } = tree;
  const slots = coords.length / 2;
  const nodes = nodeCount(slots, nodeSize);
  const boxes = new Float64Array(4 * nodes);
  const caps = new Float64Array(5 * nodes);
  // Node by node, a stack for the halves still to describe: node, left, right.
  const pending = slots > 0 ? [0, 0, slots - 1] : [];
  let since = 0;
  while (pending.length > 0) {
    const right = pending.pop()!;
    const left = pending.pop()!;
    const node = pending.pop()!;
    boxes.set(boundingBox(coords, left, right), 4 * node);
    caps.set(boundingCap(slotUnits, left, right), 5 * node);
    // Each node reads its slots twice: a step ends after about SLOTS_PER_STEP of them.
    since += right - left + 1;
    if (since >= SLOTS_PER_STEP) {
      since = 0;
      yield;
    }
    if (right - left <= nodeSize) continue;
    const middle = (left + right) >> 1;
    pending.push(2 * node + 1, left, middle - 1, 2 * node + 2, middle + 1, right);
  }
  return [boxes, caps];
}

/** Slots read per step by {@link describeNodes}. */
const SLOTS_PER_STEP = 16_384;

/** An upper bound on the number of nodes of a KDBush tree, as its `sort` splits them. */
function nodeCount(slots: number, nodeSize: number): number {
  // A node of `count` slots is split when count > nodeSize + 1, into halves of
  // floor((count - 1) / 2) and ceil((count - 1) / 2): the larger halves make the deepest branch.
  let levels = 1;
  for (let count = slots; count > nodeSize + 1; count = Math.ceil((count - 1) / 2)) levels++;
  return 2 ** levels - 1;
}

function boundingBox(coords: ArrayLike<number>, left: number, right: number): [minLng: number, minLat: number, maxLng: number, maxLat: number] {
  let minLng = Infinity;
  let minLat = Infinity;
  let maxLng = -Infinity;
  let maxLat = -Infinity;
  for (let slot = left; slot <= right; slot++) {
    minLng = Math.min(minLng, coords[2 * slot]!);
    maxLng = Math.max(maxLng, coords[2 * slot]!);
    minLat = Math.min(minLat, coords[2 * slot + 1]!);
    maxLat = Math.max(maxLat, coords[2 * slot + 1]!);
  }
  return [minLng, minLat, maxLng, maxLat];
}

/** A cap around the slots' unit vectors, centred on their mean direction. */
function boundingCap(units: Float64Array, left: number, right: number): [x: number, y: number, z: number, cosRadius: number, sinRadius: number] {
  let x = 0;
  let y = 0;
  let z = 0;
  for (let slot = left; slot <= right; slot++) {
    x += units[3 * slot]!;
    y += units[3 * slot + 1]!;
    z += units[3 * slot + 2]!;
  }
  const norm = Math.sqrt(x * x + y * y + z * z);
  // Points spread evenly around the sphere have no mean direction; any point will do as centre.
  if (norm === 0) [x, y, z] = [units[3 * left]!, units[3 * left + 1]!, units[3 * left + 2]!];
  else [x, y, z] = [x / norm, y / norm, z / norm];
  let minDot = 1;
  for (let slot = left; slot <= right; slot++) {
    minDot = Math.min(minDot, x * units[3 * slot]! + y * units[3 * slot + 1]! + z * units[3 * slot + 2]!);
  }
  // Less 1e-15 for the rounding of the dot products (near 1e-16), so that the radius is never short.
  const radius = Math.acos(Math.max(-1, minDot - 1e-15));
  return [x, y, z, Math.cos(radius), Math.sin(radius)];
}

/** A slot is an index into the kd-sorted arrays of the KDBush tree (`ids`, and `coords` by twos). */
class TreeGeoIndex implements GeoIndex {
  readonly #tree: KDBush;
  readonly #points: ReadonlyArray<{ lng: number; lat: number } | null>;
  /** Slot → position. */
  readonly #slotPositions: Int32Array;
  /** Slot → x, y, z of its point on the unit sphere. */
  readonly #slotUnits: Float64Array;
  /** Node → box of its points, see {@link describeNodes}. */
  readonly #nodeBoxes: Float64Array;
  /** Node → cap around its points, see {@link describeNodes}. */
  readonly #nodeCaps: Float64Array;
  /**
   * Filter set (of positions) → the same set as slots, made on first use. A filter index holds
   * one set per filter value, so this holds at most one twin of each. In slot order, the points
   * of a kd-tree node are one run of bits: a node inside the radius is counted a word at a time.
   */
  readonly #slotSets = new WeakMap<PositionSet, PositionSet>();
  /**
   * #walk's pending halves: left, right, axis and node each, at most one per level of a tree of
   * < 2^32 items. Kept, as a typed array of more than 64 bytes costs an allocation outside the
   * JS heap, and a walk runs to its end before the next.
   */
  readonly #stack = new Uint32Array(128);

  constructor(
    tree: KDBush,
    points: ReadonlyArray<{ lng: number; lat: number } | null>,
    slotPositions: Int32Array,
    slotUnits: Float64Array,
    nodeBoxes: Float64Array,
    nodeCaps: Float64Array,
  ) {
    this.#tree = tree;
    this.#points = points;
    this.#slotPositions = slotPositions;
    this.#slotUnits = slotUnits;
    this.#nodeBoxes = nodeBoxes;
    this.#nodeCaps = nodeCaps;
  }

  within({ minLng, minLat, maxLng, maxLat }: LngLatBox): PositionSet {
    const set = new Uint32Array(wordCount(this.#points.length));
    const positions = this.#slotPositions;
    const add = (slot: number): void => {
      const position = positions[slot]!;
      set[position >>> 5]! |= 1 << (position & 31);
    };
    // Rather than KDBush's own `range`, which returns every id found in a new array: a country's
    // box holds nearly all the points, and their nodes lie wholly in it.
    const take = (_node: number, first: number, last: number, inBox: boolean): boolean => {
      if (!inBox) return false;
      for (let slot = first; slot <= last; slot++) add(slot);
      return true;
    };
    this.#walk(minLng, minLat, maxLng, maxLat, minLng, minLat, null, add, take);
    return set;
  }

  nearest(
    lng: number,
    lat: number,
    radiusKm: number,
    filter: Intersection | null,
    maxResults: number,
    box: LngLatBox | null = null,
  ): { total: number; hits: GeoHit[] } {
    const units = this.#slotUnits;
    const positions = this.#slotPositions;
    const [qx, qy, qz] = unitVector(lng, lat);
    const cosRadius = Math.cos(Math.min(radiusKm / EARTH_RADIUS_KM, Math.PI));
    const latSpan = (radiusKm / EARTH_RADIUS_KM) * DEGREES * (1 + SLACK);
    const nearest = new NearestPositions(maxResults);
    const slotFilter = filter === null ? null : filter.map((set) => this.#inSlotOrder(set));
    let total = 0;
    const visit = (slot: number): void => {
      const dot = qx * units[3 * slot]! + qy * units[3 * slot + 1]! + qz * units[3 * slot + 2]!;
      if (dot < cosRadius - DOT_MARGIN) return;
      const position = positions[slot]!;
      if (dot <= cosRadius + DOT_MARGIN) {
        const point = this.#points[position]!;
        if (distance(lng, lat, point.lng, point.lat) > radiusKm) return;
      }
      total++;
      if (dot >= nearest.reach) nearest.offer(position, dot);
    };
    // A node well outside the radius has nothing to count or offer, though it may reach into
    // the box (a corner of it). One well inside and beyond the heap's reach would only be
    // counted point by point: its size is the count, or without looking at a point, its slots
    // in the filter; counted once its points all lie in the box, since a cap across the
    // antimeridian is walked as two boxes.
    const take = (node: number, first: number, last: number, inBox: boolean): boolean => {
      const place = this.#place(node, qx, qy, qz, cosRadius, nearest.reach);
      if (place === OUTSIDE) return true;
      if (place === WALK || !inBox) return false;
      total += slotFilter === null ? last - first + 1 : countPositionsBetween(slotFilter, first, last);
      return true;
    };
    // The walk's box is the radius's box cut to `box`: a point found is in both, and a node
    // counted whole (take's inBox) lies in both.
    const minLat = Math.max(lat - latSpan, box?.minLat ?? -Infinity);
    const maxLat = Math.min(lat + latSpan, box?.maxLat ?? Infinity);
    for (const [fromLng, toLng] of longitudeRanges(lng, lat, radiusKm)) {
      const minLng = Math.max(fromLng, box?.minLng ?? -Infinity);
      const maxLng = Math.min(toLng, box?.maxLng ?? Infinity);
      if (minLng <= maxLng && minLat <= maxLat) this.#walk(minLng, minLat, maxLng, maxLat, lng, lat, slotFilter, visit, take);
    }
    return { total, hits: this.#byDistance(lng, lat, nearest.candidates(), maxResults) };
  }

  /** `set`, a set of positions, as the set of their slots. */
  #inSlotOrder(set: PositionSet): PositionSet {
    let slots = this.#slotSets.get(set);
    if (slots === undefined) {
      const positions = this.#slotPositions;
      const kept: number[] = [];
      for (let slot = 0; slot < positions.length; slot++) if (hasPosition([set], positions[slot]!)) kept.push(slot);
      slots = positionSetOf(positions.length, kept);
      this.#slotSets.set(set, slots);
    }
    return slots;
  }

  /**
   * Where a node's points lie: OUTSIDE when all of them lie outside the cap of dot products
   * >= cosRadius, INSIDE_BEYOND_REACH when all lie inside it and none has a dot product large
   * enough to be offered to nearest()'s heap (>= reach), both clear of the margin where
   * nearest() asks for kilometres; WALK otherwise.
   */
  #place(node: number, qx: number, qy: number, qz: number, cosRadius: number, reach: number): number {
    const caps = this.#nodeCaps;
    const cx = caps[5 * node]!;
    const cy = caps[5 * node + 1]!;
    const cz = caps[5 * node + 2]!;
    const cosSpread = caps[5 * node + 3]!;
    const sinSpread = caps[5 * node + 4]!;
    // θ is the angle from the query to the node's cap centre, ρ (spread) the cap's radius: the
    // node's points lie between θ - ρ and θ + ρ from the query. Rounding errors, near 1e-16,
    // stay well inside the extra DOT_MARGIN.
    const cosTheta = qx * cx + qy * cy + qz * cz;
    const ax = qy * cz - qz * cy;
    const ay = qz * cx - qx * cz;
    const az = qx * cy - qy * cx;
    const sinTheta = Math.sqrt(ax * ax + ay * ay + az * az);
    // cos(θ - ρ) is the largest while θ >= ρ; otherwise a point may lie at the query itself.
    const maxDot = cosTheta <= cosSpread ? cosTheta * cosSpread + sinTheta * sinSpread : 1;
    if (maxDot < cosRadius - 2 * DOT_MARGIN) return OUTSIDE;
    // cos(θ + ρ) is the least dot product while θ + ρ <= π.
    if (cosTheta < 0 || cosSpread < 0 || cosTheta * cosSpread - sinTheta * sinSpread < cosRadius + 2 * DOT_MARGIN) return WALK;
    return maxDot < reach - DOT_MARGIN ? INSIDE_BEYOND_REACH : WALK;
  }

  /** Whether all points of a node lie in a box. */
  #nodeWithin(node: number, minLng: number, minLat: number, maxLng: number, maxLat: number): boolean {
    const boxes = this.#nodeBoxes;
    return boxes[4 * node]! >= minLng && boxes[4 * node + 1]! >= minLat && boxes[4 * node + 2]! <= maxLng && boxes[4 * node + 3]! <= maxLat;
  }

  /**
   * Calls `visit` with every slot in `filter` (slot sets; null for all) whose point lies in a
   * box, as KDBush's `range` finds them, but walks the half nearer to (towardsLng, towardsLat)
   * first, so that nearest() fills its heap with near points early and offers few of the rest.
   * Each node is first offered whole to `take` (node number, first and last slot, whether its
   * points all lie in the box), and skipped if it returns true.
   */
  #walk(
    minLng: number,
    minLat: number,
    maxLng: number,
    maxLat: number,
    towardsLng: number,
    towardsLat: number,
    filter: Intersection | null,
    visit: (slot: number) => void,
    take: (node: number, first: number, last: number, inBox: boolean) => boolean,
  ): void {
    const { coords, nodeSize } = this.#tree;
    if (coords.length === 0) return;
    const stack = this.#stack;
    let top = push(stack, 0, 0, coords.length / 2 - 1, 0, 0);
    while (top > 0) {
      const node = stack[--top]!;
      const axis = stack[--top]!;
      const right = stack[--top]!;
      const left = stack[--top]!;
      if (take(node, left, right, this.#nodeWithin(node, minLng, minLat, maxLng, maxLat))) continue;
      if (right - left <= nodeSize) {
        // A leaf's slots are a run: those in the filter are read off its words, 32 at a time.
        for (let word = left >>> 5; word <= right >>> 5; word++) {
          let bits = runBits(word, left, right);
          if (filter !== null) for (let s = 0; s < filter.length && bits !== 0; s++) bits &= filter[s]![word]!;
          // bits & -bits isolates the lowest bit still set; bits & (bits - 1) clears it.
          for (; bits !== 0; bits &= bits - 1) {
            const slot = (word << 5) | (31 - Math.clz32(bits & -bits));
            const lng = coords[2 * slot]!;
            const lat = coords[2 * slot + 1]!;
            if (lng >= minLng && lng <= maxLng && lat >= minLat && lat <= maxLat) visit(slot);
          }
        }
        continue;
      }
      const middle = (left + right) >> 1;
      const lng = coords[2 * middle]!;
      const lat = coords[2 * middle + 1]!;
      if (lng >= minLng && lng <= maxLng && lat >= minLat && lat <= maxLat && (filter === null || hasPosition(filter, middle))) visit(middle);
      const lower = axis === 0 ? minLng <= lng : minLat <= lat;
      const upper = axis === 0 ? maxLng >= lng : maxLat >= lat;
      // Pushed last, walked first.
      const towardsLower = axis === 0 ? towardsLng < lng : towardsLat < lat;
      if (upper && towardsLower) top = push(stack, top, middle + 1, right, 1 - axis, 2 * node + 2);
      if (lower) top = push(stack, top, left, middle - 1, 1 - axis, 2 * node + 1);
      if (upper && !towardsLower) top = push(stack, top, middle + 1, right, 1 - axis, 2 * node + 2);
    }
  }

  /**
   * The hits for `positions` by ascending distance, equal distances by ascending position,
   * cut to `maxResults`.
   */
  #byDistance(lng: number, lat: number, positions: number[], maxResults: number): GeoHit[] {
    const hits = positions.map((position) => {
      const point = this.#points[position]!;
      return { position, distanceKm: distance(lng, lat, point.lng, point.lat) };
    });
    hits.sort((a, b) => a.distanceKm - b.distanceKm || a.position - b.position);
    return hits.length > maxResults ? hits.slice(0, maxResults) : hits;
  }
}

/**
 * Keeps the `capacity` positions offered with the largest dot products (the nearest points)
 * in a binary heap whose root is the farthest one kept.
 *
 * Hits are ordered by haversine kilometres, then by position, and kilometres can order points
 * differently from dot products when their distances differ only in the last bits (one
 * distance in several directions, say). So a point dropped within DOT_MARGIN of the root may
 * still be among the nearest hits: it is kept aside as a close call for the final sort. Points
 * at one place are close calls too, so the heap need not break ties by position.
 */
class NearestPositions {
  readonly #capacity: number;
  readonly #positions: number[] = [];
  readonly #dots: number[] = [];
  /** Dropped positions and their dot products that were within DOT_MARGIN of the root then. */
  readonly #closeCalls: number[] = [];
  readonly #closeCallDots: number[] = [];

  /**
   * Points with a smaller dot product can neither enter the heap nor be close calls: the
   * root's minus DOT_MARGIN once the heap is full. Callers skip offering those, which soon
   * are nearly all.
   */
  reach: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.reach = capacity > 0 ? -Infinity : Infinity;
  }

  offer(position: number, dot: number): void {
    const positions = this.#positions;
    const dots = this.#dots;
    if (positions.length < this.#capacity) {
      positions.push(position);
      dots.push(dot);
      this.#siftUp(positions.length - 1);
      if (positions.length === this.#capacity) this.reach = dots[0]! - DOT_MARGIN;
      return;
    }
    if (dot <= dots[0]!) {
      this.#dropped(position, dot);
      return;
    }
    const farthest = positions[0]!;
    const farthestDot = dots[0]!;
    positions[0] = position;
    dots[0] = dot;
    this.#siftDown(0);
    this.reach = dots[0]! - DOT_MARGIN;
    this.#dropped(farthest, farthestDot);
  }

  /** The positions kept and those dropped too close to the farthest kept one to call, in no order. */
  candidates(): number[] {
    const candidates = this.#positions.slice();
    // `reach` only grows, so close calls dropped early may have fallen out of it since.
    this.#closeCalls.forEach((position, i) => {
      if (this.#closeCallDots[i]! >= this.reach) candidates.push(position);
    });
    return candidates;
  }

  #dropped(position: number, dot: number): void {
    if (dot < this.reach) return;
    this.#closeCalls.push(position);
    this.#closeCallDots.push(dot);
  }

  /** Whether entry i is farther than entry j. */
  #farther(i: number, j: number): boolean {
    return this.#dots[i]! < this.#dots[j]!;
  }

  #swap(i: number, j: number): void {
    const positions = this.#positions;
    const dots = this.#dots;
    const position = positions[i]!;
    const dot = dots[i]!;
    positions[i] = positions[j]!;
    dots[i] = dots[j]!;
    positions[j] = position;
    dots[j] = dot;
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#farther(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(i: number): void {
    const size = this.#positions.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) return;
      const child = left + 1 < size && this.#farther(left + 1, left) ? left + 1 : left;
      if (!this.#farther(child, i)) return;
      this.#swap(i, child);
      i = child;
    }
  }
}

/** The bits of 32-bit word `word` of a bitset that stand for slots `left` to `right`. */
function runBits(word: number, left: number, right: number): number {
  const from = Math.max(left - (word << 5), 0);
  const to = Math.min(right - (word << 5), 31);
  // Bits from..to: all of them shifted up by `from`, cut to the 32 - (31 - to) lowest.
  return ((0xffffffff << from) & (0xffffffff >>> (31 - to))) >>> 0;
}

function push(stack: Uint32Array, top: number, left: number, right: number, axis: number, node: number): number {
  stack[top] = left;
  stack[top + 1] = right;
  stack[top + 2] = axis;
  stack[top + 3] = node;
  return top + 4;
}

function unitVector(lng: number, lat: number): [x: number, y: number, z: number] {
  const phi = lat / DEGREES;
  const lambda = lng / DEGREES;
  return [Math.cos(phi) * Math.cos(lambda), Math.cos(phi) * Math.sin(lambda), Math.sin(phi)];
}

/**
 * The longitude intervals of the smallest box around a spherical cap, split in two when it
 * crosses the antimeridian; the whole circle of longitudes when the cap holds a pole.
 */
function longitudeRanges(lng: number, lat: number, radiusKm: number): Array<[number, number]> {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const latRadians = lat / DEGREES;
  if (Math.abs(latRadians) + angle >= Math.PI / 2) return [[-180, 180]];
  const lngSpan = Math.asin(Math.sin(angle) / Math.cos(latRadians)) * DEGREES * (1 + SLACK);
  const west = lng - lngSpan;
  const east = lng + lngSpan;
  if (west < -180) return [[west + 360, 180], [-180, east]];
  if (east > 180) return [[west, 180], [-180, east - 360]];
  return [[west, east]];
}

/**
 * The great-circle distance between two points given in degrees, in kilometres: the one the
 * near-me index measures with (geokdbush's haversine).
 */
export function distanceKm(lng1: number, lat1: number, lng2: number, lat2: number): number {
  return distance(lng1, lat1, lng2, lat2);
}
