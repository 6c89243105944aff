/**
 * A short, bounded load test on loopback (`npm run test:load`, also run by .ci/run): the real
 * server process over the committed fixture snapshot gets ~20 s of mixed valid and hostile
 * requests from 16 concurrent clients. It fails (exit 1) when any valid request fails, when a
 * hostile request is not refused as expected, when /healthz (read all along on a connection of
 * its own) takes longer than MAX_HEALTH_MS at any point, or when memory grows: the live heap and the RSS
 * of the last seconds are compared with those right after warm-up. The live heap is the lowest
 * heap-used reading of a window (a reading right after a full collection); the server runs with
 * a bounded old space so that V8 collects every few seconds rather than every 15 to 30, and a
 * leak would also end in an out-of-memory crash. It runs one process (WORKERS=1), so the memory
 * readings always come from the process that served the load. The caches that grow with new
 * requests are bounded to 1 MiB each (CACHE_BYTES), so that they are full before the warm-up
 * ends: near-me with a random point is a new response every time, and the response cache's
 * default 64 MiB, filling through the whole run, read as growth on a fast machine.
 *
 * Settings (environment): LOAD_DURATION_S (default 20), LOAD_WARMUP_S (6), LOAD_CONCURRENCY (16),
 * LOAD_MAX_OLD_SPACE_MB (256).
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { hashQuery } from '../../server/http/graphql/persistedQueries.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DURATION_S = Number(process.env.LOAD_DURATION_S ?? 20);
const WARMUP_S = Number(process.env.LOAD_WARMUP_S ?? 6);
const CONCURRENCY = Number(process.env.LOAD_CONCURRENCY ?? 16);
const MAX_OLD_SPACE_MB = Number(process.env.LOAD_MAX_OLD_SPACE_MB ?? 256);
/** Length of the windows whose lowest readings are compared, in seconds. */
const WINDOW_S = 5;
/**
 * The longest /healthz may take at any point of the run, in ms: the readiness probe's timeout in
 * deploy/k8s/, past which a replica leaves the Service (and, a second later, past the liveness
 * timeout, is restarted). Answers within the event loop's slices would allow a far lower bound;
 * the server slices its GeoJSON answers, not yet its longest GraphQL ones.
 */
const MAX_HEALTH_MS = 2000;
/** Requests shed with 503 OVERLOADED (server/http/loadShedding.ts): an answer, not a failure. */
const shedCount = { value: 0 };

/**
 * The byte bound of the response, record bytes and persisted-query caches: small enough that
 * the warm-up fills them, so what grows after it is not a cache still filling.
 */
const CACHE_BYTES = String(2 ** 20);

/** Allowed growth from warm-up to the end: a factor plus a constant, per measure. */
const HEAP_TOLERANCE = { factor: 1.2, bytes: 8 * 2 ** 20 };
const RSS_TOLERANCE = { factor: 1.2, bytes: 32 * 2 ** 20 };

interface Sample {
  name: string;
  query: string;
  variables: Record<string, unknown>;
}

type Kind = 'valid' | 'hostile';

interface Outcome {
  ok: boolean;
  detail?: string;
}

/** One kind of request: how to send it, and what a correct answer is. */
interface Scenario {
  name: string;
  kind: Kind;
  weight: number;
  run: (base: string, agent: Agent) => Promise<Outcome>;
}

// A seeded generator (mulberry32), so every run sends the same sequence.
let seed = 0x5eed;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

async function main(): Promise<void> {
  const server = spawn(process.execPath, [`--max-old-space-size=${MAX_OLD_SPACE_MB}`, '--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'production', WORKERS: '1', RESPONSE_CACHE_BYTES: CACHE_BYTES, RECORD_CACHE_BYTES: CACHE_BYTES, APQ_CACHE_BYTES: CACHE_BYTES, STATE_DIR: mkdtempSync(path.join(tmpdir(), 'load-state-')) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg?.startsWith('listening')) resolve(entry.port!);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });

  try {
    const samples = (await (await request(`${base}/api/schema?format=queries`, { dispatcher: agent })).body.json()) as Sample[];
    const scenarios = createScenarios(samples);
    const totalWeight = scenarios.reduce((sum, scenario) => sum + scenario.weight, 0);
    const choose = () => {
      let point = random() * totalWeight;
      for (const scenario of scenarios) if ((point -= scenario.weight) < 0) return scenario;
      return scenarios[scenarios.length - 1]!;
    };

    const counts = new Map<string, { sent: number; failed: number; firstFailure?: string }>();
    const latenciesMs: number[] = [];
    const memory: { atS: number; heapUsed: number; rss: number }[] = [];
    const startedAt = performance.now();
    const elapsedS = () => (performance.now() - startedAt) / 1000;

    // The liveness probe's view: /healthz read all along, on a connection of its own.
    const probeAgent = new Agent({ connections: 1 });
    const healthMs: number[] = [];
    const prober = (async () => {
      while (elapsedS() < DURATION_S) {
        const sentAt = performance.now();
        await (await request(`${base}/healthz`, { dispatcher: probeAgent })).body.text();
        healthMs.push(performance.now() - sentAt);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const sampler = (async () => {
      while (elapsedS() < DURATION_S) {
        memory.push({ atS: elapsedS(), ...(await readMemory(base, agent)) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    const clients = Array.from({ length: CONCURRENCY }, async () => {
      while (elapsedS() < DURATION_S) {
        const scenario = choose();
        const sentAt = performance.now();
        let outcome: Outcome;
        try {
          outcome = await scenario.run(base, agent);
        } catch (error) {
          outcome = { ok: false, detail: `${(error as Error).name}: ${(error as Error).message}` };
        }
        if (scenario.kind === 'valid') latenciesMs.push(performance.now() - sentAt);
        const count = counts.get(scenario.name) ?? { sent: 0, failed: 0 };
        count.sent++;
        if (!outcome.ok) {
          count.failed++;
          count.firstFailure ??= outcome.detail;
        }
        counts.set(scenario.name, count);
      }
    });
    await Promise.all([...clients, sampler, prober]);
    await probeAgent.close();

    const byKind = (kind: Kind) =>
      scenarios
        .filter((scenario) => scenario.kind === kind)
        .reduce(
          (total, scenario) => {
            const count = counts.get(scenario.name);
            return { sent: total.sent + (count?.sent ?? 0), failed: total.failed + (count?.failed ?? 0) };
          },
          { sent: 0, failed: 0 },
        );
    const valid = byKind('valid');
    const hostile = byKind('hostile');
    latenciesMs.sort((a, b) => a - b);
    const percentile = (p: number) => Math.round(latenciesMs[Math.min(latenciesMs.length - 1, Math.floor((p / 100) * latenciesMs.length))]! * 10) / 10;

    // The live heap is what a collection leaves: the lowest reading of a window.
    const window = (fromS: number, toS: number) => memory.filter((m) => m.atS >= fromS && m.atS <= toS);
    const baseline = window(WARMUP_S - WINDOW_S, WARMUP_S);
    const end = window(DURATION_S - WINDOW_S, DURATION_S + 1);
    const minOf = (readings: typeof memory, key: 'heapUsed' | 'rss') => Math.min(...readings.map((m) => m[key]));
    const heap = { warm: minOf(baseline, 'heapUsed'), end: minOf(end, 'heapUsed') };
    const rss = { warm: minOf(baseline, 'rss'), end: minOf(end, 'rss') };
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

    console.log(`load test: ${DURATION_S} s, ${CONCURRENCY} clients, ${base}`);
    for (const scenario of scenarios) {
      const count = counts.get(scenario.name);
      console.log(
        `  ${scenario.kind.padEnd(7)} ${scenario.name.padEnd(34)} ${String(count?.sent ?? 0).padStart(6)} sent ${String(count?.failed ?? 0).padStart(4)} failed${count?.firstFailure ? `  (${count.firstFailure})` : ''}`,
      );
    }
    console.log(`  valid:   ${valid.sent} requests, ${valid.failed} failed, ${Math.round(valid.sent / DURATION_S)}/s, latency p50 ${percentile(50)} ms, p99 ${percentile(99)} ms`);
    console.log(`  hostile: ${hostile.sent} requests, ${hostile.failed} not refused as expected`);
    console.log(`  shed (503 OVERLOADED): ${shedCount.value}`);
    console.log(`  /healthz: ${healthMs.length} reads, longest ${Math.round(Math.max(...healthMs))} ms`);
    console.log(`  heap used (live): ${mb(heap.warm)} after warm-up, ${mb(heap.end)} at the end`);
    console.log(`  rss:              ${mb(rss.warm)} after warm-up, ${mb(rss.end)} at the end`);

    const problems: string[] = [];
    if (valid.sent === 0 || hostile.sent === 0) problems.push('no requests were sent');
    if (valid.failed > 0) problems.push(`${valid.failed} valid requests failed`);
    if (hostile.failed > 0) problems.push(`${hostile.failed} hostile requests were not refused as expected`);
    if (Math.max(...healthMs) > MAX_HEALTH_MS) problems.push(`/healthz took ${Math.round(Math.max(...healthMs))} ms, more than ${MAX_HEALTH_MS} ms`);
    if (heap.end > heap.warm * HEAP_TOLERANCE.factor + HEAP_TOLERANCE.bytes) problems.push(`live heap grew from ${mb(heap.warm)} to ${mb(heap.end)}`);
    if (rss.end > rss.warm * RSS_TOLERANCE.factor + RSS_TOLERANCE.bytes) problems.push(`RSS grew from ${mb(rss.warm)} to ${mb(rss.end)}`);
    if (problems.length > 0) {
      console.error(`load test FAILED: ${problems.join('; ')}`);
      process.exitCode = 1;
    } else {
      console.log('load test passed');
    }
  } finally {
    await agent.close();
    server.kill('SIGTERM');
    const [code] = await once(server, 'exit');
    if (code !== 0) {
      console.error(`server exited with ${code} after SIGTERM`);
      process.exitCode = 1;
    }
  }
}

async function readMemory(base: string, agent: Agent): Promise<{ heapUsed: number; rss: number }> {
  const text = await (await request(`${base}/metrics`, { dispatcher: agent })).body.text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { heapUsed: value('nodejs_heap_size_used_bytes'), rss: value('process_resident_memory_bytes') };
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

async function send(agent: Agent, url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const response = await request(url, { dispatcher: agent, method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const encoding = response.headers['content-encoding'];
  const body = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
  return { status: response.statusCode, body: body.toString('utf8'), headers: response.headers };
}

const post = (agent: Agent, base: string, payload: unknown) =>
  send(agent, `${base}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });

/** A 200 answer with data and without errors. */
function isData(answer: Answer): Outcome {
  if (isShed(answer)) return { ok: true };
  if (answer.status !== 200) return { ok: false, detail: `status ${answer.status}: ${answer.body.slice(0, 200)}` };
  const body = JSON.parse(answer.body) as { data?: unknown; errors?: unknown };
  return body.errors === undefined && body.data ? { ok: true } : { ok: false, detail: answer.body.slice(0, 200) };
}

/** A 503 OVERLOADED, counted: the server shed the request while its event loop was late, or (GeoJSON) while too many answers waited to be built. */
function isShed(answer: Answer): boolean {
  if (answer.status !== 503 || !answer.body.includes('"OVERLOADED"')) return false;
  shedCount.value++;
  return true;
}

/** Random letters and spaces, as a hostile search box sends them. */
function randomText(length: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz ';
  return Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join('');
}

/** A refusal: the status, and the code of the first error. */
function isRefused(answer: Answer, status: number, code: string): Outcome {
  // Shed before it was looked at is refused as well.
  if (isShed(answer)) return { ok: true };
  const body = JSON.parse(answer.body) as { errors?: { extensions?: { code?: string } }[] };
  const actual = body.errors?.[0]?.extensions?.code;
  return answer.status === status && actual === code ? { ok: true } : { ok: false, detail: `status ${answer.status}, code ${actual}` };
}

function createScenarios(samples: Sample[]): Scenario[] {
  const etags = new Map<string, string>();
  const attractionFields = 'id name abstract description url latitude longitude locality postalCode seasons images';
  const queryUrl = (base: string, sample: Sample) =>
    `${base}/api/graphql?query=${encodeURIComponent(sample.query)}&variables=${encodeURIComponent(JSON.stringify(sample.variables))}`;

  return [
    { name: 'sample query (POST)', kind: 'valid', weight: 30, run: async (base, agent) => isData(await post(agent, base, pick(samples))) },
    {
      name: 'sample query (GET, compressed)',
      kind: 'valid',
      weight: 15,
      run: async (base, agent) => {
        const sample = pick(samples);
        const answer = await send(agent, queryUrl(base, sample), { headers: { 'accept-encoding': pick(['br', 'gzip', 'gzip, deflate, br']) } });
        if (typeof answer.headers.etag === 'string') etags.set(sample.name, answer.headers.etag);
        return isData(answer);
      },
    },
    {
      name: 'conditional GET (If-None-Match)',
      kind: 'valid',
      weight: 10,
      run: async (base, agent) => {
        const sample = pick(samples);
        const etag = etags.get(sample.name);
        const answer = await send(agent, queryUrl(base, sample), { headers: etag ? { 'if-none-match': etag } : {} });
        // The ETag hashes the body, which may differ by meta.responseTimeMs: 200 is correct too.
        return answer.status === 304 ? { ok: true } : isData(answer);
      },
    },
    {
      name: 'persisted query (GET by hash)',
      kind: 'valid',
      weight: 10,
      run: async (base, agent) => {
        const sample = pick(samples);
        const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hashQuery(sample.query) } });
        const url = `${base}/api/graphql?extensions=${encodeURIComponent(extensions)}&variables=${encodeURIComponent(JSON.stringify(sample.variables))}`;
        let answer = await send(agent, url);
        if (answer.status === 200 && answer.body.includes('PERSISTED_QUERY_NOT_FOUND')) {
          answer = await post(agent, base, { query: sample.query, variables: sample.variables, extensions: JSON.parse(extensions) });
        }
        return isData(answer);
      },
    },
    {
      name: 'search and near-me',
      kind: 'valid',
      weight: 10,
      run: async (base, agent) =>
        isData(
          await post(agent, base, {
            query: 'query Q($q: String, $lat: Float, $lng: Float) { tours(q: $q, nearLat: $lat, nearLng: $lng, radiusKm: 40, limit: 10) { total data { id name distance_km } } attractions(q: $q, limit: 5) { total data { id name } } }',
            variables: { q: pick(['zurich', 'Gruyere', 'zermatt', 'lac', 'berg', 'Sils']), lat: 46 + random() * 1.5, lng: 6.5 + random() * 3 },
          }),
        ),
    },
    {
      name: 'status, health, schema',
      kind: 'valid',
      weight: 3,
      run: async (base, agent) => {
        const answer = await send(agent, `${base}${pick(['/api/status', '/healthz', '/readyz', '/api/schema', '/'])}`);
        return answer.status === 200 ? { ok: true } : { ok: false, detail: `status ${answer.status}` };
      },
    },
    {
      name: 'body over 100 KB',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, { query: '{ types { id } }', variables: { pad: 'x'.repeat(120_000) } }), 413, 'PAYLOAD_TOO_LARGE'),
    },
    { name: 'malformed JSON', kind: 'hostile', weight: 3, run: async (base, agent) => isRefused(await post(agent, base, '{"query": "{ types { id } }"'), 400, 'BAD_REQUEST') },
    {
      name: 'batch of 50',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, Array.from({ length: 50 }, () => ({ query: '{ types { id } }' }))), 400, 'BAD_REQUEST'),
    },
    {
      name: 'token bomb',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, { query: `{ ${'__typename '.repeat(3000)}}` }), 200, 'QUERY_TOO_COMPLEX'),
    },
    {
      name: 'depth bomb',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, { query: `{ ${'types { '.repeat(200)}id${' }'.repeat(200)} }` }), 200, 'QUERY_TOO_COMPLEX'),
    },
    {
      name: 'cost bomb under aliases',
      kind: 'hostile',
      weight: 3,
      run: async (base, agent) =>
        isRefused(
          await post(agent, base, { query: `{ ${Array.from({ length: 8 }, (_, i) => `a${i}: attractions(limit: 500) { data { ${attractionFields} } }`).join(' ')} }` }),
          200,
          'QUERY_TOO_COMPLEX',
        ),
    },
    {
      name: 'raw JSON under aliases',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) =>
        isRefused(
          await post(agent, base, { query: `{ ${Array.from({ length: 30 }, (_, i) => `s${i}: snowdataStations(limit: 500, offset: ${i}) { data { raw } }`).join(' ')} }` }),
          200,
          'RESPONSE_TOO_LARGE',
        ),
    },
    {
      name: '__schema fragment bypass',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) =>
        isRefused(
          await post(agent, base, {
            query: `{ ...__schema } fragment __schema on Query { ${Array.from({ length: 12 }, (_, i) => `a${i}: tours(limit: 500) { data { id name abstract landscapes views } }`).join(' ')} }`,
          }),
          200,
          'QUERY_TOO_COMPLEX',
        ),
    },
    {
      name: 'introspection recursion',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, { query: '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }' }), 200, 'QUERY_TOO_COMPLEX'),
    },
    {
      name: 'repeated fields',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => isRefused(await post(agent, base, { query: `{ types { ${'id '.repeat(1800)}} }` }), 200, 'QUERY_TOO_COMPLEX'),
    },
    {
      name: 'thirty long searches',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => {
        const query = `{ ${Array.from({ length: 30 }, (_, i) => `s${i}: search(q: ${JSON.stringify(randomText(200))}, limit: 5) { total }`).join(' ')} }`;
        return isRefused(await post(agent, base, { query }), 200, 'QUERY_TOO_COMPLEX');
      },
    },
    {
      name: 'long searches within the cost',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => {
        const query = `{ ${Array.from({ length: 4 }, (_, i) => `s${i}: search(q: ${JSON.stringify(randomText(200))}, limit: 5) { total }`).join(' ')} }`;
        return isData(await post(agent, base, { query }));
      },
    },
    {
      name: 'GeoJSON of every tour',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) => {
        const answer = await send(agent, `${base}/api/geojson/tours?limit=5000`);
        if (isShed(answer)) return { ok: true };
        return answer.status === 200 && answer.body.includes('"FeatureCollection"') ? { ok: true } : { ok: false, detail: `status ${answer.status}: ${answer.body.slice(0, 200)}` };
      },
    },
    {
      name: 'unknown persisted query',
      kind: 'hostile',
      weight: 2,
      run: async (base, agent) =>
        isRefused(
          await send(agent, `${base}/api/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hashQuery(String(random())) } }))}`),
          200,
          'PERSISTED_QUERY_NOT_FOUND',
        ),
    },
  ];
}

await main();
