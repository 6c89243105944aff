/**
 * Arguments checked before anything executes, over real HTTP on the tiny snapshot: one bad
 * argument refuses the whole request, with no field run and no `data`, however the request
 * reached the engine (first seen, kept, with variables, or as the template of its literals).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../server/config/config.ts';
import { startServer, type RunningServer } from '../../../server/main.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { IN_PROCESS, tempStateDir } from '../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let running: RunningServer;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  running = await startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() }), createLogger('silent'));
});

afterAll(async () => {
  await running.close();
  await snapshot.remove();
});

async function post(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${running.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await response.json() };
}

const refusal = (message: string, line: number, column: number) => ({
  status: 400,
  body: { errors: [{ message, locations: [{ line, column }], extensions: { code: 'BAD_USER_INPUT' } }] },
});

describe('arguments checked before execution', () => {
  it('refuses a request whose one field has a bad argument, without running the others', async () => {
    const near = Array.from({ length: 5 }, (_, i) => `n${i}: tours(nearLat: 46.5, nearLng: 7.5, limit: 500) { total }`).join(' ');
    expect(await post(`{ ${near} e: activities(limit: 101) { total } }`)).toEqual(refusal('limit: 101 is out of range; allowed: 0 to 100', 1, 308));
  });

  it('refuses bad variables of a kept operation, and answers good ones again', async () => {
    const query = 'query($l: Int, $lat: Float) { tours(limit: $l, nearLat: $lat, nearLng: 7.5, radiusKm: 20000) { total } }';
    for (let i = 0; i < 3; i++) expect((await post(query, { l: 2, lat: 46 })).body).toEqual({ data: { tours: { total: 3 } } });
    expect(await post(query, { l: 501, lat: 46 })).toEqual(refusal('limit: 501 is out of range; allowed: 0 to 500', 1, 31));
    expect(await post(query, { l: 2, lat: 91 })).toEqual(refusal('nearLat: 91 is out of range; allowed: -90 to 90', 1, 31));
    expect((await post(query, { l: 1, lat: 46 })).body).toEqual({ data: { tours: { total: 3 } } });
  });

  it('refuses a bad literal of a document whose template of literals is kept', async () => {
    for (const offset of [0, 1, 2]) expect((await post(`{ snowdataStations(offset: ${offset}) { total } }`)).body).toEqual({ data: { snowdataStations: { total: 3 } } });
    expect(await post('{ snowdataStations(offset: -1) { total } }')).toEqual(refusal('offset: -1 is out of range; allowed: 0 or more', 1, 3));
  });

  it('checks a field inside fragments, and not one that @skip leaves out', async () => {
    expect(await post('{ ... on Query { ...F } } fragment F on Query { types(locale: "xx") { id } }')).toEqual(
      refusal('locale: "xx" is not supported; allowed: de-CH, en-CH, fr-CH, it-CH', 1, 49),
    );
    expect((await post('query($s: Boolean!) { a: tours { total } b: tours(limit: 999) @skip(if: $s) { total } }', { s: true })).body).toEqual({
      data: { a: { total: 3 } },
    });
  });
});
