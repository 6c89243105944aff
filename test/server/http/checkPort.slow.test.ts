/**
 * A port in use, on the real process (`node dist/server.mjs`, the bundle): the start stops
 * before the snapshot is loaded, with a message naming PORT, in one process and in a cluster.
 */

import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let taken: Server;
let port: number;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  port = (taken.address() as AddressInfo).port;
});

afterAll(async () => {
  taken.close();
  await snapshot.remove();
});

describe('a server started on a port in use', () => {
  it.each(['1', '2'])('with WORKERS=%s exits 1 before loading the snapshot, naming PORT', async (workers) => {
    const server = startServerProcess({ WORKERS: workers, PORT: String(port), DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() });
    const [code] = await server.exited;
    expect(code).toBe(1);
    expect(server.lines.map((line) => line.msg)).toEqual([`cannot start: PORT=${port}: 127.0.0.1:${port} is already in use by another process; stop it, or set PORT to a free port`]);
  });
});
