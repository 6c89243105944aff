import { describe, expect, it } from 'vitest';
import { normalizeStation } from '../../../sync/sources/stnet/normalize.ts';
import { type StnetStation } from '../../../sync/sources/stnet/shapes.ts';
import { stationRoutes } from '../../../sync/sources/stnet/routes.ts';
import type { Locale, RouteRecord, StationRecord, TourRecord } from '../../../sync/format.ts';
import { JOIN_RADIUS_KM, joinWinterTours, normalizeName } from '../../../sync/joins/winterRoutes.ts';

// A station at Davos with one track, one trail (no coordinates) and one run.
const STATION: StnetStation = {
  id: 132,
  name: 'Davos',
  lastUpdate: { content: '2026-01-28T07:45:00.000+01:00' },
  crosscountry: { tracksArray: [{ name: 'Loipe Flüelatal', info: { condition: { id: 801 }, sortOrder: 1, latitude: { content: 46.8 }, longitude: { content: 9.84 } } }] },
  hiking: { trailsArray: [{ name: 'Schneeschuhtrail Ischalp', info: { condition: { id: 1203 }, sortOrder: 1 } }] },
  tobogganing: { runsArray: [{ name: 'Schlittelweg Schatzalp', info: { condition: { id: 805 }, sortOrder: 1, latitude: { content: 46.79 }, longitude: { content: 9.82 } } }] },
};
const station: StationRecord = normalizeStation(STATION, 'de-CH');
const routes = stationRoutes(STATION);
const [track, trail, run] = routes as [RouteRecord, RouteRecord, RouteRecord];

function tour(fields: Partial<TourRecord> & Pick<TourRecord, 'id' | 'name' | 'routeType'>): TourRecord {
  return {
    abstract: null, url: `https://www.myswitzerland.com/de/route/${fields.id}/`, routeCategory: null, difficulty: null, season: 'winter',
    latitude: 46.8, longitude: 9.84, startPoint: null, endPoint: null, distance: null, duration: null, ascent: null, descent: null,
    minAltitude: null, maxAltitude: null, isRoundtrip: false, isBarrierFree: false, switzerlandMobilityRoute: null, switzerlandMobilityUrl: null,
    geodataUrl: null, providerName: null, providerEmail: null, providerPhone: null, providerUrl: null, imageUrl: null, logoUrl: null,
    landscapes: [], views: [], origin: null, lastUpdated: null,
    ...fields,
  };
}

function join(tours: Partial<Record<Locale, TourRecord[]>>): Partial<Record<Locale, RouteRecord[]>> {
  return joinWinterTours([station], { 'de-CH': routes, 'en-CH': routes }, tours);
}

describe('normalizeName', () => {
  it('drops case, accents and punctuation and collapses spaces', () => {
    expect(normalizeName('  Loipe  Flüelatal – (Davos)! ')).toBe('loipe fluelatal davos');
    expect(normalizeName('PISTE DE LUGE Château-d’Œx')).toBe(normalizeName('piste de luge chateau d œx'));
  });
});

describe('joinWinterTours', () => {
  it('gives a track the id, SwitzerlandMobility number and per-locale link of a cross-country tour of the same name nearby', () => {
    const de = tour({ id: 'a1', name: 'LOIPE FLUELATAL', routeType: 'crosscountryskiing', switzerlandMobilityRoute: 55, url: 'https://de.example/a1' });
    const en = { ...de, name: 'Flüela valley trail', url: 'https://en.example/a1' };
    const out = join({ 'de-CH': [de], 'en-CH': [en] });
    expect(out['de-CH']![0]).toEqual({ ...track, id: 'a1', number: '55', link: 'https://de.example/a1' });
    expect(out['en-CH']![0]).toEqual({ ...track, id: 'a1', number: '55', link: 'https://en.example/a1' });
    expect(out['de-CH']!.slice(1)).toEqual([trail, run]);
  });

  it('keeps the station id of a track joined with a tour, whose number is then the tour\'s', () => {
    const out = join({ 'de-CH': [tour({ id: 'a2', name: 'Loipe Flüelatal', routeType: 'crosscountryskiing', switzerlandMobilityRoute: 55 })] });
    expect(out['de-CH']![0]).toMatchObject({ id: 'a2', number: '55', stationId: station.id });
    expect(track.stationId).toBe(station.id);
  });

  it('keeps the station number when the tour has no SwitzerlandMobility number, and matches a name from any locale', () => {
    const de = tour({ id: 'b1', name: 'Schlittelspass', routeType: 'sledging', latitude: 46.79, longitude: 9.82 });
    const out = join({ 'de-CH': [de], 'en-CH': [{ ...de, name: 'Schlittelweg Schatzalp' }] });
    expect(out['de-CH']![2]).toEqual({ ...run, id: 'b1', link: de.url });
  });

  it('does not join a tour of another kind, another name, or starting farther than the join radius', () => {
    const north = 46.8 + (JOIN_RADIUS_KM + 0.5) / 111.2;
    const out = join({
      'de-CH': [
        tour({ id: 'c1', name: 'Loipe Flüelatal', routeType: 'winterhiking' }),
        tour({ id: 'c2', name: 'Loipe Flüelatal 2', routeType: 'crosscountryskiing' }),
        tour({ id: 'c3', name: 'Loipe Flüelatal', routeType: 'crosscountryskiing', latitude: north }),
        tour({ id: 'c4', name: 'Loipe Flüelatal', routeType: 'hike' }),
      ],
    });
    expect(out['de-CH']).toEqual(routes);
  });

  it('joins each item with the closest tour only, whatever the input order', () => {
    const near = tour({ id: 'd2', name: 'Loipe Flüelatal', routeType: 'crosscountryskiing', latitude: 46.801 });
    const far = tour({ id: 'd1', name: 'Loipe Flüelatal', routeType: 'crosscountryskiing', latitude: 46.81 });
    expect(join({ 'de-CH': [far, near] })['de-CH']![0]!.id).toBe('d2');
    expect(join({ 'de-CH': [near, far] })['de-CH']![0]!.id).toBe('d2');
  });

  it('measures from the station for a trail without coordinates', () => {
    const out = join({ 'de-CH': [tour({ id: 'e1', name: 'Schneeschuhtrail Ischalp', routeType: 'winterhiking', latitude: station.latitude, longitude: station.longitude })] });
    expect(out['de-CH']![1]).toMatchObject({ id: 'e1', type: 'winterhiking', status: 'CLOSED' });
  });

  it('adds a snowshoe tour near the station as a snowshoe route, with the status of its hiking trail of the same name, else NOINFO', () => {
    const out = join({
      'de-CH': [
        tour({ id: 'f2', name: 'Schneeschuhtrail Ischalp', routeType: 'snowshoe', switzerlandMobilityRoute: 407 }),
        tour({ id: 'f1', name: 'Rundweg Clavadel', routeType: 'snowshoe' }),
        tour({ id: 'f3', name: 'Rundweg Arosa', routeType: 'snowshoe', latitude: 46.78, longitude: 9.68 }),
      ],
    });
    expect(out['de-CH']!.slice(0, 3)).toEqual(routes);
    expect(out['de-CH']!.slice(3)).toEqual([
      { id: 'f1', type: 'snowshoe', number: '132-S1', status: 'NOINFO', lastUpdated: station.lastUpdate, link: 'https://www.myswitzerland.com/de/route/f1/', isStationActive: true, stationId: 132 },
      { id: 'f2', type: 'snowshoe', number: '407', status: 'CLOSED', lastUpdated: station.lastUpdate, link: 'https://www.myswitzerland.com/de/route/f2/', isStationActive: true, stationId: 132 },
    ]);
  });

  it('returns the routes unchanged without tours', () => {
    expect(join({})).toEqual({ 'de-CH': routes, 'en-CH': routes });
  });
});
