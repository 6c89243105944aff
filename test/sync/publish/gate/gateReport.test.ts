import { describe, expect, it } from 'vitest';
import { formatGateReport, gateReport } from '../../../../sync/publish/gate/gateReport.ts';
import { judgeSource } from '../../../../sync/publish/gate/judgeSource.ts';
import type { AreaInput, SourceGateInput } from '../../../../sync/publish/gate/types.ts';

function tours(n: number, distance: (i: number) => number, abstract: (i: number) => string | null = () => 'A walk.') {
  return Array.from({ length: n }, (_, i) => ({ id: `t${i}`, name: `Tour ${i}`, distance: distance(i), latitude: 46.5, longitude: 7.5, abstract: abstract(i) }));
}

function area(records: object[], overrides: Partial<AreaInput> = {}): AreaInput {
  return { locale: 'de-CH', area: 'tours', records, rejected: [], cleared: {}, declared: records.length, received: records.length, unreadable: {}, ...overrides };
}

const previousInput: SourceGateInput = { source: 'tours', areas: [area(tours(200, (i) => 8 + (i % 5)))], previous: null, force: false };
const previous = judgeSource(previousInput).statistics;

/** Today: distances in metres, abstracts gone from most records, two records rejected, some coordinates cleared. */
const todayInput = (force: boolean): SourceGateInput => ({
  source: 'tours',
  areas: [
    area(tours(198, (i) => (8 + (i % 5)) * 1000, (i) => (i < 20 ? 'A walk.' : null)), {
      declared: 200,
      received: 200,
      rejected: [
        { id: 't7', rule: 'text-cap' },
        { id: 't9', rule: 'tour-duration' },
      ],
      cleared: { 'coordinates-in-switzerland': 3 },
    }),
    area(tours(199, (i) => 8 + (i % 5)), { locale: 'fr-CH', declared: null, received: 199 }),
  ],
  previous,
  force,
});

describe('gateReport', () => {
  it('reports per area records before → after, declared against received, rejections, clearings and what moved', () => {
    const input = todayInput(false);
    const report = gateReport(input, judgeSource(input));
    expect(report.outcome).toBe('refuse');
    expect(report.forced).toEqual([]);
    expect(report.refused.map((refusal) => refusal.rule)).toEqual(['field-drift', 'unit-change']);
    expect(report.areas).toEqual([
      {
        locale: 'de-CH',
        area: 'tours',
        before: 200,
        after: 198,
        declared: 200,
        received: 200,
        duplicates: { count: 0, differing: 0 },
        encoding: { repaired: 0, damaged: 0 },
        rejected: { 'text-cap': 1, 'tour-duration': 1 },
        cleared: { 'coordinates-in-switzerland': 3 },
        fillRatesMoved: [{ field: 'abstract', before: 1, now: 20 / 198 }],
        mediansMoved: [{ field: 'distance', before: 10, now: 10_000 }],
      },
      { locale: 'fr-CH', area: 'tours', before: null, after: 199, declared: null, received: 199, duplicates: { count: 0, differing: 0 }, encoding: { repaired: 0, damaged: 0 }, rejected: {}, cleared: {}, fillRatesMoved: [], mediansMoved: [] },
    ]);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('reports no moved fill rate or median against a previous version known only by its count', () => {
    const input: SourceGateInput = { ...todayInput(false), previous: { 'de-CH': { tours: { count: 200, fillRates: {}, medians: {} } } } };
    const [de] = gateReport(input, judgeSource(input)).areas;
    expect(de).toMatchObject({ before: 200, after: 198, fillRatesMoved: [], mediansMoved: [] });
  });

  it('says what was forced when --force overrides the gate', () => {
    const input = todayInput(true);
    const report = gateReport(input, judgeSource(input));
    expect(report.outcome).toBe('forced');
    expect(report.refused).toEqual([]);
    expect(report.forced.map((refusal) => refusal.rule)).toEqual(['field-drift', 'unit-change']);
  });
});

describe('formatGateReport', () => {
  it('prints each source with an aligned table of its areas, then what moved and why it was refused', () => {
    const input = todayInput(false);
    const healthy = { ...previousInput, source: 'attractions' as const, areas: [area([{ id: 'a1', name: 'Ballenberg', latitude: 46.75, longitude: 8.08, description: 'Open-air museum.' }], { area: 'attractions', declared: 1, received: 1 })] };
    expect(formatGateReport([gateReport(input, judgeSource(input)), gateReport(healthy, judgeSource(healthy))])).toMatchInlineSnapshot(`
      "tours: REFUSED, last good data stays (stale)
        locale  area   before  after  declared  received  rejected  cleared
        de-CH   tours     200    198       200       200         2        3
        fr-CH   tours       —    199         —       199         0        0
        de-CH tours rejected: text-cap 1, tour-duration 1
        de-CH tours cleared: coordinates-in-switzerland 3
        de-CH tours fill rate abstract: 100% → 10%
        de-CH tours median distance: 10 → 10000
        refused: tours de-CH tours: field-drift: abstract was filled in 100% of records and is now in 10.1% (drift when ≥ 60% before and ≤ 40% now); --force would publish abstract empty in 89.9% of records
        refused: tours de-CH tours: unit-change: the median of distance moved from 10 to 10000 (1000×, at most 10× allowed); --force would publish distance in what is likely another unit

      attractions: publishes
        locale  area         before  after  declared  received  rejected  cleared
        de-CH   attractions       —      1         1         1         0        0
      "
    `);
  });

  it('prints what was forced', () => {
    const input = todayInput(true);
    const text = formatGateReport([gateReport(input, judgeSource(input))]);
    expect(text.split('\n')[0]).toBe('tours: FORCED, publishes despite the gate');
    expect(text).toContain('\n  forced: tours de-CH tours: unit-change: the median of distance moved from 10 to 10000 (1000×, at most 10× allowed); --force would publish distance in what is likely another unit\n');
  });
});
