/**
 * Hot reload in the server as it runs: from source under tsx, and from the esbuild bundle the
 * container runs (dist/server.mjs), where the reader thread is dist/loadWorker.mjs beside it.
 */

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleDist } from '../../helpers/bundle.ts';
import { publish } from '../../../sync/publish/publish.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';
import { snowdata } from '../../sync/helpers/records.ts';

/** Publishes a snapshot with `count` routes per locale as the sync would, on 2026-11-<day>. */
async function publishRoutes(dataDir: string, count: number, day: number): Promise<void> {
  const now = new Date(Date.UTC(2026, 10, day, 4));
  await publish({ dataDir, outcomes: { snowdata: { ok: true, fetched: snowdata(count, now.toISOString()) } }, now, force: true });
}

describe.each([
  ['from source under tsx', () => ['--import', 'tsx', 'server/main.ts']],
  ['from the bundle', () => [path.join(bundleDist(), 'server.mjs')]],
])('a server running %s', (_name, args) => {
  it('loads a newly published snapshot in its reader thread and swaps it in, logging how long the event loop waited', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'reload-process-'));
    let server: ServerProcess | undefined;
    try {
      await publishRoutes(dataDir, 10, 21);
      server = startServerProcess({ DATA_DIR: dataDir, STATE_DIR: tempStateDir(), WORKERS: '1' }, { args: args() });
      await server.loggedMsg('listening on');
      await publishRoutes(dataDir, 12, 22);
      const swapped = await server.loggedMsg('serving new snapshot 2026-11-22T04-00-00Z');
      expect(swapped.msg).toMatch(/reload done in \d+ ms, longest event-loop delay \d+ ms; \d+ of \d+ files loaded, the others unchanged \(their records and indexes kept\)$/);
      expect(swapped.longestDelayMs).toBeTypeOf('number');

      // A snapshot the reader thread refuses keeps the served one, with the same error as a load at startup.
      const manifestPath = path.join(dataDir, 'manifest.json');
      const manifest = JSON.parse(await fs.readFile(manifestPath, 'utf8'));
      const routes = manifest.sources.snowdata.locales['de-CH'].routes;
      routes.count += 1;
      manifest.version = 'broken';
      await fs.writeFile(`${manifestPath}.tmp`, JSON.stringify(manifest));
      await fs.rename(`${manifestPath}.tmp`, manifestPath);
      const refused = await server.loggedMsg('new snapshot refused, still serving 2026-11-22T04-00-00Z');
      expect(refused.msg).toContain(`${path.join(dataDir, routes.file)}: 12 records, expected 13`);
    } finally {
      server?.child.kill('SIGTERM');
      await server?.exited;
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
