import { describe, expect, it } from 'vitest';
import { areaStatistics, median, medianPaths } from '../../../../sync/publish/gate/statistics.ts';

describe('areaStatistics', () => {
  it('gives the share of records in which each field path is filled, nested objects and lists included', () => {
    const records = [
      { id: '1', name: 'A', snow: { depthResort: 80, report: '' }, views: ['lake'], raw: { anything: 1 } },
      { id: '2', name: 'B', snow: { depthResort: null, report: 'Powder' }, views: [], raw: null },
      { id: '3', name: null, snow: null, views: [], raw: null },
      { id: '4', name: 'D', snow: { depthResort: 0, report: null }, views: ['alps'], raw: null },
    ];
    expect(areaStatistics('attractions', records).fillRates).toEqual({
      id: 1,
      name: 0.75,
      snow: 0.75,
      'snow.depthResort': 0.5,
      'snow.report': 0.25,
      views: 0.5,
    });
  });

  it('gives the median of each numeric field the plausibility table names, numeric text included', () => {
    const records = [
      { summary: { startingPrice: { amount: '49.00', currency: 'CHF' } } },
      { summary: { startingPrice: { amount: '120.00', currency: 'CHF' } } },
      { summary: { startingPrice: null } },
      { summary: { startingPrice: { amount: '80.50', currency: 'CHF' } } },
    ];
    expect(areaStatistics('activities', records)).toMatchObject({ count: 4, medians: { 'summary.startingPrice.amount': 80.5 } });
    expect(areaStatistics('activities', []).medians).toEqual({ 'summary.startingPrice.amount': null });
  });

  it('watches the tour figures whose units can change', () => {
    expect(medianPaths('tours')).toEqual(['distance', 'duration', 'ascent', 'descent', 'minAltitude', 'maxAltitude']);
    expect(medianPaths('routes')).toEqual([]);
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});
