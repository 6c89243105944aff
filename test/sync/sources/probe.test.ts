import { describe, expect, it } from 'vitest';
import { compareFields, fieldPaths } from '../../../sync/sources/probe.ts';

describe('fieldPaths', () => {
  it('lists every branch and leaf, list items as []', () => {
    expect([...fieldPaths({ a: 1, b: { c: [{ d: 1 }, { e: null }] } })].sort()).toEqual(['a', 'b', 'b.c', 'b.c[].d', 'b.c[].e']);
  });
});

describe('compareFields', () => {
  it('reports the topmost unknown path of a branch and what no record has', () => {
    const records = [{ id: 1, name: 'x', extra: { deep: { deeper: 1 } } }, { id: 2, geo: { lat: 1, alt: 2 } }];
    expect(compareFields(records, ['id', 'name', 'geo', 'geo.lat', 'url'])).toEqual({
      unexpectedFields: ['extra', 'geo.alt'],
      missingFields: ['url'],
    });
  });

  it('treats what lies under a known leaf as read', () => {
    expect(compareFields([{ raw: { anything: [1] } }], ['raw'])).toEqual({ unexpectedFields: [], missingFields: [] });
  });
});
