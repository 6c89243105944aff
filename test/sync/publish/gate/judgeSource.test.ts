import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { AreaName, Locale, Manifest, SourceName } from '../../../../sync/format.ts';
import { applyPlausibility } from '../../../../sync/publish/gate/applyPlausibility.ts';
import { judgeSource } from '../../../../sync/publish/gate/judgeSource.ts';
import { syncDay } from '../../../../sync/source.ts';
import { MAX_REJECTED_SHARE, MIN_KEPT_SHARE } from '../../../../sync/publish/gate/sourceRules.ts';
import type { AreaInput, SourceGateInput, SourceStatistics } from '../../../../sync/publish/gate/types.ts';
import { DATA_DIR } from '../../../helpers/api.ts';

/** `n` healthy tours: every key field filled, distances around 10 km. */
function tours(n: number, edit: (tour: Record<string, unknown>, i: number) => void = () => {}): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const tour: Record<string, unknown> = { id: `t${i}`, name: `Tour ${i}`, distance: 8 + (i % 5), latitude: 46.5, longitude: 7.5, abstract: 'A walk.' };
    edit(tour, i);
    return tour;
  });
}

function toursArea(overrides: Partial<AreaInput> = {}, locale: Locale = 'de-CH'): AreaInput {
  const records = overrides.records ?? tours(100);
  return { locale, area: 'tours', records, rejected: [], cleared: {}, declared: records.length, received: records.length, unreadable: {}, ...overrides };
}

function judge(areas: AreaInput[], previous: SourceStatistics | null = null, force = false) {
  return judgeSource({ source: 'tours', areas, previous, force });
}

/** The statistics a healthy run of `toursArea()` leaves, as the previous version's. */
const healthy = (): SourceStatistics => judge([toursArea()]).statistics;

const rules = (areas: AreaInput[], previous: SourceStatistics | null = null) => judge(areas, previous).refusals.map((refusal) => refusal.rule);

describe('judgeSource', () => {
  it('publishes a healthy source, first sync or not, with its statistics', () => {
    const first = judge([toursArea()]);
    expect(first).toMatchObject({ source: 'tours', outcome: 'publish', refusals: [] });
    expect(first.statistics['de-CH']?.tours).toMatchObject({ count: 100, medians: { distance: 10 } });
    expect(judge([toursArea()], healthy()).outcome).toBe('publish');
  });

  describe('completeness', () => {
    it('refuses an area that received well below its declared total, on a first sync too', () => {
      const verdict = judge([toursArea({ records: tours(50), declared: 201, received: 50 })]);
      expect(verdict.outcome).toBe('refuse');
      expect(verdict.refusals).toEqual([
        {
          source: 'tours',
          locale: 'de-CH',
          area: 'tours',
          rule: 'completeness',
          figures: { received: 50, declared: 201 },
          message: 'tours de-CH tours: completeness: received 50 of 201 declared (24.9%, at least 90% needed); --force would publish the 50 received as if complete',
        },
      ]);
    });

    it('accepts a small shortfall, and an upstream that declares nothing', () => {
      expect(rules([toursArea({ records: tours(95), declared: 100, received: 95 })])).toEqual([]);
      expect(rules([toursArea({ declared: null })])).toEqual([]);
    });
  });

  describe('unreadable-field', () => {
    const before = () => judge([toursArea({ unreadable: { 'snow.depthResort': 5, 'photo.url': 40 } })]).statistics;

    it('refuses a field that could not be read in many more records than before, naming it', () => {
      const verdict = judge([toursArea({ unreadable: { 'snow.depthResort': 100, 'photo.url': 40 } })], before());
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['unreadable-field', { field: 'snow.depthResort', unreadable: 100, received: 100, unreadableBefore: 0.05 }]]);
      expect(verdict.refusals[0]!.message).toContain('snow.depthResort could not be read in 100 of 100 records (100%, against 5% in the version served now');
    });

    it('accepts an optional field absent as often as before, a small rise, and any count on a first sync', () => {
      expect(rules([toursArea({ unreadable: { 'snow.depthResort': 12, 'photo.url': 45 } })], before())).toEqual([]);
      expect(rules([toursArea({ unreadable: { 'snow.depthResort': 100 } })])).toEqual([]);
    });

    it('keeps the share per field path in the statistics, for the next run', () => {
      expect(before()['de-CH']?.tours?.unreadableRates).toEqual({ 'photo.url': 0.4, 'snow.depthResort': 0.05 });
    });
  });

  it('holds fields to the floors when the previous version is known only by its record count', () => {
    const counted: SourceStatistics = { 'de-CH': { tours: { count: 100, fillRates: {}, medians: {} } } };
    expect(rules([toursArea({ records: tours(100, (tour) => (tour.name = null)) })], counted)).toEqual(['fill-floor']);
    expect(rules([toursArea({ records: tours(40) })], counted)).toEqual(['shrink']);
  });

  describe('field-drift', () => {
    it('refuses a field filled in most records before and empty in most now', () => {
      const verdict = judge([toursArea({ records: tours(100, (tour, i) => (tour.abstract = i < 30 ? 'A walk.' : null)) })], healthy());
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['field-drift', { field: 'abstract', filledBefore: 1, filledNow: 0.3 }]]);
      expect(verdict.refusals[0]!.message).toBe(
        'tours de-CH tours: field-drift: abstract was filled in 100% of records and is now in 30% (drift when ≥ 60% before and ≤ 40% now); --force would publish abstract empty in 70% of records',
      );
    });

    it('accepts a field that empties in some records only', () => {
      expect(rules([toursArea({ records: tours(100, (tour, i) => (tour.abstract = i < 50 ? 'A walk.' : null)) })], healthy())).toEqual([]);
    });
  });

  describe('fill-floor', () => {
    it('refuses a first sync whose key field is filled below its floor', () => {
      const verdict = judge([toursArea({ records: tours(100, (tour) => (tour.distance = null)) })]);
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['fill-floor', { field: 'distance', filledNow: 0, floor: 0.5 }]]);
    });

    it('does not hold a later sync to the floors, which compares with the previous version instead', () => {
      const previous = judge([toursArea({ records: tours(100, (tour) => (tour.distance = null)) })]).statistics;
      expect(rules([toursArea({ records: tours(100, (tour) => (tour.distance = null)) })], previous)).toEqual([]);
    });
  });

  describe('locale-missing', () => {
    it('refuses a locale with far fewer records than the others', () => {
      const verdict = judge([toursArea(), toursArea({ records: tours(20), declared: 20, received: 20 }, 'fr-CH')]);
      expect(verdict.refusals.map((r) => [r.locale, r.rule, r.figures])).toEqual([['fr-CH', 'locale-missing', { records: 20, largestLocale: 100 }]]);
    });

    it('accepts locales of similar size', () => {
      expect(rules([toursArea(), toursArea({ records: tours(90) }, 'fr-CH')])).toEqual([]);
    });
  });

  describe('unit-change', () => {
    it('refuses a median that moved more than tenfold, and accepts one that moved tenfold exactly', () => {
      const scaled = (factor: number) => toursArea({ records: tours(100, (tour, i) => (tour.distance = (8 + (i % 5)) * factor)) });
      expect(rules([scaled(11)], healthy())).toEqual(['unit-change']);
      expect(rules([scaled(1 / 11)], healthy())).toEqual(['unit-change']);
      expect(rules([scaled(10)], healthy())).toEqual([]);
    });

    it('names the field and both medians', () => {
      const verdict = judge([toursArea({ records: tours(100, (tour, i) => (tour.distance = (8 + (i % 5)) * 1000)) })], healthy());
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['unit-change', { field: 'distance', medianBefore: 10, medianNow: 10_000 }]]);
      expect(verdict.refusals[0]!.message).toContain('the median of distance moved from 10 to 10000 (1000×, at most 10× allowed)');
    });
  });

  describe('too-many-rejected', () => {
    it(`refuses more than ${MAX_REJECTED_SHARE * 100}% of received records rejected, counting per rule`, () => {
      const rejected = [...Array(3).fill({ id: null, rule: 'text-cap' }), { id: 'x', rule: 'tour-distance' }];
      const verdict = judge([toursArea({ records: tours(96), declared: 100, received: 100, rejected })]);
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['too-many-rejected', { rejected: 4, received: 100, byRule: 'text-cap 3, tour-distance 1' }]]);
    });

    it('accepts a few rejections', () => {
      expect(rules([toursArea({ records: tours(98), declared: 100, received: 100, rejected: [{ id: null, rule: 'text-cap' }, { id: null, rule: 'text-cap' }] })])).toEqual([]);
    });
  });

  describe('too-many-cleared', () => {
    it('refuses a plausibility rule that cleared a field in many records', () => {
      const verdict = judge([toursArea({ cleared: { 'coordinates-in-switzerland': 40 } })]);
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['too-many-cleared', { plausibilityRule: 'coordinates-in-switzerland', cleared: 40, records: 100 }]]);
    });

    it('accepts a few cleared values', () => {
      expect(rules([toursArea({ cleared: { 'coordinates-in-switzerland': 5 } })])).toEqual([]);
    });
  });

  describe('shrink', () => {
    it(`refuses an area that kept less than ${MIN_KEPT_SHARE * 100}% of the records it had`, () => {
      const verdict = judge([toursArea({ records: tours(40), declared: 40, received: 40 })], healthy());
      expect(verdict.refusals.map((r) => [r.rule, r.figures])).toEqual([['shrink', { records: 40, before: 100 }]]);
    });

    it('accepts a smaller loss', () => {
      expect(rules([toursArea({ records: tours(60), declared: 60, received: 60 })], healthy())).toEqual([]);
    });
  });

  it('with --force, publishes anyway and keeps every refusal to report', () => {
    const verdict = judge([toursArea({ records: tours(50), declared: 201, received: 50 })], null, true);
    expect(verdict.outcome).toBe('forced');
    expect(verdict.refusals.map((r) => r.rule)).toEqual(['completeness']);
  });

  it('lets the committed fixture snapshot through, as a first sync and against itself', () => {
    const manifest = JSON.parse(readFileSync(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as Manifest;
    const context = { syncDay: syncDay(new Date(manifest.createdAt)) };
    for (const [source, entry] of Object.entries(manifest.sources)) {
      const areas: AreaInput[] = [];
      for (const [locale, files] of Object.entries(entry.locales)) {
        for (const [area, file] of Object.entries(files)) {
          const received = JSON.parse(gunzipSync(readFileSync(path.join(DATA_DIR, file.file))).toString('utf8')) as object[];
          const checked = applyPlausibility(area as AreaName, received, context);
          areas.push({ locale: locale as Locale, area: area as AreaName, ...checked, declared: received.length, received: received.length, unreadable: {} });
        }
      }
      const input: SourceGateInput = { source: source as SourceName, areas, previous: null, force: false };
      const first = judgeSource(input);
      expect(first.refusals.map((r) => r.message), source).toEqual([]);
      expect(judgeSource({ ...input, previous: first.statistics }).refusals.map((r) => r.message), source).toEqual([]);
    }
  });
});
