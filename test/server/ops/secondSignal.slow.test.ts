/**
 * A second Ctrl-C during a drain with nothing in flight, on a real cluster (`node dist/server.mjs`,
 * the bundle, WORKERS=2), as `tsx watch` passes on the one the terminal also sends the
 * process group: the server exits 0.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});

afterAll(() => snapshot.remove());

describe('a second SIGINT while draining with no request in flight', () => {
  it('with WORKERS=2 exits 0, not as a failed drain', async () => {
    const server = startServerProcess({ WORKERS: '2', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() });
    await server.loggedMsg('2 workers listening');
    server.child.kill('SIGINT');
    await server.loggedMsg('draining: telling every worker');
    server.child.kill('SIGINT');
    const [code] = await server.exited;
    expect(code).toBe(0);
    expect(server.lines.map((line) => line.msg)).not.toContain('stopped: a worker did not drain in time');
  });
});
