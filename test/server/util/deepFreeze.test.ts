import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../server/util/deepFreeze.ts';

/** A record as JSON.parse makes it: every string and object new. */
const parse = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, any>;

const station = {
  id: 7,
  name: 'Ratzi',
  address: { place: 'Ratzi', zip: 6360 },
  snow: { depth: 23, report: '8 cm Neuschnee' },
  lifts: [{ kind: 'chairlift', open: true }, { kind: 'skilift', open: false }],
  raw: { snow: { depth: { unit: 'cm', content: 23 } }, texts: [{ lang: 'de', content: 'Neuschnee' }] },
};

describe('deepFreeze', () => {
  it('freezes every object and array of a record', () => {
    const record = deepFreeze(parse(station));
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.lifts)).toBe(true);
    expect(Object.isFrozen(record.lifts[1])).toBe(true);
    expect(Object.isFrozen(record.raw.snow.depth)).toBe(true);
    expect(() => {
      record.raw.snow.depth.content = 0;
    }).toThrow(TypeError);
  });

  it("takes its twin's objects and arrays where they are equal, and keeps its own record", () => {
    const twin = deepFreeze(parse(station));
    const record = deepFreeze(parse(station), twin);
    expect(record).not.toBe(twin);
    expect(record).toEqual(twin);
    expect(record.address).toBe(twin.address);
    expect(record.lifts).toBe(twin.lifts);
    expect(record.raw).toBe(twin.raw);
  });

  it('keeps its own object where one value differs, sharing what is equal inside it', () => {
    const twin = deepFreeze(parse(station));
    const record = deepFreeze(parse({ ...station, snow: { depth: 23, report: '8 cm fresh snow' }, lifts: [station.lifts[0], { kind: 'skilift', open: true }] }), twin);
    expect(record.snow).not.toBe(twin.snow);
    expect(record.snow).toEqual({ depth: 23, report: '8 cm fresh snow' });
    expect(record.lifts).not.toBe(twin.lifts);
    expect(record.lifts[0]).toBe(twin.lifts[0]);
    expect(record.lifts[1]).not.toBe(twin.lifts[1]);
    expect(record.lifts[1]).toEqual({ kind: 'skilift', open: true });
    expect(record.raw).toBe(twin.raw);
    expect(Object.isFrozen(record.snow)).toBe(true);
  });

  it('keeps its own object where the keys come in another order, so that its JSON keeps its order', () => {
    const twin = deepFreeze(parse(station));
    const record = deepFreeze(parse({ ...station, address: { zip: 6360, place: 'Ratzi' } }), twin);
    expect(record.address).not.toBe(twin.address);
    expect(JSON.stringify(record.address)).toBe('{"zip":6360,"place":"Ratzi"}');
  });

  it('keeps its own where the twin has more or fewer keys or items, or an array for an object', () => {
    const twin = deepFreeze(parse({ ...station, address: { ...station.address, phone: null }, lifts: [...station.lifts, { kind: 'babyLift', open: true }] }));
    const record = deepFreeze(parse({ ...station, raw: [station.raw] }), twin);
    expect(record.address).not.toBe(twin.address);
    expect(record.address).toEqual(station.address);
    expect(record.lifts).not.toBe(twin.lifts);
    expect(record.lifts).toEqual(station.lifts);
    expect(record.lifts[0]).toBe(twin.lifts[0]);
    expect(record.raw).toEqual([station.raw]);
    expect(Object.isFrozen(record.raw[0])).toBe(true);
  });
});
