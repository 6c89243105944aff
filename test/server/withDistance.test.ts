import { describe, expect, it } from 'vitest';
import { compileWithDistance, COPY_OF, COPY_REPLACES } from '../../server/withDistance.ts';

describe('compileWithDistance', () => {
  const record = { id: 't1', name: 'Eiger Trail', 'odd-name': 'x', "quote'd \"field\"": 1, nested: { km: 2 }, distance_km: null as number | null };
  const fields = Object.keys(record);

  it('copies every field and sets the distance, leaving the record as it was', () => {
    const withDistance = compileWithDistance<typeof record>(fields, 'distance_km');
    const copy = withDistance(record, 3.25);
    expect(copy).toEqual({ ...record, distance_km: 3.25, [COPY_OF]: record, [COPY_REPLACES]: 'distance_km' });
    expect(Object.keys(copy)).toEqual(fields);
    expect(record.distance_km).toBeNull();
    // Nested values are shared, as the records are: nothing is deep-copied.
    expect(copy.nested).toBe(record.nested);
  });

  it('names the record it copied and the field it replaced, under symbols no answer sees', () => {
    const copy = compileWithDistance<typeof record>(fields, 'distance_km')(record, 1);
    expect((copy as Record<symbol, unknown>)[COPY_OF]).toBe(record);
    expect((copy as Record<symbol, unknown>)[COPY_REPLACES]).toBe('distance_km');
    expect(JSON.parse(JSON.stringify(copy))).toEqual({ ...record, distance_km: 1 });
  });

  it('adds the distance field when the records lack it', () => {
    const withDistance = compileWithDistance<Record<string, unknown>>(['id'], 'distance');
    const record = { id: 'a1' };
    expect(withDistance(record, 0)).toEqual({ id: 'a1', distance: 0, [COPY_OF]: record, [COPY_REPLACES]: 'distance' });
  });

  it('makes plain objects, never using the record as a prototype', () => {
    const copy = compileWithDistance<typeof record>(fields, 'distance_km')(record, 1);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.prototype.isPrototypeOf.call(record, copy)).toBe(false);
  });

  it('refuses a field named __proto__, which an object literal would read as the prototype', () => {
    expect(() => compileWithDistance(['id', '__proto__'], 'distance_km')).toThrow('a record field may not be named __proto__');
  });
});
