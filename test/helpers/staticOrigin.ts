/**
 * A snapshot origin on loopback: a node:http server serving a directory as a static host or a
 * bucket does (ETag from the bytes, 304 to a matching If-None-Match, 404 for what is missing),
 * that can be stopped and started again on the same port, and told to break off one path's
 * body midway, as a dropped connection does.
 */

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface StaticOrigin {
  /** Base URL ending in `/`, e.g. `http://127.0.0.1:40123/`. */
  readonly url: string;
  /** Paths requested so far, in order, with their status. */
  readonly requests: { path: string; status: number }[];
  /** Sends half of this path's body (with the whole Content-Length) and closes the connection, until cleared. */
  truncate(relative: string | null): void;
  /** Stops listening and drops every connection; requests then fail to connect. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Serves `dir` on 127.0.0.1 (port 0, kept across stop and start). */
export async function serveStaticOrigin(dir: string): Promise<StaticOrigin> {
  let truncated: string | null = null;
  const requests: { path: string; status: number }[] = [];
  const server = http.createServer(async (req, res) => {
    const relative = decodeURIComponent(new URL(req.url ?? '/', 'http://origin').pathname).slice(1);
    const file = path.join(dir, relative);
    let bytes: Buffer;
    try {
      if (!file.startsWith(dir + path.sep)) throw new Error('outside');
      bytes = await fs.readFile(file);
    } catch {
      requests.push({ path: relative, status: 404 });
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;
    if (req.headers['if-none-match'] === etag) {
      requests.push({ path: relative, status: 304 });
      res.writeHead(304, { etag }).end();
      return;
    }
    requests.push({ path: relative, status: 200 });
    res.writeHead(200, { etag, 'content-length': bytes.length, 'content-type': 'application/octet-stream' });
    if (relative === truncated) {
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
      return;
    }
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    truncate: (relative) => void (truncated = relative),
    stop,
    start: () => new Promise<void>((resolve, reject) => server.listen(port, '127.0.0.1', resolve).once('error', reject)),
    close: stop,
  };
}
