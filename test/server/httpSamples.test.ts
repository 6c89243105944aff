/**
 * Every sample query of /api/schema?format=queries over real HTTP, against a small snapshot cut
 * from the committed fixture (the samples name its first records):
 * the bytes the server sends, computed by graphql-js, by graphql-jit, written from the record bytes
 * cache or taken from the response cache, are those of plain graphql-js executing the query in
 * this process.
 */

import { execute, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeadline, startDeadline } from '../../server/execution/deadline.ts';
import { resolvers } from '../../server/resolvers/index.ts';
import type { SampleQuery } from '../../server/ops/sampleQueries.ts';
import { createSchema, readSdl } from '../../server/execution/schema.ts';
import { startTestApi, type TestApi } from '../helpers/api.ts';
import { createSmallSnapshot } from '../helpers/smallSnapshot.ts';
import type { TinySnapshot } from '../helpers/tinySnapshot.ts';

const schema = withDeadline(createSchema(readSdl(), resolvers));

/** `meta.responseTimeMs` is the one value two executions may differ in. */
const withoutTimes = (text: string) => text.replace(/"responseTimeMs":\d+/g, '"responseTimeMs":0');

async function post(api: TestApi, sample: SampleQuery): Promise<string> {
  const response = await fetch(`${api.server.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: sample.query, variables: sample.variables, operationName: sample.name }),
  });
  expect(response.status, sample.name).toBe(200);
  return response.text();
}

function plainGraphqlJs(api: TestApi, sample: SampleQuery): string {
  const result = execute({
    schema,
    document: parse(sample.query),
    variableValues: sample.variables,
    operationName: sample.name,
    contextValue: api.server.holder.served.context,
    rootValue: startDeadline(2000),
  });
  return withoutTimes(JSON.stringify(result));
}

async function samplesOf(api: TestApi): Promise<SampleQuery[]> {
  return (await (await fetch(`${api.server.url}/api/schema?format=queries`)).json()) as SampleQuery[];
}

describe('every sample query over HTTP', () => {
  let cached: TestApi;
  let uncached: TestApi;
  let executing: TestApi;
  let small: TinySnapshot;

  beforeAll(async () => {
    small = await createSmallSnapshot();
    const DATA_DIR = small.dir;
    [cached, uncached, executing] = await Promise.all([
      startTestApi({ DATA_DIR }),
      startTestApi({ DATA_DIR, RESPONSE_CACHE: '0' }),
      startTestApi({ DATA_DIR, RESPONSE_CACHE: '0', RECORD_CACHE: '0' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([cached.close(), uncached.close(), executing.close()]);
    await small.remove();
  });

  async function recordCacheBytes(api: TestApi): Promise<number> {
    const metrics = await (await fetch(`${api.server.url}/metrics`)).text();
    return Number(/^graphql_record_cache_bytes (\d+)$/m.exec(metrics)?.[1]);
  }

  it('answers as plain graphql-js does, then from the response cache with the very same bytes', async () => {
    const samples = await samplesOf(cached);
    expect(samples.length).toBeGreaterThanOrEqual(15);
    for (const sample of samples) {
      const first = await post(cached, sample);
      expect(withoutTimes(first), sample.name).toBe(plainGraphqlJs(cached, sample));
      expect(await post(cached, sample), sample.name).toBe(first);
    }
  });

  it('answers as plain graphql-js does without the response cache: written, then copied from the record bytes cache', async () => {
    for (const sample of await samplesOf(uncached)) {
      const expected = plainGraphqlJs(uncached, sample);
      for (let run = 1; run <= 3; run++) expect(withoutTimes(await post(uncached, sample)), `${sample.name}, run ${run}`).toBe(expected);
    }
    expect(await recordCacheBytes(uncached)).toBeGreaterThan(0);
  });

  it('answers as plain graphql-js does without either cache, on graphql-js and then compiled', async () => {
    for (const sample of await samplesOf(executing)) {
      const expected = plainGraphqlJs(executing, sample);
      for (let run = 1; run <= 3; run++) expect(withoutTimes(await post(executing, sample)), `${sample.name}, run ${run}`).toBe(expected);
    }
    expect(await recordCacheBytes(executing)).toBe(0);
  });
});
