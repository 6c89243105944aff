import { describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLES_DIR } from '../../../../sync/fixtures/samplesDir.ts';
import { Random } from '../../../../sync/fixtures/random.ts';
import { generateSnowdata } from '../../../../sync/fixtures/snowdata.ts';
import { compareFields } from '../../../../sync/sources/probe.ts';
import { FieldReader } from '../../../../sync/sources/read.ts';
import { OPTIONAL_FIELDS, READ_FIELDS, withLists } from '../../../../sync/sources/stnet/fields.ts';
import { normalizeStation } from '../../../../sync/sources/stnet/normalize.ts';
import type { StnetStation } from '../../../../sync/sources/stnet/shapes.ts';

const texts = (de: string, en: string, fr: string) => ({ textArray: [{ lang: 'de', content: de }, { lang: 'en', content: en }, { lang: 'fr', content: fr }] });
const chf = (content: number | string) => ({ content, unit: 'CHF' });

/** A station with every optional part, in the shapes the adapter assumes. */
function stationWithParts(): StnetStation {
  return {
    id: 132,
    name: 'Verbier',
    prices: {
      dayTicket: { adult: chf(79), child: chf('39.5'), teenager: chf(67), senior: { content: 71, unit: 'chf' } },
      halfDayTicket: { adult: chf(65) },
      weekTicket: null,
      halfDayFrom: { content: '9:30' },
      familyReduction: { content: 1 },
      hourCardsAvailable: { content: 0 },
      description: texts('Preise inkl. MWST.', 'Prices incl. VAT.', 'Prix TVA incluse.'),
    },
    weather: {
      condition: { id: 1, ...texts('sonnig', 'sunny', 'ensoleillé') },
      temperatureResort: { content: -4.4, unit: '°C' },
      temperaturePiste: { content: -11 },
      forecast: texts('Morgen Schnee.', 'Snow tomorrow.', 'Neige demain.'),
      forecastArray: [
        { type: 'BERG', date: { content: '2026-12-21T00:00:00.000+01:00' }, temperature: { content: -9, unit: '°C' }, iconCode: { content: 4 }, url: { content: 'https://www.meteoswiss.ch/' } },
        { type: 'TAL', date: { content: '2026-12-21T00:00:00.000+01:00' }, temperature: { content: 1, unit: '°C' } },
      ],
    },
    imagesArray: [{ type: 'SKIMAP', url: { content: 'https://www.verbier.ch/skimap.jpg' }, created: { content: '2025-10-01T08:00:00.000+02:00' } }],
    // A single webcam comes as the object itself.
    webcamsArray: { url: { content: 'https://www.verbier.ch/cam.jpg' }, sourceUrl: { content: 'https://www.verbier.ch/webcams' }, place: texts('Gipfel', 'Summit', 'Sommet'), latitude: { content: 46.0961 }, longitude: { content: '7.2286' } },
    linksArray: [{ type: 'TICKETSHOP', title: texts('Tickets', 'Tickets', 'Billets'), url: { content: 'https://www.verbier.ch/tickets' } }],
    detailLinksArray: [
      { lang: 'de', url: { content: 'https://snow.myswitzerland.com/snow_reports/verbier-132/' } },
      { lang: 'fr', url: { content: 'https://snow.myswitzerland.com/fr/snow_reports/verbier-132/' } },
    ],
  };
}

/** The misses counted under the optional parts' paths. */
function optionalMisses(reader: FieldReader): Record<string, number> {
  return Object.fromEntries(Object.entries(reader.misses).filter(([path]) => /^(prices|weather|imagesArray|webcamsArray|linksArray|detailLinksArray)\b/.test(path)));
}

describe('the optional parts of an STnet full station', () => {
  it('are read in the locale, prices as text with their currency, temperatures in whole °C', () => {
    const reader = new FieldReader();
    const record = normalizeStation(stationWithParts(), 'fr-CH', reader);
    expect({
      prices: record.prices,
      weather: record.weather,
      weatherForecast: record.weatherForecast,
      images: record.images,
      webcams: record.webcams,
      links: record.links,
      detailLinks: record.detailLinks,
    }).toEqual({
      prices: {
        dayTicket: { adult: '79.00', child: '39.50', teenager: '67.00', senior: '71.00', currency: 'CHF' },
        halfDayTicket: { adult: '65.00', child: null, teenager: null, senior: null, currency: 'CHF' },
        weekTicket: null,
        seasonTicket: null,
        halfDayFrom: '09:30',
        familyReduction: true,
        hourCardsAvailable: false,
        dynamicPrices: null,
        description: 'Prix TVA incluse.',
      },
      weather: { condition: 'ensoleillé', temperatureResort: -4, temperaturePiste: -11, forecast: 'Neige demain.' },
      weatherForecast: [
        { type: 'BERG', date: '2026-12-21', temperature: -9, iconCode: 4, url: 'https://www.meteoswiss.ch/' },
        { type: 'TAL', date: '2026-12-21', temperature: 1, iconCode: null, url: null },
      ],
      images: [{ type: 'SKIMAP', url: 'https://www.verbier.ch/skimap.jpg', created: '2025-10-01T08:00:00.000+02:00', updated: null }],
      webcams: [{ url: 'https://www.verbier.ch/cam.jpg', sourceUrl: 'https://www.verbier.ch/webcams', place: 'Sommet', latitude: 46.0961, longitude: 7.2286 }],
      links: [{ type: 'TICKETSHOP', title: 'Billets', url: 'https://www.verbier.ch/tickets' }],
      detailLinks: [
        { lang: 'de', url: 'https://snow.myswitzerland.com/snow_reports/verbier-132/' },
        { lang: 'fr', url: 'https://snow.myswitzerland.com/fr/snow_reports/verbier-132/' },
      ],
    });
    expect(optionalMisses(reader)).toEqual({});
  });

  it('are null when absent, and an absent part is not counted as unreadable', () => {
    const reader = new FieldReader();
    const record = normalizeStation({ id: 7, name: 'Skilift Gibel' }, 'de-CH', reader);
    expect([record.prices, record.weather, record.weatherForecast, record.images, record.webcams, record.links, record.detailLinks]).toEqual([null, null, null, null, null, null, null]);
    expect(optionalMisses(reader)).toEqual({});
  });

  it('count each part present in a shape the adapter cannot read, per field path, and leave it out', () => {
    const station = stationWithParts();
    station.prices!.dayTicket = { adult: chf('free'), child: { content: 20, unit: 'EUR' } };
    station.prices!.halfDayTicket = { adult: chf('free') };
    station.prices!.halfDayFrom = { content: 'noon' };
    station.weather!.temperatureResort = { content: 25, unit: '°F' };
    station.weather!.forecastArray = [{ type: 'MITTE', date: { content: '2026-12-21' } }, { type: 'TAL', date: { content: 'tomorrow' } }, { type: 'BERG', date: { content: '2026-12-22' } }];
    station.imagesArray = [{ type: 'LOGO' }, 'logo.png' as never];
    station.linksArray = { url: { content: 'https://www.verbier.ch/' } };
    station.detailLinksArray = [{ lang: 'de', url: { value: 'https://snow.myswitzerland.com/' } as never }];
    const reader = new FieldReader();
    const record = normalizeStation(station, 'de-CH', reader);
    expect(record.prices).toMatchObject({ dayTicket: null, halfDayTicket: { adult: null, currency: 'CHF' }, halfDayFrom: null });
    expect(record.weather).toMatchObject({ temperatureResort: null, temperaturePiste: -11 });
    expect(record.weatherForecast).toEqual([{ type: 'BERG', date: '2026-12-22', temperature: null, iconCode: null, url: null }]);
    expect([record.images, record.links, record.detailLinks]).toEqual([[], [], []]);
    expect(optionalMisses(reader)).toEqual({
      'prices.dayTicket': 1,
      'prices.halfDayTicket.adult': 1,
      'prices.halfDayFrom': 1,
      'weather.temperatureResort': 1,
      'weather.forecastArray[]': 2,
      'imagesArray[]': 2,
      'linksArray[]': 1,
      'detailLinksArray[]': 1,
    });
  });

  it('counts a part sent as something other than an object', () => {
    const reader = new FieldReader();
    const record = normalizeStation({ id: 7, name: 'Skilift Gibel', prices: 'on request' as never, weather: [] as never }, 'de-CH', reader);
    expect([record.prices, record.weather]).toEqual([null, null]);
    expect(optionalMisses(reader)).toEqual({ prices: 1, weather: 1 });
  });
});

describe('the fixture stations that carry the optional parts', () => {
  const stations = generateSnowdata(new Random(5), 1, DEFAULT_SAMPLES_DIR).stations;
  const carrying = stations.filter((s) => s.prices);

  it('are some of the stations, and every part of theirs reads without a miss', () => {
    expect(carrying.length).toBeGreaterThan(0);
    expect(carrying.length).toBeLessThan(stations.length);
    const reader = new FieldReader();
    for (const station of carrying) {
      const record = normalizeStation(station, 'it-CH', reader);
      expect(record.prices!.dayTicket).toMatchObject({ currency: 'CHF', adult: expect.stringMatching(/^\d+\.\d\d$/) });
      expect(record.weatherForecast).toHaveLength(14);
      expect(record.webcams).toHaveLength(1);
      expect(record.detailLinks!.map((l) => l.lang)).toEqual(['de', 'en', 'fr', 'it']);
    }
    expect(optionalMisses(reader)).toEqual({});
  });

  it('have only fields the probe knows, and the stations without them miss none of the optional ones', () => {
    const { unexpectedFields } = compareFields(carrying.map(withLists), [...READ_FIELDS, ...OPTIONAL_FIELDS]);
    expect(unexpectedFields.filter((field) => /^(prices|weather|imagesArray|webcamsArray|linksArray|detailLinksArray)\b/.test(field))).toEqual([]);
    const { missingFields } = compareFields(carrying.map(withLists), OPTIONAL_FIELDS);
    // What the fixture leaves out of every station: a forecast day's URL, an image's creation time.
    expect(missingFields).toEqual(['imagesArray[].created', 'imagesArray[].created.content', 'weather.forecastArray[].url', 'weather.forecastArray[].url.content']);
  });
});
