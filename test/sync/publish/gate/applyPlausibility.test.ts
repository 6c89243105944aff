import { describe, expect, it } from 'vitest';
import type { AreaName } from '../../../../sync/format.ts';
import { applyPlausibility } from '../../../../sync/publish/gate/applyPlausibility.ts';
import { PLAUSIBILITY_RULES } from '../../../../sync/publish/gate/plausibilityRules.ts';
import { syncDay } from '../../../../sync/source.ts';

const context = { syncDay: '2026-11-28' };

/** A record holding one value at a dotted path. */
function recordWith(path: string, value: unknown): Record<string, unknown> {
  const record: Record<string, unknown> = { id: 'r1' };
  let at = record;
  const keys = path.split('.');
  for (const key of keys.slice(0, -1)) at = (at[key] = {}) as Record<string, unknown>;
  at[keys.at(-1)!] = value;
  return record;
}

const chf = (amount: string, currency = 'CHF') => ({ amount, currency, formatted: null });
const ticket = (adult: string | null, currency: string | null = 'CHF') => ({ adult, child: null, teenager: null, senior: null, currency });

/** Per area and rule: a path it checks, a plausible value and an implausible one. */
const CASES: [AreaName, string, string, unknown, unknown][] = [
  ['activities', 'coordinates-in-switzerland', 'lat', '46.8', '8.2'],
  ['activities', 'coordinates-in-switzerland', 'lng', '8.2', '46.8'],
  ['activities', 'price-in-chf', 'summary.startingPrice', chf('49.00'), chf('49.00', 'EUR')],
  ['activities', 'price-above-zero', 'summary.startingPrice', chf('49.00'), chf('0.00')],
  ['activities', 'price-below-ceiling', 'summary.startingPrice', chf('9999.00'), chf('50100.00')],
  ['activities', 'next-date-ahead', 'nextAvailableDate', '2026-11-28', '2020-03-01'],
  ['stations', 'coordinates-in-switzerland', 'latitude', 47.85, 8.2],
  ['stations', 'coordinates-in-switzerland', 'longitude', 10.55, 46.8],
  ['stations', 'altitude', 'info.altitude', 1497, 149_700],
  ['stations', 'snow-depth', 'snow.depthResort', 80, 8_000],
  ['stations', 'fresh-snow', 'snow.freshSnow', 0, 1_000],
  ['stations', 'slope-length', 'ski.slopesLength', 27_800, 27_800_000],
  ['stations', 'crosscountry-length', 'crosscountry.classicLength', 27_000, 27_000_000],
  ['stations', 'trail-length', 'hiking.snowshoeTrailsLength', 13_000, 13_000_000],
  ['stations', 'sledge-length', 'tobogganing.tracksLength', 10_000, 10_000_000],
  ['stations', 'temperature', 'weather.temperatureResort', -12, 263],
  ['stations', 'price-in-chf', 'prices.dayTicket', ticket('79.00'), ticket('79.00', 'EUR')],
  ['stations', 'price-above-zero', 'prices.weekTicket', ticket('420.00'), ticket('0.00')],
  ['stations', 'price-below-ceiling', 'prices.seasonTicket', ticket('1800.00'), ticket('180000.00')],
  ['tours', 'coordinates-in-switzerland', 'latitude', 46.2, 7.5],
  ['tours', 'coordinates-in-switzerland', 'longitude', 7.5, 46.2],
  ['tours', 'tour-distance', 'distance', 15.4, 4_500],
  ['tours', 'tour-duration', 'duration', 295, 17_700 * 60],
  ['tours', 'tour-climb', 'ascent', 780, 780_000],
  ['tours', 'tour-altitude', 'maxAltitude', 1_618, 161_800],
  ['attractions', 'coordinates-in-switzerland', 'latitude', 46.5, 7.1],
  ['attractions', 'coordinates-in-switzerland', 'longitude', 7.1, 46.5],
  ['stations', 'not-in-future', 'lastUpdate', '2026-11-30T07:45:00.000+01:00', '2031-11-28T07:45:00.000+01:00'],
  ['stations', 'not-in-future', 'snow.lastSnowfall', '2026-11-27', '2026-12-01'],
  ['tours', 'not-in-future', 'lastUpdated', '2026-11-28T23:10:00Z', '2031-01-02T00:00:00Z'],
  ['attractions', 'not-in-future', 'lastUpdated', '2024-05-01', '2031-05-01'],
];

describe('applyPlausibility', () => {
  it('has a case below for every rule of the table', () => {
    const covered = new Set(CASES.map(([area, rule]) => `${area} ${rule}`));
    const rules = Object.entries(PLAUSIBILITY_RULES).flatMap(([area, rules]) => rules.map((rule) => `${area} ${rule.rule}`));
    expect(rules.filter((rule) => !covered.has(rule))).toEqual([]);
  });

  for (const [area, ruleName, path, good, bad] of CASES) {
    const rule = PLAUSIBILITY_RULES[area].find((candidate) => candidate.rule === ruleName)!;

    it(`${area}: ${ruleName} keeps ${JSON.stringify(good)} in ${path}`, () => {
      const record = recordWith(path, good);
      expect(applyPlausibility(area, [record], context)).toEqual({ records: [record], rejected: [], cleared: {} });
    });

    it(`${area}: ${ruleName} ${rule.action === 'clear-field' ? 'clears' : 'rejects the record for'} ${JSON.stringify(bad)} in ${path}`, () => {
      const record = recordWith(path, bad);
      const result = applyPlausibility(area, [record], context);
      if (rule.action === 'reject-record') {
        expect(result).toEqual({ records: [], rejected: [{ id: 'r1', rule: ruleName }], cleared: {} });
      } else {
        expect(result.rejected).toEqual([]);
        expect(result.cleared).toEqual({ [ruleName]: 1 });
        expect(result.records).toEqual([recordWith(path, null)]);
      }
    });
  }

  it('clears both coordinates when either lies outside Switzerland, as a swap does', () => {
    const swapped = { id: 's1', name: 'Zermatt', latitude: 7.75, longitude: 46.02 };
    const result = applyPlausibility('stations', [swapped], context);
    expect(result.records).toEqual([{ id: 's1', name: 'Zermatt', latitude: null, longitude: null }]);
    expect(result.cleared).toEqual({ 'coordinates-in-switzerland': 1 });
    const half = applyPlausibility('stations', [{ id: 's2', latitude: 46.02, longitude: 46.02 }], context);
    expect(half.records).toEqual([{ id: 's2', latitude: null, longitude: null }]);
  });

  it('accepts points within the margin beyond the border and leaves absent values alone', () => {
    const records = [
      { id: 'a', latitude: 47.85, longitude: 5.9 },
      { id: 'b', latitude: null, longitude: null },
    ];
    expect(applyPlausibility('attractions', records, context).records).toEqual(records);
  });

  it('counts per rule over many records, and never mutates its input', () => {
    const records = [
      { id: 't1', distance: 12.4, duration: 270, ascent: 780_000 },
      { id: 't2', distance: 12_400, duration: 270, ascent: 780 },
      { id: 't3', distance: 8, duration: 150, ascent: 900_000 },
    ];
    const frozen = structuredClone(records);
    const result = applyPlausibility('tours', records, context);
    expect(result).toEqual({
      records: [
        { id: 't1', distance: 12.4, duration: 270, ascent: null },
        { id: 't3', distance: 8, duration: 150, ascent: null },
      ],
      rejected: [{ id: 't2', rule: 'tour-distance' }],
      cleared: { 'tour-climb': 2 },
    });
    expect(records).toEqual(frozen);
  });

  it('keeps the very same object when nothing is cleared', () => {
    const record = { id: 'x', latitude: 46.5, longitude: 7.1, raw: { big: true } };
    expect(applyPlausibility('attractions', [record], context).records[0]).toBe(record);
  });
});

describe('syncDay', () => {
  it('gives the calendar day in Zurich, which starts an hour or two before UTC’s', () => {
    expect(syncDay(new Date('2026-11-27T22:59:59Z'))).toBe('2026-11-27');
    expect(syncDay(new Date('2026-11-27T23:00:00Z'))).toBe('2026-11-28');
    expect(syncDay(new Date('2026-07-01T21:59:59Z'))).toBe('2026-07-01');
    expect(syncDay(new Date('2026-07-01T22:00:00Z'))).toBe('2026-07-02');
  });
});
