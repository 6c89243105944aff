/**
 * The server's CPU time per document it has not seen, in process: the documents of a scenario
 * (default `unseen-documents`, each requested once) through the real request path, with the
 * server's own settings (the response cache off, as the peers' comparison runs it).
 *
 *   NODE_ENV=production node --import tsx bench/unseenCpu.ts [--scenario unseen-documents] [--mode http|engine] [--rounds 3]
 *
 * (NODE_ENV=production as the benchmark runs the server: graphql-js checks less in production.)
 * `http` (the default) starts the real HTTP service in this process and sends the requests from
 * a child process (so the client's CPU is not counted), 8 at a time on keep-alive connections;
 * `engine` calls the engine's `prepare` and the operation's `answer`, as the fast path does,
 * without HTTP. Each round sends every document once; the first round warms the code up and is
 * not counted. CPU time (user + system, `process.cpuUsage`) is what is reported, in µs per
 * document: the machine is shared, so wall time says little. Run it with `node --cpu-prof` to
 * see where that time goes.
 */

import { fork } from 'node:child_process';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { SCENARIOS, type BenchRequest, type Scenario } from './scenarios.ts';

/** Requests in flight at once in `http` mode. */
const CONCURRENCY = 8;

/** The documents of a scenario, and the CPU µs per document of each counted round. */
interface Rounds {
  documents: number;
  perDocument: number[];
}

/** CPU µs spent by this process since `start` (a `process.cpuUsage()` reading). */
function cpuSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return user + system;
}

/** The rounds of `engine` mode. */
async function engineRounds(scenario: Scenario, rounds: number): Promise<Rounds> {
  const { readConfig } = await import('../server/config/config.ts');
  const { readSdl, createSchema } = await import('../server/execution/schema.ts');
  const { resolvers } = await import('../server/resolvers/index.ts');
  const { loadSnapshot } = await import('../server/snapshot/load.ts');
  const { createStore } = await import('../server/snapshot/store.ts');
  const { SnapshotHolder } = await import('../server/http/snapshotHolder.ts');
  const { createEngine } = await import('../server/execution/engine.ts');
  const { createQueryChecker } = await import('../server/execution/limits.ts');
  const { startDeadline, withDeadline } = await import('../server/execution/deadline.ts');
  const { createRecordBytesCache } = await import('../server/execution/json/recordBytesCache.ts');
  const { formatError } = await import('../server/http/formatError.ts');
  const { sampleQueries } = await import('../server/ops/sampleQueries.ts');
  const config = readConfig({ ...process.env, RESPONSE_CACHE: '0' });
  const schema = createSchema(readSdl(), resolvers);
  const holder = new SnapshotHolder(createStore(await loadSnapshot(config.dataDir, schema, { readTimeoutMs: config.snapshotReadTimeoutMs })));
  const engine = createEngine({
    schema,
    executableSchema: withDeadline(schema),
    check: createQueryChecker(schema, config.limits, { introspection: config.introspection }),
    limits: config.limits,
    maxEntries: config.operationCacheSize,
    jit: config.jit,
    formatError,
  });
  const records = config.recordCacheBytes > 0 ? createRecordBytesCache(config.recordCacheBytes) : null;
  const requests = scenario.requests(sampleQueries(holder.store));
  const bodies = requests.map((request) => JSON.parse(request.body!) as { query: string; operationName?: string; variables?: Record<string, unknown> });
  const perDocument: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const start = process.cpuUsage();
    for (const body of bodies) {
      const served = holder.served;
      records?.use(served);
      const prepared = engine.prepare(body, served.sizes);
      if (prepared.errors) throw new Error(`refused: ${prepared.errors[0]!.message}`);
      const answer = await prepared.operation.answer(startDeadline(config.limits.executionTimeoutMs), served.context, body.variables, records);
      if (answer.errors) throw new Error(`answered with errors: ${answer.errors[0]!.message}`);
    }
    if (round > 0) perDocument.push(cpuSince(start) / bodies.length);
  }
  return { documents: bodies.length, perDocument };
}

/** The rounds of `http` mode. */
async function httpRounds(scenario: Scenario, rounds: number): Promise<Rounds> {
  const { readConfig } = await import('../server/config/config.ts');
  const { createLogger } = await import('../server/ops/log.ts');
  const { startServer } = await import('../server/main.ts');
  const { sampleQueries } = await import('../server/ops/sampleQueries.ts');
  const config = readConfig({ ...process.env, RESPONSE_CACHE: '0', WORKERS: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  const server = await startServer(config, createLogger('warn'));
  const requests = scenario.requests(sampleQueries(server.holder.store));
  const client = fork(new URL(import.meta.url), ['--client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const sendRound = () =>
    new Promise<void>((resolve, reject) => {
      client.once('message', (message: { failed?: string }) => (message.failed ? reject(new Error(message.failed)) : resolve()));
      client.send({ url: server.url, requests });
    });
  const perDocument: number[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      const start = process.cpuUsage();
      await sendRound();
      if (round > 0) perDocument.push(cpuSince(start) / requests.length);
    }
  } finally {
    client.disconnect();
    await server.close();
  }
  return { documents: requests.length, perDocument };
}

/**
 * The child of `http` mode: sends each round it is handed, {@link CONCURRENCY} at a time, with
 * node:http, which (unlike fetch) asks for no compression, as the benchmark's load generator.
 */
function serveAsClient(): void {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = (url: string, request: BenchRequest) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(url + request.path, { method: request.method, headers: request.headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(request.body);
    });
  process.on('message', async ({ url, requests }: { url: string; requests: BenchRequest[] }) => {
    let next = 0;
    let failed: string | undefined;
    const worker = async () => {
      while (next < requests.length && failed === undefined) {
        const { status, text } = await send(url, requests[next++]!);
        if (status !== 200 || text.includes('"errors"')) failed = `${status}: ${text.slice(0, 300)}`;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    process.send!(failed === undefined ? {} : { failed });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: 'unseen-documents' },
      mode: { type: 'string', default: 'http' },
      rounds: { type: 'string', default: '3' },
      client: { type: 'boolean', default: false },
    },
  });
  if (values.client) return serveAsClient();
  const scenario = SCENARIOS.find((candidate) => candidate.name === values.scenario);
  if (!scenario) throw new Error(`--scenario: "${values.scenario}" is none of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  if (values.mode !== 'http' && values.mode !== 'engine') throw new Error(`--mode: "${values.mode}" is neither http nor engine`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: "${values.rounds}" is not a whole number of at least 1`);
  const { documents, perDocument } = values.mode === 'http' ? await httpRounds(scenario, rounds) : await engineRounds(scenario, rounds);
  const shown = perDocument.map((us) => us.toFixed(0)).join(', ');
  console.log(`${scenario.name}, ${values.mode}: ${documents} documents × ${rounds} rounds; CPU µs per document: ${shown} (best ${Math.min(...perDocument).toFixed(0)})`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
