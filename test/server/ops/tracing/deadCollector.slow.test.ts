/**
 * Tracing against a collector that is down, with the real server as a process: failed exports
 * are logged, one line per interval with their count, and a shutdown exports what is left only
 * within what remains of SHUTDOWN_GRACE_MS, alone and as a cluster (WORKERS=2), instead of
 * waiting out the exporter's own timeout and retries.
 */

import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStateDir } from '../../../helpers/api.ts';
import { startServerProcess, type LogLine } from '../../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

const GRACE_MS = 1500;
/** What docs/operations.md allows past the grace period for the last log lines and the exit. */
const EXIT_MARGIN_MS = 1000;
/** Room for a loaded machine to schedule the processes, beyond what the server promises. */
const SCHEDULING_MS = 1500;
const FAILED = 'tracing: span exports failed';
const CUT_SHORT = 'tracing: the spans still buffered were not exported within the grace period';

let snapshot: TinySnapshot;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
});

afterAll(async () => {
  await snapshot.remove();
});

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function linesOf(lines: LogLine[], prefix: string): LogLine[] {
  return lines.filter((line) => String(line.msg).startsWith(prefix));
}

/** Sends SIGTERM and resolves with the exit code and the time to exit, in ms. */
async function stop(child: ReturnType<typeof startServerProcess>): Promise<{ code: number | null; exitMs: number }> {
  const signalledAt = performance.now();
  child.child.kill('SIGTERM');
  const [code] = await child.exited;
  return { code, exitMs: performance.now() - signalledAt };
}

describe('tracing against a collector that is down', () => {
  it.each([1, 2])('exits within the grace period when the collector accepts and never answers (WORKERS=%i)', async (workers) => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    const port = await listen(silent);
    const server = startServerProcess({
      WORKERS: String(workers),
      DATA_DIR: snapshot.dir,
      STATE_DIR: tempStateDir(),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    try {
      const { port: apiPort } = await server.loggedMsg(workers === 1 ? 'listening' : `${workers} workers listening`);
      for (let i = 0; i < 3; i++) await (await fetch(`http://127.0.0.1:${apiPort}/api/graphql?query=${encodeURIComponent('{ types { id } }')}`)).arrayBuffer();
      const { code, exitMs } = await stop(server);
      expect(code).toBe(0);
      expect(exitMs).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS + SCHEDULING_MS);
      // Every process that had spans buffered says it left them.
      expect(linesOf(server.lines, CUT_SHORT).length).toBeGreaterThanOrEqual(1);
    } finally {
      server.child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('logs failed exports once per interval with their count, and the rest at shutdown', async () => {
    const server = startServerProcess({
      DATA_DIR: snapshot.dir,
      STATE_DIR: tempStateDir(),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '200',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const { port } = await server.loggedMsg('listening');
      const query = `http://127.0.0.1:${port}/api/graphql?query=${encodeURIComponent('{ types { id } }')}`;
      await (await fetch(query)).arrayBuffer();
      await server.loggedMsg(FAILED);
      // More batches, each failing, within the interval: no line more until the shutdown.
      for (let i = 0; i < 10; i++) {
        await (await fetch(query)).arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const during = linesOf(server.lines, FAILED);
      expect(during).toHaveLength(1);
      expect(during[0]).toMatchObject({ level: 'warn', failedExports: 1, lostSpans: expect.any(Number), intervalMs: 60_000, err: expect.any(String) });
      const { code, exitMs } = await stop(server);
      expect(code).toBe(0);
      expect(exitMs).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS + SCHEDULING_MS);
      const all = linesOf(server.lines, FAILED);
      expect(all).toHaveLength(2);
      expect(all[1]!.failedExports).toBeGreaterThanOrEqual(1);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
