/**
 * The raw node:http twin of a benchmark scenario: the speed of the machine that the real
 * server's req/s are divided by. It answers every request with the response the real server gave
 * for the same method, path and body (captured once by {@link captureAnswer}): the same status,
 * the same headers, in their order and case, and the same body, and does nothing else. Only what
 * node:http writes on its own (Date, Connection, Keep-Alive) is left for it to write, as it
 * writes them for the real server.
 *
 *   node --import tsx bench/raw.ts <answers.json>     env: PORT, HOST, WORKERS (default 1)
 *
 * With WORKERS > 1 it runs that many node:cluster workers behind the port, like the real
 * server's WORKERS setting. Started by bench/run.ts with an IPC channel: it sends `ready` once
 * every worker listens, and exits when the channel closes (the harness is gone).
 */

import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** One request of a scenario and the real server's answer to it. */
export interface RawAnswer {
  method: string;
  path: string;
  /** The request body; empty for a GET. */
  requestBody: string;
  status: number;
  /**
   * The answer's headers as the real server sent them, names and values in turn (node:http's
   * `rawHeaders`), less {@link NODE_WRITTEN_HEADERS}. A request id is sent as it was captured.
   */
  headers: string[];
  /** The response body, base64. */
  body: string;
}

/** Headers node:http writes on its own for both servers (lower case), so not replayed. */
export const NODE_WRITTEN_HEADERS: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The lookup key of a request: method, path and body. */
export function answerKey(method: string, path: string, requestBody: string): string {
  return `${method} ${path}\n${requestBody}`;
}

/**
 * Sends one request to the real server and keeps its answer for the twin.
 * @param url the server's origin, e.g. `http://127.0.0.1:4000`
 * @param request the path with its query string, the request headers, and the body of a POST
 *   ('' for a GET)
 */
export function captureAnswer(
  url: string,
  request: { method: string; path: string; headers: Record<string, string>; body: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    // node:http rather than fetch: fetch's Headers give names in lower case and sorted.
    const req = http.request(new URL(request.path, url), { method: request.method, headers: request.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (!NODE_WRITTEN_HEADERS.has(res.rawHeaders[i]!.toLowerCase())) headers.push(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        }
        resolve({
          method: request.method,
          path: request.path,
          requestBody: request.body,
          status: res.statusCode!,
          headers,
          body: Buffer.concat(chunks).toString('base64'),
        });
      });
    });
    req.on('error', reject);
    req.end(request.method === 'POST' ? request.body : undefined);
  });
}

/**
 * Creates the twin's server, not yet listening.
 * @param answers what to send per request; a request not among them gets a 404
 */
export function createRawServer(answers: readonly RawAnswer[]): http.Server {
  const byKey = new Map<string, { status: number; headers: string[]; body: Buffer }>();
  for (const answer of answers) {
    byKey.set(answerKey(answer.method, answer.path, answer.requestBody), {
      status: answer.status,
      headers: answer.headers,
      body: Buffer.from(answer.body, 'base64'),
    });
  }
  return http.createServer((req, res) => {
    // The body is read in full, as the real server must, to tell the requests of a mix apart.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = byKey.get(answerKey(req.method ?? '', req.url ?? '', Buffer.concat(chunks).toString('utf8')));
      if (answer === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not a request of this scenario');
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const workers = Number(process.env.WORKERS ?? '1');
  const port = Number(process.env.PORT);
  const host = process.env.HOST ?? '127.0.0.1';
  const file = process.argv[2];
  if (!file) throw new Error('usage: bench/raw.ts <answers.json>');
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`WORKERS="${process.env.WORKERS}": expected an integer >= 1`);
  if (!Number.isInteger(port) || port < 1) throw new Error(`PORT="${process.env.PORT}": expected a port number`);
  const listen = (onListening: () => void) => {
    const answers = JSON.parse(fs.readFileSync(file, 'utf8')) as RawAnswer[];
    createRawServer(answers).listen(port, host, onListening);
  };

  if (!cluster.isPrimary) {
    listen(() => {});
  } else {
    // Without the harness nobody stops us: leave with it.
    process.on('disconnect', () => process.exit(0));
    if (workers === 1) {
      listen(() => process.send?.('ready'));
    } else {
      let listening = 0;
      cluster.on('listening', () => {
        if (++listening === workers) process.send?.('ready');
      });
      cluster.on('exit', (_worker, code) => {
        console.error(`raw twin worker exited with ${code}`);
        process.exit(1);
      });
      for (let i = 0; i < workers; i++) cluster.fork();
    }
  }
}
