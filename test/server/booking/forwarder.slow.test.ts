/**
 * The booking interface of a real cluster (WORKERS=2, `node --import tsx server/main.ts`) over
 * the tiny snapshot: what a worker passes to the primary and what it refuses itself.
 */

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let cluster: ServerProcess;
let port: number;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  cluster = startServerProcess({ WORKERS: '2', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), BOOKING_MODE: 'sandbox', BOOKING_RATE_LIMIT: '0' });
  port = (await cluster.loggedMsg('2 workers listening')).port as number;
});

afterAll(async () => {
  cluster.child.kill('SIGTERM');
  await cluster.exited;
  await snapshot.remove();
});

/**
 * Sends a request (`Connection: close`) as raw bytes on a connection of its own and reads whatever
 * comes back until the server closes it; a write the server no longer reads is not an error here.
 */
function exchange(head: string, body: Buffer, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (data) => (received += data));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    socket.write(head);
    if (chunked) {
      for (let at = 0; at < body.length; at += 65_536) {
        const chunk = body.subarray(at, at + 65_536);
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
      }
      socket.write('0\r\n\r\n');
    } else {
      socket.write(body);
    }
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

describe('a cluster worker passing /v1 to the primary', () => {
  it('answers 413, never 500, to bodies over the limit, declared or chunked', async () => {
    const declared = Buffer.alloc(300_000, 'x');
    const chunked = Buffer.alloc(2_000_000, 'x');
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () =>
        exchange(`POST /v1/reservations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared.length}\r\nConnection: close\r\n\r\n`, declared, false),
      ),
      ...Array.from({ length: 8 }, () =>
        exchange('POST /v1/reservations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n', chunked, true),
      ),
    ]);
    const statuses = answers.map(statusOf);
    expect(statuses.filter((status) => status !== 0 && status !== 413)).toEqual([]);
    expect(statuses.filter((status) => status === 413).length).toBeGreaterThan(0);
    const answered = answers.find((answer) => statusOf(answer) === 413)!;
    expect(JSON.parse(answered.slice(answered.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'The body is over 65536 bytes', details: { limitBytes: 65536 } },
    });
    expect(cluster.lines.filter((line) => line.msg === 'booking: the primary process did not answer')).toEqual([]);
  });

  it('still passes a body within the limit to the primary', async () => {
    const answer = await exchange('POST /v1/reservations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n', Buffer.from('{}'), false);
    expect(statusOf(answer)).toBe(400);
    expect(answer).toContain('"field":"activityId"');
  });
});
