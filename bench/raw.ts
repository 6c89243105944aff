/**
 * The raw node:http twin of a benchmark scenario: the speed of the machine that the real
 * server's req/s are divided by. It answers every request with the bytes the real server gave
 * for the same method, path and body (fetched once by bench/run.ts), with the same status and
 * content-type, and does nothing else.
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
  contentType: string;
  /** The response body, base64. */
  body: string;
}

/** The lookup key of a request: method, path and body. */
export function answerKey(method: string, path: string, requestBody: string): string {
  return `${method} ${path}\n${requestBody}`;
}

/**
 * Creates the twin's server, not yet listening.
 * @param answers what to send per request; a request not among them gets a 404
 */
export function createRawServer(answers: readonly RawAnswer[]): http.Server {
  const byKey = new Map<string, { status: number; headers: Record<string, string | number>; body: Buffer }>();
  for (const answer of answers) {
    const body = Buffer.from(answer.body, 'base64');
    byKey.set(answerKey(answer.method, answer.path, answer.requestBody), {
      status: answer.status,
      headers: { 'content-type': answer.contentType, 'content-length': body.length },
      body,
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
