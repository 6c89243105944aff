/**
 * The budget of the persisted-query store over real HTTP: tiny queries hold no more entries than
 * APQ_CACHE_BYTES pays for with the overhead of each entry counted.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../../server/config/config.ts';
import { ENTRY_OVERHEAD_BYTES, hashQuery } from '../../../../server/http/graphql/persistedQueries.ts';
import { startServer, type RunningServer } from '../../../../server/main.ts';
import { createLogger } from '../../../../server/ops/log.ts';
import { IN_PROCESS, tempStateDir } from '../../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../helpers/tinySnapshot.ts';

/** Entries the budget pays for, each counted as its overhead and a query of at most 32 bytes. */
const FITTING = 16;
let snapshot: TinySnapshot;
let running: RunningServer;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  const env = { ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), APQ_CACHE_BYTES: String(FITTING * (ENTRY_OVERHEAD_BYTES + 32)) };
  running = await startServer(readConfig(env), createLogger('silent'));
});

afterAll(async () => {
  await running.close();
  await snapshot.remove();
});

const extensions = (query: string) => encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hashQuery(query) } }));

/** Registers a query as Apollo's clients do: a GET with the query and its hash. */
async function register(query: string): Promise<unknown> {
  const response = await fetch(`${running.url}/api/graphql?query=${encodeURIComponent(query)}&extensions=${extensions(query)}`, { headers: { accept: 'application/json' } });
  return response.json();
}

/** Asks for a query by its hash alone. */
async function byHash(query: string): Promise<unknown> {
  return (await fetch(`${running.url}/api/graphql?extensions=${extensions(query)}`, { headers: { accept: 'application/json' } })).json();
}

describe('the persisted-query store', () => {
  it('keeps the most recent of many tiny queries, as many as the budget pays for with their overhead', async () => {
    const queries = Array.from({ length: 10 * FITTING }, (_, i) => `{ q${i}: __typename }`);
    for (const query of queries) expect(await register(query)).toEqual({ data: { [query.slice(2, query.indexOf(':'))]: 'Query' } });
    expect(await byHash(queries.at(-1)!)).toEqual({ data: { [`q${queries.length - 1}`]: 'Query' } });
    expect(await byHash(queries[0]!)).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect(await byHash(queries.at(-2 * FITTING)!)).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
  });
});
