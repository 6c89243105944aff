/**
 * Peer: Apollo Server 5 (https://www.apollographql.com/docs/apollo-server/) with its standalone
 * node:http server, as its production docs set it up: NODE_ENV=production (introspection off),
 * no landing page, no usage reporting, CSRF prevention on (the default). With RESPONSE_CACHE=1
 * its full-response cache plugin, with a default cache hint on every field so that answers are
 * cacheable, the SDL carrying no @cacheControl of its own
 * (https://www.apollographql.com/docs/apollo-server/performance/caching).
 *
 *   node --import tsx bench/peers/apollo.ts     env: see bench/peers/serve.ts
 */

import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginUsageReportingDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import responseCachePlugin from '@apollo/server-plugin-response-cache';
import type { Context } from '../../server/resolvers/context.ts';
import { announceReady, loadServed, PEER_CACHE_TTL_S, readPeerEnv } from './serve.ts';

const env = readPeerEnv();
const { schema, context } = await loadServed(env.dataDir);
const server = new ApolloServer<Context>({
  schema,
  plugins: [
    ApolloServerPluginLandingPageDisabled(),
    ApolloServerPluginUsageReportingDisabled(),
    ...(env.responseCache ? [ApolloServerPluginCacheControl({ defaultMaxAge: PEER_CACHE_TTL_S }), responseCachePlugin()] : []),
  ],
});
// The standalone server answers on every path, /api/graphql included.
const { url } = await startStandaloneServer(server, { listen: { port: env.port, host: env.host }, context: async () => context });
announceReady('Apollo Server', url.replace(/\/$/, ''));
