/**
 * Peer: graphql-http's node:http handler over plain graphql-js (https://github.com/graphql/graphql-http),
 * the reference implementation of GraphQL over HTTP: no JIT, no caches. It has no response cache,
 * so RESPONSE_CACHE=1 runs it as it is.
 *
 *   node --import tsx bench/peers/graphqlHttp.ts     env: see bench/peers/serve.ts
 */

import http from 'node:http';
import type { OperationContext } from 'graphql-http';
import { createHandler } from 'graphql-http/lib/use/http';
import { announceReady, loadServed, PEER_GRAPHQL_PATH, readPeerEnv } from './serve.ts';

const env = readPeerEnv();
const { schema, context } = await loadServed(env.dataDir);
// graphql-http's context is a plain record: the same store, under the same key.
const operationContext: OperationContext = { ...context };
const handler = createHandler({ schema, context: () => operationContext });
const server = http.createServer((req, res) => {
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== PEER_GRAPHQL_PATH) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: the GraphQL path is ${PEER_GRAPHQL_PATH}`);
    return;
  }
  handler(req, res);
});
server.listen(env.port, env.host, () => announceReady('graphql-http', `http://${env.host}:${env.port}`));
