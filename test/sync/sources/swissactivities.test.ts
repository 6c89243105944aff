import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, type FieldNode, parse, type SelectionSetNode, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../../sync/client.ts';
import { readSyncConfig } from '../../../sync/config.ts';
import { DEFAULT_SAMPLES_DIR } from '../../../sync/fixtures/samplesDir.ts';
import { generateUpstreamData, startUpstream, type Upstream, type UpstreamData } from '../../../sync/fixtures/upstream.ts';
import type { ActivityRecord, ActivityTypeRecord, LocationRecord } from '../../../sync/format.ts';
import { ACTIVITY_FIELDS, CONTENT_QUERIES, type SwissActivitiesConfig } from '../../../sync/sources/swissactivities/api.ts';
import { activitiesSource } from '../../../sync/sources/swissactivities/activitiesSource.ts';
import { type BookingPayload, type ContentActivity, type ContentPayload } from '../../../sync/sources/swissactivities/shapes.ts';
import { formatPrice, joinActivities } from '../../../sync/sources/swissactivities/join.ts';

function activity(id: string, overrides: Partial<ContentActivity> = {}): ContentActivity {
  return {
    id,
    info: { title: `Erlebnis ${id}`, slug: `erlebnis-${id}`, teaser: `Teaser ${id}` },
    translations: [{ locale: 'fr_CH', info: { title: `Expérience ${id}`, slug: `experience-${id}`, teaser: '' }, teaser_image_alt_text: null }],
    teaser_image: null,
    supplier: null,
    location: { id: 'L1' },
    type: { id: 'T1' },
    destination: null,
    meeting_points: [],
    attribute_values: [],
    updated_at: '2026-11-02T09:00:00.000Z',
    ...overrides,
  };
}

function content(): ContentPayload {
  return {
    locations: [
      { id: 'L1', title: 'Zürich', slug: 'zuerich', translations: [{ locale: 'fr_CH', title: 'Zurich', slug: 'zurich' }] },
      { id: 'L2', title: 'Interlaken', slug: 'interlaken', translations: [{ locale: 'fr_CH', title: 'Interlaken', slug: 'interlaken' }] },
      { id: 'L3', title: 'Bern', slug: 'bern', translations: [] },
    ],
    types: [
      { id: 'T1', title: 'Gleitschirmfliegen', slug: 'gleitschirmfliegen', translations: [{ locale: 'fr_CH', title: 'Parapente', slug: 'parapente' }] },
      { id: 'T2', title: 'Skischule', slug: 'skischule', translations: [{ locale: 'fr_CH', title: 'École de ski', slug: 'ecole-de-ski' }] },
    ],
    activities: [
      activity('101', {
        translations: [{ locale: 'fr_CH', info: { title: 'Expérience 101', slug: 'experience-101', teaser: '' }, teaser_image_alt_text: 'Vol biplace' }],
        teaser_image: { url: 'https://img.example/101.jpg', alternativeText: 'Tandemflug' },
        supplier: { id: 'S1', name: 'Flugschule Interlaken' },
        location: { id: 'L2' },
        destination: { latitude: '46.686300', longitude: '7.863200' },
        meeting_points: [{ latitude: '46.7', longitude: '7.9' }],
        attribute_values: [
          { id: '6', value: 'Draussen', translations: [{ locale: 'fr_CH', value: 'En plein air' }] },
          { id: '8', value: 'Geführt', translations: null },
          { id: '6', value: 'Draussen', translations: [{ locale: 'fr_CH', value: 'En plein air' }] },
        ],
      }),
      // A destination that is not a point: the first meeting point gives the coordinates.
      activity('102', { type: { id: 'T2' }, destination: { latitude: '47.1', longitude: 'east' }, meeting_points: [{ latitude: '46.9', longitude: '7.4' }] }),
      activity('103', { translations: [] }),
      activity('104'),
      activity('105'),
      activity('106', { location: { id: 'L3' } }),
      activity('107', { location: null, type: { id: 'T9' } }),
      activity('108', { translations: [{ locale: 'fr_CH', info: { title: '', slug: 'sans-titre', teaser: '' }, teaser_image_alt_text: null }] }),
      activity('109', { info: null }),
      { translations: [] } as unknown as ContentActivity,
    ],
  };
}

function booking(): BookingPayload {
  const summary = (activityId: number, popularity: number, numOffers?: number) => ({
    activityId,
    popularity,
    startingPrice: { amount: 1290, currency: 'CHF', formatted: 'CHF 1290.00' },
    ...(numOffers === undefined ? {} : { numOffers }),
  });
  return {
    mappings: {
      contentApiIds: {
        '5001': 101,
        '5002': 102,
        '5003': 103,
        '5005': 105,
        '5006': 106,
        // A second booking id for 107: the lower one wins.
        '5099': 107,
        '5007': 107,
        '5008': 108,
        '5009': 109,
        x1: 5,
      },
    },
    summaries: [
      { ...summary(5001, 300, 2), startingPrice: { amount: 49, currency: 'CHF', formatted: 'CHF 49.00' } },
      { ...summary(5002, 300), startingPrice: null },
      summary(5003, 1),
      summary(5006, 7, 0),
      { ...summary(5007, 20), startingPrice: { amount: '1290', currency: 'CHF' } },
      summary(5099, 20),
      summary(5008, 1),
      summary(5009, 2.6),
      summary(5010, -1),
    ],
    dates: {
      '2026-12-24': [5006, 5001],
      '2026-12-22': [5001],
      '22.12.2026': [5007],
      '2026-12-30': [5009, 'x' as unknown as number],
    },
  };
}

/** The sync's day in these tests: every booking date above lies ahead of it. */
const SYNC_DAY = '2026-11-20';

describe('joinActivities', () => {
  it('takes the earliest bookable date on or after the sync day, never a day already past', () => {
    const dates = { '2020-06-01': [5001], '2026-12-22': [5001], '2026-12-24': [5001, 5006], '2026-12-23': [5006] };
    const next = (syncDay: string) => Object.fromEntries(joinActivities(content(), { ...booking(), dates }, 'de-CH', syncDay).activities.map((a) => [a.bookingId, a.nextAvailableDate]));
    expect(next(SYNC_DAY)).toMatchObject({ 5001: '2026-12-22', 5006: '2026-12-23' });
    expect(next('2026-12-23')).toMatchObject({ 5001: '2026-12-24', 5006: '2026-12-23' });
    expect(next('2026-12-25')).toMatchObject({ 5001: null, 5006: null });
  });

  it('keeps every bookable day from the sync day on, runs of consecutive days as one interval', () => {
    const dates = {
      '2026-11-19': [5001],
      '2026-11-20': [5001],
      '2026-11-21': [5001, 5006],
      '2026-11-22': [5001],
      '2026-11-24': [5001],
      '2026-12-31': [5006, 5006],
      '2027-01-01': [5006],
      '2027-03-01': [5001],
    };
    const kept = Object.fromEntries(joinActivities(content(), { ...booking(), dates }, 'de-CH', SYNC_DAY).activities.map((a) => [a.bookingId, a.availableDates]));
    expect(kept).toMatchObject({ 5001: ['2026-11-20/2026-11-22', '2026-11-24', '2027-03-01'], 5006: ['2026-11-21', '2026-12-31/2027-01-01'], 5002: [] });
  });

  it('joins one locale into whole records, in ranking order, with counts per location', () => {
    const result = joinActivities(content(), booking(), 'fr-CH', SYNC_DAY);

    const zurich: LocationRecord = { id: 'L1', title: 'Zurich', slug: 'zurich', activityCount: 2 };
    const interlaken: LocationRecord = { id: 'L2', title: 'Interlaken', slug: 'interlaken', activityCount: 1 };
    const parapente: ActivityTypeRecord = { id: 'T1', title: 'Parapente', slug: 'parapente' };
    const ecole: ActivityTypeRecord = { id: 'T2', title: 'École de ski', slug: 'ecole-de-ski' };
    const plain = (id: string, bookingId: number) => ({
      id,
      bookingId,
      locale: 'fr-CH' as const,
      title: `Expérience ${id}`,
      teaserImage: null,
      supplier: null,
      info: { title: `Expérience ${id}`, teaser: null, slug: `experience-${id}` },
      updatedAt: '2026-11-02T09:00:00.000Z',
      lat: null,
      lng: null,
      attributeValues: [],
      availableDates: [] as string[],
    });
    const price1290 = { amount: '1290.00', currency: 'CHF', formatted: '1\u202f290.00 CHF' };
    const activities: ActivityRecord[] = [
      {
        ...plain('101', 5001),
        teaserImage: { url: 'https://img.example/101.jpg', alternativeText: 'Vol biplace' },
        supplier: { id: 'S1', name: 'Flugschule Interlaken', slug: null },
        location: interlaken,
        type: parapente,
        summary: { startingPrice: { amount: '49.00', currency: 'CHF', formatted: '49.00 CHF' }, rankingScoreValue: 300, popularity: 300, isActive: true },
        isBookable: true,
        nextAvailableDate: '2026-12-22',
        lat: '46.686300',
        lng: '7.863200',
        attributeValues: ['En plein air', 'Geführt'],
        availableDates: ['2026-12-22', '2026-12-24'],
      },
      {
        ...plain('102', 5002),
        location: zurich,
        type: ecole,
        summary: { startingPrice: null, rankingScoreValue: 300, popularity: 300, isActive: true },
        isBookable: false,
        nextAvailableDate: null,
        lat: '46.9',
        lng: '7.4',
      },
      {
        ...plain('107', 5007),
        location: null,
        type: null,
        summary: { startingPrice: price1290, rankingScoreValue: 20, popularity: 20, isActive: true },
        isBookable: false,
        nextAvailableDate: null,
      },
      {
        ...plain('106', 5006),
        location: null,
        type: parapente,
        summary: { startingPrice: price1290, rankingScoreValue: 7, popularity: 7, isActive: false },
        isBookable: false,
        nextAvailableDate: '2026-12-24',
        availableDates: ['2026-12-24'],
      },
      {
        ...plain('109', 5009),
        location: zurich,
        type: parapente,
        summary: { startingPrice: price1290, rankingScoreValue: 2.6, popularity: 3, isActive: true },
        isBookable: true,
        nextAvailableDate: '2026-12-30',
        availableDates: ['2026-12-30'],
      },
    ];
    expect({ activities: result.activities, locations: result.locations, types: result.types }).toEqual({
      activities,
      locations: [interlaken, zurich],
      types: [ecole, parapente],
    });
  });

  it('reports what it left out of a locale, and why', () => {
    const { report } = joinActivities(content(), booking(), 'fr-CH', SYNC_DAY);
    expect(report.skipped).toEqual([
      { kind: 'location', id: 'L3', reason: 'no-translation' },
      { kind: 'activity', id: '103', reason: 'no-translation' },
      { kind: 'activity', id: '104', reason: 'no-mapping' },
      { kind: 'activity', id: '105', reason: 'no-summary' },
    ]);
    expect(report.invalid.map((error) => error.message)).toEqual([
      'booking.mappings x1: "x1": 5 is not a booking id and a content id',
      'booking.summaries 5010: popularity is not a non-negative number',
      'booking.dates 22.12.2026: expected a YYYY-MM-DD key holding a list of booking ids',
      'booking.dates 2026-12-30: "x" is not a booking id',
      'content.activities 108: translation "fr_CH" has no title or slug',
      'content.activities (no id): id missing',
    ]);
  });

  it('counts, per field path, the published activities that lack a field', () => {
    const { activities, report } = joinActivities(content(), booking(), 'fr-CH', SYNC_DAY);
    const lacking = (has: (a: (typeof activities)[number]) => boolean) => activities.filter((a) => !has(a)).length;
    expect(report.misses.misses['teaser_image']).toBe(lacking((a) => a.teaserImage !== null));
    expect(report.misses.misses['supplier']).toBe(lacking((a) => a.supplier !== null));
    expect(report.misses.misses['teaser_image']).toBeGreaterThan(0);
    expect(report.misses.misses['info.teaser']).toBe(lacking((a) => a.info?.teaser != null));
    expect(report.misses.misses['booking.summaries.startingPrice']).toBe(lacking((a) => a.summary.startingPrice !== null));
  });

  it('reads German from the records themselves, not from translations', () => {
    const result = joinActivities(content(), booking(), 'de-CH', SYNC_DAY);
    const byId = new Map(result.activities.map((a) => [a.id, a]));
    expect({
      ids: result.activities.map((a) => a.id),
      info: byId.get('101')?.info,
      image: byId.get('101')?.teaserImage,
      attributes: byId.get('101')?.attributeValues,
      formatted: byId.get('107')?.summary.startingPrice?.formatted,
      bern: byId.get('106')?.location,
      locations: result.locations.map((l) => `${l.title}:${l.activityCount}`),
      types: result.types.map((t) => t.title),
      skipped: result.report.skipped.filter((s) => s.reason === 'no-translation'),
    }).toEqual({
      ids: ['101', '102', '107', '106', '103', '108'],
      info: { title: 'Erlebnis 101', teaser: 'Teaser 101', slug: 'erlebnis-101' },
      image: { url: 'https://img.example/101.jpg', alternativeText: 'Tandemflug' },
      attributes: ['Draussen', 'Geführt'],
      formatted: "CHF 1'290.00",
      bern: { id: 'L3', title: 'Bern', slug: 'bern', activityCount: 1 },
      locations: ['Bern:1', 'Interlaken:1', 'Zürich:3'],
      types: ['Gleitschirmfliegen', 'Skischule'],
      skipped: [{ kind: 'activity', id: '109', reason: 'no-translation' }],
    });
  });

  it('takes coordinates from the destination, else the first meeting point that is a point', () => {
    const records = [
      activity('1', { destination: { latitude: '46.5', longitude: '7.5' }, meeting_points: [{ latitude: '46.1', longitude: '7.1' }] }),
      activity('2', { destination: null, meeting_points: [{ latitude: '', longitude: '7.1' }, { latitude: '46.2', longitude: '7.2' }] }),
      activity('3', { destination: { latitude: '91', longitude: '7.5' }, meeting_points: null }),
    ];
    const contentApiIds = Object.fromEntries(records.map((r, i) => [String(7000 + i), Number(r.id)]));
    const summaries = records.map((_, i) => ({ activityId: 7000 + i, popularity: 3 - i, startingPrice: null }));
    const result = joinActivities({ ...content(), activities: records }, { mappings: { contentApiIds }, summaries, dates: {} }, 'de-CH', SYNC_DAY);
    expect(result.activities.map((a) => [a.id, a.lat, a.lng])).toEqual([
      ['1', '46.5', '7.5'],
      ['2', '46.2', '7.2'],
      ['3', null, null],
    ]);
  });

  it('orders equal popularity by id', () => {
    const records = ['203', '201', '202'].map((id) => activity(id));
    const contentApiIds = Object.fromEntries(records.map((r, i) => [String(7000 + i), Number(r.id)]));
    const summaries = records.map((_, i) => ({ activityId: 7000 + i, popularity: 1, startingPrice: null }));
    const result = joinActivities({ ...content(), activities: records }, { mappings: { contentApiIds }, summaries, dates: {} }, 'de-CH', SYNC_DAY);
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

describe('CONTENT_QUERIES', () => {
  const schema = buildSchema(fs.readFileSync(path.join(DEFAULT_SAMPLES_DIR, 'swissactivities', 'content-schema.graphql'), 'utf8'));

  it.each(Object.entries(CONTENT_QUERIES))('%s validates against the content API schema', (_, query) => {
    expect(validate(schema, parse(query)).map((error) => error.message)).toEqual([]);
  });

  it('reads exactly the fields the probe compares, ACTIVITY_FIELDS', () => {
    const paths = (set: SelectionSetNode, prefix: string): string[] =>
      set.selections.flatMap((node) => {
        const field = node as FieldNode;
        const at = prefix + field.name.value;
        return [at, ...(field.selectionSet ? paths(field.selectionSet, `${at}.`) : [])];
      });
    const operation = parse(CONTENT_QUERIES.activities).definitions[0]!;
    const root = (operation as { selectionSet: SelectionSetNode }).selectionSet.selections[0] as FieldNode;
    expect(paths(root.selectionSet!, '').sort()).toEqual(ACTIVITY_FIELDS.map((p) => p.replace(/\[\]/g, '')).sort());
  });
});

describe('probeActivities', () => {
  let upstream: Upstream;
  let served: UpstreamData;
  const client = createHttpClient({ maxAttempts: 1 });
  const config = (env: Record<string, string> = {}): SwissActivitiesConfig => readSyncConfig(['activities'], { ...upstream.env, ...env }).sources.activities as SwissActivitiesConfig;

  beforeAll(async () => {
    served = generateUpstreamData(2026, 0.3);
    upstream = await startUpstream(served);
  });
  afterAll(async () => {
    await upstream.close();
    await client.close();
  });

  it('calls the content API and each booking path once, and finds every field the adapter reads', async () => {
    // The booking API formats its price once for every locale; the adapter formats per locale.
    const unread: Record<string, string[]> = { summaries: ['startingPrice.formatted'], dates: [], mappings: [] };
    const before = upstream.requests.length;
    const endpoints = await activitiesSource.probe({ http: client, config: config() });
    const data = upstream.env;
    expect(endpoints.map(({ name, url, reachable, keyAccepted, unexpectedFields, missingFields, error }) => ({ name, url, reachable, keyAccepted, unexpectedFields, missingFields, error }))).toEqual([
      { name: 'content API (activities, first page)', url: data.SWISSACTIVITIES_CONTENT_URL, reachable: true, keyAccepted: true, unexpectedFields: [], missingFields: [], error: undefined },
      ...['summaries', 'dates', 'mappings'].map((name) => ({
        name: `booking ${name}`,
        url: `${data.SWISSACTIVITIES_BOOKING_URL}/activities/${name}`,
        reachable: true,
        keyAccepted: true,
        unexpectedFields: unread[name],
        missingFields: [],
        error: undefined,
      })),
    ]);
    const { summaries, dates, mappings } = served.activities.booking;
    expect(endpoints.map((e) => e.records)).toEqual([100, summaries.length, Object.keys(dates).length, Object.keys(mappings.contentApiIds).length]);
    expect(upstream.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /swissactivities/content/graphql',
      'GET /swissactivities/booking/activities/summaries',
      'GET /swissactivities/booking/activities/dates',
      'GET /swissactivities/booking/activities/mappings',
    ]);
  });

  it('reports a key refused when it travels in another header than the booking API takes', async () => {
    const endpoints = await activitiesSource.probe({ http: client, config: config({ SWISSACTIVITIES_AUTH_HEADER: 'X-Api-Key' }) });
    expect(endpoints.map((e) => [e.name, e.reachable, e.keyAccepted, e.records])).toEqual([
      ['content API (activities, first page)', true, true, 100],
      ['booking summaries', true, false, null],
      ['booking dates', true, false, null],
      ['booking mappings', true, false, null],
    ]);
    expect(endpoints[1]!.error).toMatch(/401 Unauthorized/);
  });

  it('reports an endpoint that does not answer as unreachable, with why', async () => {
    const [content] = await activitiesSource.probe({ http: client, config: config({ SWISSACTIVITIES_CONTENT_URL: 'http://127.0.0.1:9/graphql' }) });
    expect(content).toMatchObject({ reachable: false, keyAccepted: null, records: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });
});
