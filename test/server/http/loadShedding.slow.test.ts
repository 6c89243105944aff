/**
 * Load shedding on the real process (the bundle), over the committed fixture snapshot: fifty
 * requests in parallel, each of as many aliased searches with a random 200-letter q as the
 * cost limit lets through (thirty are refused by their cost before they run), while
 * /healthz is read all along. Requests past SHED_EVENT_LOOP_DELAY_MS get 503 OVERLOADED with
 * Retry-After, the shedding is counted in /metrics, and every /healthz is answered.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR, tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';

/** The liveness probe's timeoutSeconds in deploy/k8s/deployment.yaml, in ms. */
const LIVENESS_TIMEOUT_MS = 3000;
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  server = startServerProcess({ WORKERS: '1', DATA_DIR, STATE_DIR: tempStateDir(), SHED_EVENT_LOOP_DELAY_MS: '100', RESPONSE_CACHE: 'false' });
  url = `http://127.0.0.1:${(await server.loggedMsg('listening on')).port}`;
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

/** Aliased searches, each with a q of 200 random letters: as many as MAX_COST lets through. */
function expensiveSearch(): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz ';
  const q = () => Array.from({ length: 200 }, () => letters[Math.floor(Math.random() * letters.length)]).join('');
  return `{ ${Array.from({ length: 4 }, (_, i) => `s${i}: search(q: ${JSON.stringify(q())}, limit: 5) { total }`).join(' ')} }`;
}

describe('a server flooded with expensive searches', () => {
  it('sheds what the event loop cannot take with 503 OVERLOADED, counts it, and answers /healthz all along', { timeout: 300_000 }, async () => {
    let done = false;
    const healthMs: number[] = [];
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        const response = await fetch(`${url}/healthz`);
        expect(response.status).toBe(200);
        await response.text();
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const response = await fetch(`${url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: expensiveSearch() }) });
        return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { errors?: { extensions: { code: string } }[] } };
      }),
    );
    done = true;
    await probe;
    const shed = answers.filter((answer) => answer.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors![0]!.extensions.code).toBe('OVERLOADED');
    }
    for (const answer of answers.filter((a) => a.status !== 503)) expect(answer.status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain(`http_requests_shed_total{route="/api/graphql"} ${shed.length}`);
    expect(healthMs.length).toBeGreaterThan(0);
    // Within the liveness probe's timeout (timeoutSeconds in deploy/k8s/deployment.yaml): the
    // probe waits for the request running when it arrives, never for the flood behind it.
    expect(Math.max(...healthMs)).toBeLessThan(LIVENESS_TIMEOUT_MS);
  });
});
