/**
 * Graceful shutdown of the real process: `node dist/server.mjs`, the bundle, signalled while a
 * request is in flight (its body is sent slowly, so it is still being received when the signal
 * arrives).
 */

import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess } from '../../helpers/serverProcess.ts';

let snapshot: TinySnapshot;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});

afterAll(() => snapshot.remove());

/** A server process, its log lines as they arrive, and its port once it listens. */
async function startProcess(env: Record<string, string>) {
  // One process: test/server/ops/cluster.slow.test.ts drains a cluster.
  const server = startServerProcess({ WORKERS: '1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), ...env });
  const port = (await server.loggedMsg('listening')).port as number;
  return { ...server, port };
}

/** Opens a raw connection and collects what the server sends. */
async function open(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (data) => (received += data));
  return { socket, received: () => received, closed: once(socket, 'close') };
}

const QUERY_BODY = JSON.stringify({ query: '{ types { id title } }' });
const queryHead = `POST /api/graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(QUERY_BODY)}\r\n\r\n`;

describe('SIGTERM', () => {
  it('fails readiness, finishes the request in flight, refuses new connections and exits 0', async () => {
    const server = await startProcess({ SHUTDOWN_GRACE_MS: '10000' });
    const connection = await open(server.port);
    // The request is in flight: its headers and half of its body have arrived.
    connection.socket.write(queryHead + QUERY_BODY.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));

    server.child.kill('SIGTERM');
    expect(await server.loggedMsg('draining')).toMatchObject({ signal: 'SIGTERM', inFlight: 1, graceMs: 10_000 });

    const refused = connect(server.port, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');

    // The rest of the body, then a readiness probe on the same connection.
    connection.socket.write(QUERY_BODY.slice(10) + 'GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const [code] = await server.exited;
    await connection.closed;

    const responses = connection.received().split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(responses[0]).toMatch(/\r\n\r\n\{"data":\{"types":\[\{"id":"type-0","title":"Canyoning"\}/);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(responses[1]).toMatch(/Connection: close\r\n/i);
    expect(responses[1]).toMatch(/\r\n\r\n\{"status":"draining"\}$/);
    expect(code).toBe(0);
    expect(server.lines.map((line) => line.msg)).toContain('drained: exiting');
    expect(server.lines.find((line) => line.msg === 'request' && line.path === '/api/graphql')).toMatchObject({ status: 200 });
  });

  it('exits 0 at once when nothing is in flight, on SIGINT too', async () => {
    const server = await startProcess({});
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);
    const signalledAt = performance.now();
    server.child.kill('SIGINT');
    const [code] = await server.exited;
    expect(code).toBe(0);
    expect(performance.now() - signalledAt).toBeLessThan(2000);
  });

  it('closes a request that does not finish within the grace period and exits 1', async () => {
    const server = await startProcess({ SHUTDOWN_GRACE_MS: '300' });
    const connection = await open(server.port);
    connection.socket.write(queryHead + QUERY_BODY.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signalledAt = performance.now();
    server.child.kill('SIGTERM');
    const [code] = await server.exited;
    await connection.closed;
    expect(code).toBe(1);
    expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(250);
    expect(connection.received()).toBe('');
    expect(server.lines.find((line) => line.msg.startsWith('grace period over'))).toMatchObject({ level: 'warn', inFlight: 1 });
  });
});
