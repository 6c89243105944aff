/**
 * Peer: graphql-yoga 5 on node:http (https://the-guild.dev/graphql/yoga-server/docs), as its
 * production docs set it up: no GraphiQL, no landing page, errors masked (the default); with
 * RESPONSE_CACHE=1 its response-cache plugin, global (no session), for every query
 * (https://the-guild.dev/graphql/yoga-server/docs/features/response-caching).
 *
 *   node --import tsx bench/peers/yoga.ts     env: see bench/peers/serve.ts
 */

import http from 'node:http';
import { useResponseCache } from '@graphql-yoga/plugin-response-cache';
import { createYoga } from 'graphql-yoga';
import { announceReady, loadServed, PEER_CACHE_TTL_S, PEER_GRAPHQL_PATH, readPeerEnv } from './serve.ts';

const env = readPeerEnv();
const { schema, context } = await loadServed(env.dataDir);
const yoga = createYoga({
  schema,
  context: () => context,
  graphqlEndpoint: PEER_GRAPHQL_PATH,
  graphiql: false,
  landingPage: false,
  // Every answer is public: one cache entry per document and variables, for every client.
  plugins: env.responseCache ? [useResponseCache({ session: () => null, ttl: PEER_CACHE_TTL_S * 1000 })] : [],
});
const server = http.createServer(yoga);
server.listen(env.port, env.host, () => announceReady('graphql-yoga', `http://${env.host}:${env.port}`));
