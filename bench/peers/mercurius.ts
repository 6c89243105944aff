/**
 * Peer: mercurius on fastify (https://mercurius.dev/), with its JIT on (graphql-jit after the
 * first use of a document), no GraphiQL. With RESPONSE_CACHE=1, mercurius-cache, the caching its
 * docs offer (https://github.com/mercurius-js/cache): it caches what each Query field's resolver
 * returns, not whole responses, for every Query field.
 *
 *   node --import tsx bench/peers/mercurius.ts     env: see bench/peers/serve.ts
 */

import Fastify, { type FastifyPluginAsync } from 'fastify';
import mercurius from 'mercurius';
import mercuriusCacheModule, { type MercuriusCacheOptions } from 'mercurius-cache';
import { announceReady, loadServed, PEER_CACHE_TTL_S, PEER_GRAPHQL_PATH, readPeerEnv } from './serve.ts';

// A CommonJS package whose types declare an ES default export: Node.js gives module.exports,
// which is the plugin itself.
const mercuriusCache = mercuriusCacheModule as unknown as FastifyPluginAsync<MercuriusCacheOptions>;

const env = readPeerEnv();
const { schema, context } = await loadServed(env.dataDir);
const app = Fastify({ logger: false });
await app.register(mercurius, { schema, path: PEER_GRAPHQL_PATH, graphiql: false, jit: 1, context: () => context });
if (env.responseCache) await app.register(mercuriusCache, { ttl: PEER_CACHE_TTL_S, all: true });
const url = await app.listen({ port: env.port, host: env.host });
announceReady('mercurius', url);
