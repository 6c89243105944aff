/**
 * MAX_RESPONSE_BYTES across a hot reload of the real server: an operation kept from the previous
 * snapshot is estimated again with the sizes of the new one. It waits on the snapshot watcher.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { createLogger } from '../../server/ops/log.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import { tempStateDir } from '../helpers/api.ts';
import { createTinySnapshot, writeTinySnapshot, type TinySnapshot } from '../helpers/tinySnapshot.ts';

interface Answer {
  status: number;
  body: { errors?: { message: string; extensions?: { code?: string } }[] };
}

async function post(server: RunningServer, query: string): Promise<Answer> {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** The code and message of each error. */
const refusal = (answer: Answer) => answer.body.errors?.map((error) => [error.extensions?.code, error.message]);

describe('a hot reload', () => {
  let snapshot: TinySnapshot;
  let running: RunningServer;
  beforeAll(async () => {
    snapshot = await createTinySnapshot();
    running = await startServer(
      // Without the response cache, each request reaches the operation cache, which keeps the operation.
      readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), MAX_RESPONSE_BYTES: '4096', RESPONSE_CACHE: 'false' }),
      createLogger('silent'),
    );
  });
  afterAll(async () => {
    await running.close();
    await snapshot.remove();
  });

  it('estimates an operation kept from the previous snapshot again, with the sizes of the new one', async () => {
    const query = '{ snowdataStations { data { raw } } }';
    for (let i = 0; i < 3; i++) expect((await post(running, query)).body.errors).toBeUndefined();
    const version = '2026-11-22T04-00-00Z';
    await writeTinySnapshot(snapshot.dir, { version, lastSync: '2026-11-22T04:00:00.000Z', stationRawPadding: 2000 });
    // The watcher's poll finds it; the test's timeout is the safety net.
    while (running.holder.store.snapshot.version !== version) await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await post(running, query);
    expect(refusal(answer)).toEqual([['RESPONSE_TOO_LARGE', expect.stringMatching(/^The answer would be about [\d,]+ bytes, more than the limit of 4,096 bytes/)]]);
  });
});
