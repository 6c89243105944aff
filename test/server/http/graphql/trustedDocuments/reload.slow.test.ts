/**
 * The trusted documents follow their manifest file: a new manifest is served once written, and
 * one that fails the checks is refused, logged with the file and the operation, while the
 * documents served stay. Waits on file watching, so it is a slow test.
 */

import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../../../../server/config/config.ts';
import { hashQuery } from '../../../../../server/http/graphql/persistedQueries.ts';
import { startServer, type RunningServer } from '../../../../../server/main.ts';
import { createLogger } from '../../../../../server/ops/log.ts';
import { IN_PROCESS, tempStateDir } from '../../../../helpers/api.ts';
import { createTinySnapshot, type TinySnapshot } from '../../../../helpers/tinySnapshot.ts';

const TYPES = 'query Types { types { id } }';
const LOCATIONS = 'query Locations { locations { id } }';
const BROKEN = 'query Broken { locations { id colour } }';

let snapshot: TinySnapshot;
let dir: string;
let manifest: string;
let server: RunningServer;
const logs: Record<string, any>[] = [];

/** Replaces the manifest as a deploy does: a new file renamed over the old one. */
async function publish(documents: Record<string, string>): Promise<void> {
  const next = `${manifest}.next`;
  await writeFile(next, JSON.stringify(documents));
  await rename(next, manifest);
}

/** The status and first error code (or 'ok') of a request for a documentId. */
async function ask(query: string): Promise<string> {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ documentId: hashQuery(query) }),
  });
  const body = (await response.json()) as { errors?: { extensions: { code: string } }[] };
  return body.errors ? body.errors[0]!.extensions.code : 'ok';
}

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  dir = await mkdtemp(path.join(tmpdir(), 'trusted-reload-'));
  manifest = path.join(dir, 'persisted-documents.json');
  await publish({ [hashQuery(TYPES)]: TYPES });
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const env = { ...IN_PROCESS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir(), PERSISTED_DOCUMENTS: manifest, PERSISTED_DOCUMENTS_ONLY: 'true' };
  server = await startServer(readConfig(env), logger);
});

afterAll(async () => {
  await server?.close();
  await snapshot?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('reloading the trusted documents', () => {
  it('serves the documents of a manifest written after the start', async () => {
    expect([await ask(TYPES), await ask(LOCATIONS)]).toEqual(['ok', 'PERSISTED_QUERY_NOT_FOUND']);
    await publish({ [hashQuery(TYPES)]: TYPES, [hashQuery(LOCATIONS)]: LOCATIONS });
    await vi.waitFor(async () => expect(await ask(LOCATIONS)).toBe('ok'), { timeout: 30_000, interval: 100 });
    expect(logs.find((line) => line.msg === 'trusted documents reloaded: 2 documents')).toMatchObject({ level: 'info', files: [manifest], documents: 2 });
  });

  it('keeps the documents served when a new manifest fails the checks, and logs the file and the operation', async () => {
    await publish({ [hashQuery(BROKEN)]: BROKEN });
    const refused = await vi.waitFor(
      () => {
        const line = logs.find((candidate) => String(candidate.msg).startsWith('trusted documents not reloaded'));
        expect(line).toBeDefined();
        return line!;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(refused).toMatchObject({ level: 'error', files: [manifest] });
    expect(refused.msg).toBe(
      `trusted documents not reloaded, still serving the previous ones: ${manifest}: operation "Broken" (id ${hashQuery(BROKEN)}): Cannot query field "colour" on type "Location".`,
    );
    expect([await ask(TYPES), await ask(LOCATIONS), await ask(BROKEN)]).toEqual(['ok', 'ok', 'PERSISTED_QUERY_NOT_FOUND']);
  });
});
