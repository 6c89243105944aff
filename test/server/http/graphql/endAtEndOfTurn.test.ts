import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endAtEndOfTurn } from '../../../../server/http/graphql/endAtEndOfTurn.ts';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  if (server?.listening) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A loopback server whose handler is `handle`; resolves its base URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('endAtEndOfTurn', () => {
  it('ends the response at the end of the turn, not before', async () => {
    const seen: { endedAtOnce: boolean; endedByCheckPhase: boolean }[] = [];
    const url = await serve((_req, res) => {
      endAtEndOfTurn(res.writeHead(200, { 'content-type': 'text/plain' }), Buffer.from('answer'));
      const endedAtOnce = res.writableEnded;
      setImmediate(() => seen.push({ endedAtOnce, endedByCheckPhase: res.writableEnded }));
    });
    const response = await fetch(url);
    expect(await response.text()).toBe('answer');
    expect(seen).toEqual([{ endedAtOnce: false, endedByCheckPhase: true }]);
  });

  it('ends every answer of a busy turn, each with its own body', async () => {
    const url = await serve((req, res) => endAtEndOfTurn(res.writeHead(200), Buffer.from(`answer to ${req.url}`)));
    const paths = Array.from({ length: 40 }, (_, i) => `/${i}`);
    const bodies = await Promise.all(paths.map(async (path) => (await fetch(url + path)).text()));
    expect(bodies).toEqual(paths.map((path) => `answer to ${path}`));
  });

  it('loses no answer queued while the queue is being written, and survives a client that left', async () => {
    let first: ServerResponse | undefined;
    const url = await serve((req, res) => {
      res.writeHead(200);
      if (req.url === '/gone') {
        // The client is gone before the answer is written: end() on a destroyed response is a no-op.
        res.destroy();
        endAtEndOfTurn(res, Buffer.from('never read'));
        return;
      }
      if (req.url === '/first') {
        first = res;
        return;
      }
      // Queued while the queue is being written (by a listener of the first answer's end): it
      // must go out in a later turn, not be left behind until some other answer comes.
      first!.once('prefinish', () => endAtEndOfTurn(res, Buffer.from('second')));
      endAtEndOfTurn(first!, Buffer.from('first'));
    });
    await expect(fetch(`${url}/gone`)).rejects.toThrow();
    const firstAnswer = fetch(`${url}/first`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const secondAnswer = fetch(`${url}/second`);
    expect(await (await firstAnswer).text()).toBe('first');
    expect(await (await secondAnswer).text()).toBe('second');
  });
});
