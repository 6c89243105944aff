/**
 * The server's single entry: load the snapshot → build the indexes → wire the schema → listen.
 * `npm start` runs this file; tests start the same server through {@link startServer}.
 */

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Config, ConfigError, readConfig } from './config.ts';
import { createHttpServer } from './http.ts';
import { loadSnapshot, SnapshotError } from './load.ts';
import { resolvers } from './resolvers/index.ts';
import { sampleQueries } from './sampleQueries.ts';
import { createSchema, readSdl } from './schema.ts';
import { createStore } from './store.ts';

export interface RunningServer {
  readonly server: Server;
  /** Base URL, e.g. `http://127.0.0.1:4000`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Loads the snapshot in `config.dataDir`, builds its indexes and starts listening.
 *
 * @throws SnapshotError when the snapshot is missing or broken; Error when the SDL and the
 *   resolvers disagree or the port cannot be bound
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const sdl = readSdl();
  const schema = createSchema(sdl, resolvers);
  const startedAt = performance.now();
  const store = createStore(await loadSnapshot(config.dataDir, schema));
  const counts = Object.entries(store.locales['de-CH']).map(([area, { records }]) => `${area} ${records.length}`);
  console.log(`snapshot ${store.snapshot.version} from ${path.resolve(config.dataDir)} ready in ${Math.round(performance.now() - startedAt)} ms (de-CH: ${counts.join(', ')})`);

  const server = createHttpServer({
    schema,
    sdl,
    context: () => ({ store }),
    allowedOrigins: config.allowedOrigins,
    sampleQueries: () => sampleQueries(store),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const running = await startServer(readConfig());
    console.log(`GraphQL API at ${running.url}/api/graphql (playground in a browser), schema at ${running.url}/api/schema`);
  } catch (error) {
    // A bad snapshot or setting is the operator's to fix: say what, without a stack trace.
    const expected = error instanceof SnapshotError || error instanceof ConfigError;
    console.error(`cannot start: ${expected ? (error as Error).message : ''}`, expected ? '' : error);
    process.exit(1);
  }
}
