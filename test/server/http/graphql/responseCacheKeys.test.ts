/**
 * The response cache and the operation cache over real HTTP: a request graphql-js would answer
 * differently from a cached one never gets the cached answer, nor the coercion of its variables.
 */

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../../server/config/config.ts';
import { startServer, type RunningServer } from '../../../../server/main.ts';
import { createLogger } from '../../../../server/ops/log.ts';
import { IN_PROCESS, tempStateDir } from '../../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let running: RunningServer;
/** The same server without its response cache: what the operation cache keeps alone. */
let uncached: RunningServer;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  const env = { ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() };
  running = await startServer(readConfig(env), createLogger('silent'));
  uncached = await startServer(readConfig({ ...env, STATE_DIR: tempStateDir(), RESPONSE_CACHE: 'false' }), createLogger('silent'));
});

afterAll(async () => {
  await running.close();
  await uncached.close();
  await snapshot.remove();
});

/** Posts a body as written, so that numbers JSON.stringify cannot write reach the server. */
async function post(body: string, server = running): Promise<{ status: number; body: unknown }> {
  const response = await request(`${server.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  return { status: response.statusCode, body: JSON.parse(await response.body.text()) };
}

const TOURS = 'query($l:Int){tours(limit:$l,offset:1){total}}';
const NEAR = 'query($lat:Float,$lng:Float){tours(nearLat:$lat,nearLng:$lng,limit:1){total}}';

describe('the caches over HTTP', () => {
  it('refuses an Int variable of 1e400 after the same request with null was cached', async () => {
    const withNull = await post(`{"query":"${TOURS}","variables":{"l":null}}`);
    expect(withNull.status).toBe(200);
    expect(withNull.body).toEqual({ data: { tours: { total: 3 } } });
    for (const written of ['1e400', '-1e400']) {
      const answer = await post(`{"query":"${TOURS}","variables":{"l":${written}}}`);
      expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
      expect(answer.body).not.toHaveProperty('data');
    }
  });

  it('refuses a Float variable of 1e999 after the same request with null was cached', async () => {
    expect((await post(`{"query":"${NEAR}","variables":{"lat":null,"lng":null}}`)).body).toEqual({ data: { tours: { total: 3 } } });
    for (const written of ['1e999', '-1e999']) {
      const answer = await post(`{"query":"${NEAR}","variables":{"lat":${written},"lng":null}}`);
      expect(answer.body).toMatchObject({ errors: [{ message: expect.stringContaining('Float cannot represent'), extensions: { code: 'BAD_USER_INPUT' } }] });
    }
  });

  it('refuses an Int variable of 1e400 after the same operation with null was kept, with the response cache off', async () => {
    // Three times: the operation is kept, compiled, and its coercion of {"l": null} remembered.
    for (let i = 0; i < 3; i++) expect((await post(`{"query":"${TOURS}","variables":{"l":null}}`, uncached)).body).toEqual({ data: { tours: { total: 3 } } });
    const answer = await post(`{"query":"${TOURS}","variables":{"l":1e400}}`, uncached);
    expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(answer.body).not.toHaveProperty('data');
  });
});
