/**
 * MAX_RESPONSE_BYTES through the real server: an answer estimated larger is refused before it is
 * built, one that grows larger anyway is refused while it is written, and the response cache keeps no
 * answer that would push out a large part of it. The estimate made again after a hot reload is
 * in responseSize.slow.test.ts.
 */

import { getOperationAST, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../server/config/config.ts';
import { estimateAnswerBytes } from '../../server/execution/limits.ts';
import { createLogger } from '../../server/ops/log.ts';
import { resolvers } from '../../server/resolvers/index.ts';
import { createSchema, readSdl } from '../../server/execution/schema.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import { DATA_DIR, readArea, IN_PROCESS, tempStateDir } from '../helpers/api.ts';

const schema = createSchema(readSdl(), resolvers);

interface Answer {
  status: number;
  text: string;
  body: { data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function post(server: RunningServer, query: string): Promise<Answer> {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

/** The code and message of each error. */
const refusal = (answer: Answer) => answer.body.errors?.map((error) => [error.extensions?.code, error.message]);

function start(env: Record<string, string>): Promise<RunningServer> {
  return startServer(readConfig({ ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR, STATE_DIR: tempStateDir(), ...env }), createLogger('silent'));
}

describe('over the fixture snapshot, with the default limit', () => {
  let running: RunningServer;
  beforeAll(async () => {
    // The smallest response cache, whose sixteenth is 4 KiB.
    running = await start({ RESPONSE_CACHE_BYTES: '65536' });
  });
  afterAll(() => running.close());

  const stationsRaw = (aliases: number) =>
    `{ ${Array.from({ length: aliases }, (_, i) => `s${i}: snowdataStations(limit: 500, offset: ${i}) { data { raw } }`).join(' ')} }`;

  it("refuses thirty aliases of a page of stations' raw JSON, under the cost limit, before building them", async () => {
    const answer = await post(running, stationsRaw(30));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toBeUndefined();
    expect(refusal(answer)).toEqual([
      ['RESPONSE_TOO_LARGE', expect.stringMatching(/^The answer would be about [\d,]+ bytes, more than the limit of 4,194,304 bytes \(MAX_RESPONSE_BYTES\); ask for fewer items or fields$/)],
    ]);
    // Well under the limit of bytes, it was refused for them and not for its cost.
    expect(answer.text.length).toBeLessThan(1000);
  });

  it("answers one page of every station's raw JSON, which fits", async () => {
    const answer = await post(running, stationsRaw(1));
    expect(answer.body.errors).toBeUndefined();
    expect((answer.body.data!.s0 as { data: unknown[] }).data).toHaveLength(readArea('de-CH', 'stations').length);
  });

  async function cacheHits(): Promise<number> {
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    return Number(/^graphql_response_cache_lookups_total\{result="hit"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
  }

  it('keeps no answer larger than a sixteenth of the response cache in it, and keeps smaller ones', async () => {
    const large = '{ tours(limit: 40) { data { id name abstract } } }';
    const first = await post(running, large);
    expect(first.text.length).toBeGreaterThan(4096);
    const hits = await cacheHits();
    expect((await post(running, large)).text).toBe(first.text);
    expect(await cacheHits()).toBe(hits);
    const small = '{ types(locale: "en-CH") { id } }';
    await post(running, small);
    await post(running, small);
    expect(await cacheHits()).toBe(hits + 1);
  });
});

describe('an answer larger than its estimate', () => {
  const maxBytes = 4096;
  // The attraction with the longest description: far above the average the estimate counts.
  const longest = readArea('de-CH', 'attractions').reduce((a, b) => ((b.description ?? '').length > (a.description ?? '').length ? b : a));
  const query = `{ attraction(id: "${longest.id}") { id description } }`;
  let running: RunningServer;
  beforeAll(async () => {
    running = await start({ MAX_RESPONSE_BYTES: String(maxBytes) });
  });
  afterAll(() => running.close());

  it('is estimated below the limit and is larger than it', () => {
    const document = parse(query);
    const estimate = estimateAnswerBytes(schema, document, getOperationAST(document)!, {}, running.holder.store.sizes);
    expect(estimate).toBeLessThan(maxBytes);
    expect(Buffer.byteLength(JSON.stringify({ data: { attraction: { id: longest.id, description: longest.description } } }))).toBeGreaterThan(maxBytes);
  });

  it.each([
    ['written from the records', query],
    // A directive leaves the answer to execution (graphql-js, then graphql-jit) and jsonBytes.
    ['executed', query.replace('description', 'description @include(if: true)')],
  ])('is refused while it is written (%s), every time, and never sent', async (_, text) => {
    for (let i = 0; i < 3; i++) {
      const answer = await post(running, text);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toBeUndefined();
      expect(refusal(answer)).toEqual([['RESPONSE_TOO_LARGE', 'The answer is larger than the limit of 4,096 bytes (MAX_RESPONSE_BYTES); ask for fewer items or fields']]);
    }
  });

  it('is refused as well when answered as the template of its literals, built from another attraction', async () => {
    const other = readArea('de-CH', 'attractions').find((record) => (record.description ?? '').length < 500)!;
    const shape = (id: string) => `{ attraction(id: "${id}") { name description } }`;
    expect((await post(running, shape(other.id))).body.errors).toBeUndefined();
    const answer = await post(running, shape(longest.id));
    expect(refusal(answer)).toEqual([['RESPONSE_TOO_LARGE', 'The answer is larger than the limit of 4,096 bytes (MAX_RESPONSE_BYTES); ask for fewer items or fields']]);
  });

  it('leaves answers within the limit as they were', async () => {
    const answer = await post(running, `{ attraction(id: "${longest.id}") { id name } }`);
    expect(answer.body).toEqual({ data: { attraction: { id: longest.id, name: longest.name } } });
  });
});
