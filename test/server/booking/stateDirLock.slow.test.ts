/**
 * Two real server processes (`node dist/server.mjs`, the bundle) on one STATE_DIR: the first
 * holds it, and the second refuses to start its sandbox, naming the directory and the first.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
  await snapshot.remove();
});

/** Starts a server on STATE_DIR `stateDir` and resolves with its base URL once it listens. */
async function start(stateDir: string): Promise<{ server: ServerProcess; url: string }> {
  const server = startServerProcess({ WORKERS: '1', DATA_DIR: snapshot.dir, STATE_DIR: stateDir, BOOKING_MODE: 'sandbox' });
  servers.push(server);
  return { server, url: (await server.loggedMsg('listening on')).url as string };
}

describe('two servers on one STATE_DIR', () => {
  it('lets the first book, and has the second refuse booking with 503, naming the directory and the first process', async () => {
    const stateDir = tempStateDir();
    const first = await start(stateDir);
    const second = await start(stateDir);

    const refused = await second.server.loggedMsg('booking sandbox: cannot start');
    expect(refused.msg).toContain(`STATE_DIR ${stateDir} is in use by process ${first.server.child.pid} on `);
    expect(refused.msg).toContain('Stop the other server, or give this one a STATE_DIR of its own');

    const answer = await fetch(`${second.url}/v1/activities?locale=de_CH`);
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { error: unknown }).error).toMatchObject({ code: 'BOOKING_UNAVAILABLE', details: { reason: 'state_dir_in_use' } });
    expect((await fetch(`${first.url}/v1/activities?locale=de_CH`)).status).toBe(200);
  });
});
