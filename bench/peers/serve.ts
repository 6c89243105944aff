/**
 * What every peer process shares: the same schema.graphql, resolvers (server/resolvers) and
 * snapshot as the real server, loaded the way server/main.ts loads them, and the start-up
 * protocol of the raw twin (bench/raw.ts): PORT and HOST from the environment, `ready` on the IPC
 * channel once listening, exit when the channel closes (the harness is gone).
 *
 *   env: PORT, HOST (default 127.0.0.1), DATA_DIR (default data), RESPONSE_CACHE (0 or 1, default 0)
 */

import { createSchema, readSdl } from '../../server/execution/schema.ts';
import { resolvers } from '../../server/resolvers/index.ts';
import type { Context } from '../../server/resolvers/context.ts';
import { DEFAULT_SOURCE_TERMS } from '../../server/config/sourceTerms.ts';
import { servedTerms } from '../../server/resolvers/terms.ts';
import { loadSnapshot } from '../../server/snapshot/load.ts';
import { createStore } from '../../server/snapshot/store.ts';
import { zurichDay } from '../../server/util/zurichDay.ts';
import type { GraphQLSchema } from 'graphql';

/** The GraphQL path every peer serves, as the real server does, so that one request fits all. */
export const PEER_GRAPHQL_PATH = '/api/graphql';

/**
 * How long a peer's response cache keeps an answer, in seconds: longer than any run, since the
 * snapshot a peer serves never changes while it runs.
 */
export const PEER_CACHE_TTL_S = 3600;

/** A peer's settings, read from its environment. */
export interface PeerEnv {
  port: number;
  host: string;
  dataDir: string;
  responseCache: boolean;
}

/**
 * @throws Error naming the variable and what it allows, for a bad PORT or RESPONSE_CACHE
 */
export function readPeerEnv(env: NodeJS.ProcessEnv = process.env): PeerEnv {
  const port = Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT="${env.PORT ?? ''}": expected a port number`);
  const cache = env.RESPONSE_CACHE ?? '0';
  if (cache !== '0' && cache !== '1') throw new Error(`RESPONSE_CACHE="${cache}": expected 0 or 1`);
  return { port, host: env.HOST ?? '127.0.0.1', dataDir: env.DATA_DIR ?? 'data', responseCache: cache === '1' };
}

/** The executable schema and the context every request gets, over the snapshot in `dataDir`. */
export async function loadServed(dataDir: string): Promise<{ schema: GraphQLSchema; context: Context }> {
  const schema = createSchema(readSdl(), resolvers);
  const store = createStore(await loadSnapshot(dataDir, schema));
  // The day a peer starts on: a bench run is minutes long, and its answers match the server's that day.
  return { schema, context: { store, today: zurichDay(Date.now()), terms: servedTerms(DEFAULT_SOURCE_TERMS, store.snapshot.manifest.fixture !== undefined) } };
}

/**
 * Tells the harness that the peer listens, and leaves with it. Without an IPC channel (started by
 * hand) it only logs where it listens.
 */
export function announceReady(name: string, url: string): void {
  if (process.send) {
    process.on('disconnect', () => process.exit(0));
    process.send('ready');
  } else {
    console.log(`${name} listening on ${url}${PEER_GRAPHQL_PATH}`);
  }
}
