import { describe, expect, it } from 'vitest';
import type { ActivityRecord, ActivityTypeRecord, LocationRecord } from '../../../sync/snapshot.ts';
import {
  formatPrice,
  joinActivities,
  type BookingPayload,
  type ContentActivity,
  type ContentPayload,
} from '../../../sync/sources/swissactivities.ts';

function activity(id: string, overrides: Partial<ContentActivity> = {}): ContentActivity {
  return {
    id,
    translations: [
      { locale: 'de', info: { title: `Erlebnis ${id}`, slug: `erlebnis-${id}`, teaser: `Teaser ${id}` } },
      { locale: 'fr', info: { title: `Expérience ${id}`, slug: `experience-${id}`, teaser: '' } },
    ],
    teaser_image: null,
    supplier: null,
    location: { id: 'L1' },
    type: { id: 'T1' },
    lat: null,
    lng: null,
    attribute_values: [],
    updated_at: '2026-11-02T09:00:00.000Z',
    ...overrides,
  };
}

function content(): ContentPayload {
  return {
    locations: [
      { id: 'L1', translations: [{ locale: 'de', title: 'Zürich', slug: 'zuerich' }, { locale: 'fr', title: 'Zurich', slug: 'zurich' }] },
      { id: 'L2', translations: [{ locale: 'de', title: 'Interlaken', slug: 'interlaken' }, { locale: 'fr', title: 'Interlaken', slug: 'interlaken' }] },
      { id: 'L3', translations: [{ locale: 'de', title: 'Bern', slug: 'bern' }] },
    ],
    types: [
      { id: 'T1', translations: [{ locale: 'de', title: 'Gleitschirmfliegen', slug: 'gleitschirmfliegen' }, { locale: 'fr', title: 'Parapente', slug: 'parapente' }] },
      { id: 'T2', translations: [{ locale: 'de', title: 'Skischule', slug: 'skischule' }, { locale: 'fr', title: 'École de ski', slug: 'ecole-de-ski' }] },
    ],
    activities: [
      activity('101', {
        teaser_image: { url: 'https://img.example/101.jpg', alternativeText: 'Tandemflug' },
        supplier: { id: 'S1', name: 'Flugschule Interlaken', slug: 'flugschule-interlaken' },
        location: { id: 'L2' },
        lat: '46.686300',
        lng: '7.863200',
        attribute_values: [
          { id: '6', value: 'outdoor', attribute: { id: 'setting', label: 'Setting' } },
          { id: '8', value: 'guided', attribute: null },
          { id: '6', value: 'outdoor', attribute: { id: 'setting', label: 'Setting' } },
        ],
      }),
      // Same ranking as 101 but more popular.
      activity('102', { type: { id: 'T2' }, lat: '47.1', lng: 'east' }),
      activity('103', { translations: [{ locale: 'de', info: { title: 'Nur deutsch', slug: 'nur-deutsch', teaser: null } }] }),
      activity('104'),
      activity('105'),
      activity('106', { location: { id: 'L3' } }),
      activity('107', { location: null, type: { id: 'T9' } }),
      activity('108', { translations: [{ locale: 'fr', info: { title: '', slug: 'sans-titre', teaser: null } }] }),
      { translations: [] } as unknown as ContentActivity,
    ],
  };
}

function booking(): BookingPayload {
  const summary = (activityId: number, rankingScoreValue: number, popularity: number, isActive = true) => ({
    activityId,
    rankingScoreValue,
    popularity,
    startingPrice: { amount: 1290, currency: 'CHF' },
    isActive,
  });
  return {
    mappings: [
      { activityId: 5001, contentApiActivityId: 101 },
      { activityId: 5002, contentApiActivityId: 102 },
      { activityId: 5003, contentApiActivityId: 103 },
      { activityId: 5005, contentApiActivityId: 105 },
      { activityId: 5006, contentApiActivityId: 106 },
      // A second booking id for 107: the lower one wins.
      { activityId: 5099, contentApiActivityId: 107 },
      { activityId: 5007, contentApiActivityId: 107 },
      { activityId: 5008, contentApiActivityId: 108 },
    ],
    summaries: [
      { ...summary(5001, 9.5, 10), startingPrice: { amount: 49, currency: 'CHF' } },
      { ...summary(5002, 9.5, 20), startingPrice: null },
      summary(5003, 1, 1),
      summary(5006, 7.25, 300, false),
      summary(5007, 8, 5),
      summary(5099, 8, 5),
      summary(5008, 1, 1),
      { ...summary(5010, 1, 1), popularity: 1.5 },
    ],
    dates: [
      { activityId: 5001, nextAvailableDate: '2026-12-22' },
      { activityId: 5002, nextAvailableDate: null },
      { activityId: 5006, nextAvailableDate: '2026-12-24' },
      { activityId: 5007, nextAvailableDate: '22.12.2026' },
    ],
  };
}

describe('joinActivities', () => {
  it('joins one locale into whole records, in ranking order, with counts per location', () => {
    const result = joinActivities(content(), booking(), 'fr-CH');

    const zurich: LocationRecord = { id: 'L1', title: 'Zurich', slug: 'zurich', activityCount: 1 };
    const interlaken: LocationRecord = { id: 'L2', title: 'Interlaken', slug: 'interlaken', activityCount: 1 };
    const parapente: ActivityTypeRecord = { id: 'T1', title: 'Parapente', slug: 'parapente' };
    const ecole: ActivityTypeRecord = { id: 'T2', title: 'École de ski', slug: 'ecole-de-ski' };
    const activities: ActivityRecord[] = [
      {
        id: '102',
        bookingId: 5002,
        locale: 'fr-CH',
        title: 'Expérience 102',
        teaserImage: null,
        supplier: null,
        location: zurich,
        type: ecole,
        info: { title: 'Expérience 102', teaser: null, slug: 'experience-102' },
        summary: { startingPrice: null, rankingScoreValue: 9.5, popularity: 20, isActive: true },
        isBookable: false,
        nextAvailableDate: null,
        lat: null,
        lng: null,
        attributeValues: [],
      },
      {
        id: '101',
        bookingId: 5001,
        locale: 'fr-CH',
        title: 'Expérience 101',
        teaserImage: { url: 'https://img.example/101.jpg', alternativeText: 'Tandemflug' },
        supplier: { id: 'S1', name: 'Flugschule Interlaken', slug: 'flugschule-interlaken' },
        location: interlaken,
        type: parapente,
        info: { title: 'Expérience 101', teaser: null, slug: 'experience-101' },
        summary: { startingPrice: { amount: '49.00', currency: 'CHF', formatted: '49.00 CHF' }, rankingScoreValue: 9.5, popularity: 10, isActive: true },
        isBookable: true,
        nextAvailableDate: '2026-12-22',
        lat: '46.686300',
        lng: '7.863200',
        attributeValues: ['outdoor', 'guided'],
      },
      {
        id: '107',
        bookingId: 5007,
        locale: 'fr-CH',
        title: 'Expérience 107',
        teaserImage: null,
        supplier: null,
        location: null,
        type: null,
        info: { title: 'Expérience 107', teaser: null, slug: 'experience-107' },
        summary: { startingPrice: { amount: '1290.00', currency: 'CHF', formatted: '1\u202f290.00 CHF' }, rankingScoreValue: 8, popularity: 5, isActive: true },
        isBookable: false,
        nextAvailableDate: null,
        lat: null,
        lng: null,
        attributeValues: [],
      },
      {
        id: '106',
        bookingId: 5006,
        locale: 'fr-CH',
        title: 'Expérience 106',
        teaserImage: null,
        supplier: null,
        location: null,
        type: parapente,
        info: { title: 'Expérience 106', teaser: null, slug: 'experience-106' },
        summary: { startingPrice: { amount: '1290.00', currency: 'CHF', formatted: '1\u202f290.00 CHF' }, rankingScoreValue: 7.25, popularity: 300, isActive: false },
        isBookable: false,
        nextAvailableDate: '2026-12-24',
        lat: null,
        lng: null,
        attributeValues: [],
      },
    ];
    expect({ activities: result.activities, locations: result.locations, types: result.types }).toEqual({
      activities,
      locations: [interlaken, zurich],
      types: [ecole, parapente],
    });
  });

  it('reports what it left out of a locale, and why', () => {
    const { report } = joinActivities(content(), booking(), 'fr-CH');
    expect(report.skipped).toEqual([
      { kind: 'location', id: 'L3', reason: 'no-translation' },
      { kind: 'activity', id: '103', reason: 'no-translation' },
      { kind: 'activity', id: '104', reason: 'no-mapping' },
      { kind: 'activity', id: '105', reason: 'no-summary' },
    ]);
    expect(report.invalid.map((error) => error.message)).toEqual([
      'booking.summaries 5010: popularity is not an integer',
      'booking.dates 5007: nextAvailableDate "22.12.2026" is not YYYY-MM-DD',
      'content.activities 108: translation "fr" has no title or slug',
      'content.activities (no id): id or translations missing',
    ]);
  });

  it('picks the translation, titles and price format of the requested locale', () => {
    const result = joinActivities(content(), booking(), 'de-CH');
    const byId = new Map(result.activities.map((a) => [a.id, a]));
    expect({
      ids: result.activities.map((a) => a.id),
      title: byId.get('101')?.title,
      info: byId.get('101')?.info,
      formatted: byId.get('107')?.summary.startingPrice?.formatted,
      bern: byId.get('106')?.location,
      locations: result.locations.map((l) => `${l.title}:${l.activityCount}`),
      types: result.types.map((t) => t.title),
    }).toEqual({
      ids: ['102', '101', '107', '106', '103'],
      title: 'Erlebnis 101',
      info: { title: 'Erlebnis 101', teaser: 'Teaser 101', slug: 'erlebnis-101' },
      formatted: "CHF 1'290.00",
      bern: { id: 'L3', title: 'Bern', slug: 'bern', activityCount: 1 },
      locations: ['Bern:1', 'Interlaken:1', 'Zürich:2'],
      types: ['Gleitschirmfliegen', 'Skischule'],
    });
  });

  it('orders equal ranking and popularity by id', () => {
    const records = ['203', '201', '202'].map((id) => activity(id));
    const mappings = records.map((r, i) => ({ activityId: 7000 + i, contentApiActivityId: Number(r.id) }));
    const summaries = mappings.map((m) => ({ activityId: m.activityId, rankingScoreValue: 1, popularity: 1, startingPrice: null, isActive: true }));
    const result = joinActivities({ ...content(), activities: records }, { mappings, summaries, dates: [] }, 'de-CH');
    expect(result.activities.map((a) => a.id)).toEqual(['201', '202', '203']);
  });
});

describe('formatPrice', () => {
  it('writes prices the Swiss way in each locale', () => {
    expect(
      (['de-CH', 'en-CH', 'fr-CH', 'it-CH'] as const).map((locale) => [formatPrice('49.50', 'CHF', locale), formatPrice('1290.00', 'CHF', locale), formatPrice('12900.00', 'CHF', locale)]),
    ).toEqual([
      ['CHF 49.50', "CHF 1'290.00", "CHF 12'900.00"],
      ['CHF 49.50', "CHF 1'290.00", "CHF 12'900.00"],
      ['49.50 CHF', '1\u202f290.00 CHF', '12\u202f900.00 CHF'],
      ['CHF 49.50', 'CHF 1290.00', "CHF 12'900.00"],
    ]);
  });
});
