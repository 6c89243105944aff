import { describe, expect, it } from 'vitest';
import { compileWithDistance, nearItemRecord, nearItemReplaces } from '../../../server/snapshot/withDistance.ts';

describe('compileWithDistance', () => {
  type Fields = Record<string, unknown>;
  const record: Readonly<Fields> = Object.freeze({
    id: 't1',
    name: 'Eiger Trail',
    'odd-name': 'x',
    "quote'd \"field\"": 1,
    constructor: 'a field, not the class',
    nested: { km: 2 },
    distance_km: null,
  });
  const fields = Object.keys(record);

  it('reads as the record with the distance set, leaving the record as it was', () => {
    const item = compileWithDistance<Fields>(fields, 'distance_km')(record, 3.25);
    for (const field of fields) {
      expect(item[field], field).toBe(field === 'distance_km' ? 3.25 : record[field]);
    }
    expect(record.distance_km).toBeNull();
    // Nested values are shared, as the records are: nothing is deep-copied.
    expect(item.nested).toBe(record.nested);
  });

  it('serialises as the record with the distance, fields in the record order', () => {
    const item = compileWithDistance<Fields>(fields, 'distance_km')(record, 1);
    expect(JSON.stringify(item)).toBe(JSON.stringify({ ...record, distance_km: 1 }));
  });

  it('names the record it reads and the field it replaces, under symbols no answer sees', () => {
    const item = compileWithDistance<Fields>(fields, 'distance_km')(record, 1);
    expect(nearItemRecord(item)).toBe(record);
    expect(nearItemReplaces(item)).toBe('distance_km');
    expect(nearItemRecord(record)).toBeUndefined();
  });

  it('adds the distance field when the records lack it', () => {
    const withDistance = compileWithDistance<Fields>(['id'], 'distance');
    const plain = { id: 'a1' };
    const item = withDistance(plain, 0);
    expect([item.id, item.distance]).toEqual(['a1', 0]);
    expect(JSON.parse(JSON.stringify(item))).toEqual({ id: 'a1', distance: 0 });
  });

  it('gives the items of an area one prototype, never a record', () => {
    const withDistance = compileWithDistance<Fields>(fields, 'distance_km');
    const other = Object.freeze({ ...record, id: 't2' });
    const [a, b] = [withDistance(record, 1), withDistance(other, 2)];
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Object.getPrototypeOf(Object.getPrototypeOf(a))).toBe(Object.prototype);
    expect(Object.prototype.isPrototypeOf.call(record, a)).toBe(false);
    expect([a.id, b.id]).toEqual(['t1', 't2']);
  });

  it('refuses a field named __proto__ or toJSON, which the items need for themselves', () => {
    expect(() => compileWithDistance(['id', '__proto__'], 'distance_km')).toThrow('a record field may not be named __proto__');
    expect(() => compileWithDistance(['id', 'toJSON'], 'distance_km')).toThrow('a record field may not be named toJSON');
  });
});
