/**
 * A hot reload of a poisoned version, under load, in a cluster of two workers (the bundle): a
 * version whose checksums are right but whose records break the limits every record keeps
 * within, or share an id, is refused by each worker, naming the file, the record and the field
 * (or the id), while every request keeps its answer from the version served.
 */

import { createHash } from 'node:crypto';
import { cp, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_LIMITS, type FileEntry, type Manifest } from '../../../sync/format.ts';
import { tempStateDir } from '../../helpers/api.ts';
import { startServerProcess, type ServerProcess } from '../../helpers/serverProcess.ts';
import { createTinySnapshot, type TinySnapshot } from '../../helpers/tinySnapshot.ts';

let snapshot: TinySnapshot;
let server: ServerProcess;
let url: string;
/** The manifest of the version served throughout: each poisoned version is a copy of it. */
let served: Manifest;

beforeAll(async () => {
  snapshot = await createTinySnapshot();
  served = snapshot.manifest;
  server = startServerProcess({ WORKERS: '2', DATA_DIR: snapshot.dir, STATE_DIR: tempStateDir() });
  url = `http://127.0.0.1:${(await server.loggedMsg('2 workers listening')).port}`;
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await snapshot.remove();
});

/**
 * Publishes version `version` as a copy of the served one whose de-CH tours are `edit`ed, with
 * the checksums and counts the manifest needs: what a broken or hostile writer could put there.
 * @returns the path of the tours file, as the server names it
 */
async function publishPoisoned(version: string, edit: (records: Record<string, unknown>[]) => void): Promise<string> {
  const manifest = served;
  await cp(path.join(snapshot.dir, manifest.version), path.join(snapshot.dir, version), { recursive: true });
  const text = JSON.stringify(manifest).replaceAll(`"${manifest.version}/`, `"${version}/`);
  const next = JSON.parse(text) as Manifest;
  next.version = version;
  const entry: FileEntry = next.sources.tours!.locales['de-CH']!.tours!;
  const file = path.join(snapshot.dir, entry.file);
  const records = JSON.parse(gunzipSync(await readFile(file)).toString('utf8'));
  edit(records);
  const bytes = gzipSync(JSON.stringify(records));
  await writeFile(file, bytes);
  entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  entry.count = records.length;
  const manifestPath = path.join(snapshot.dir, 'manifest.json');
  await writeFile(`${manifestPath}.tmp`, JSON.stringify(next));
  await rename(`${manifestPath}.tmp`, manifestPath);
  return file;
}

/** Queries tours without pause until `until` settles; every answer must be the served version's. */
async function underLoad(until: Promise<unknown>): Promise<{ answered: number; failed: string[] }> {
  let done = false;
  void until.finally(() => (done = true));
  let answered = 0;
  const failed: string[] = [];
  const client = async () => {
    while (!done) {
      const response = await fetch(`${url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ tours(limit: 3) { data { id abstract } } }' }),
      });
      const body = (await response.json()) as { data?: { tours: { data: { abstract: string | null }[] } }; errors?: unknown };
      if (response.status !== 200 || body.errors || body.data!.tours.data.length !== 3) failed.push(`${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      else answered++;
    }
  };
  await Promise.all([client(), client(), client(), client(), until]);
  return { answered, failed };
}

/** Resolves once both workers have logged a refusal more than so far. */
function refusedByBoth(): Promise<unknown> {
  const refusal = (line: { msg?: unknown }) => typeof line.msg === 'string' && line.msg.startsWith('new snapshot refused');
  const seen = server.lines.filter(refusal).length;
  // The test sees every line, those logged so far first.
  let count = 0;
  return server.logged((line) => refusal(line) && ++count >= seen + 2, 'both workers refusing the version');
}

describe('a cluster reloading a poisoned version under load', () => {
  it('refuses a record with a string past the limit, naming the file, the record and the field, and keeps answering from the served version', async () => {
    const refused = refusedByBoth();
    const file = await publishPoisoned('2026-11-22T04-00-00Z', (records) => {
      records[0]!.abstract = 'x'.repeat(8 * RECORD_LIMITS.maxStringChars);
    });
    const { answered, failed } = await underLoad(refused);
    expect(failed).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    const lines = server.lines.filter((line) => line.msg?.startsWith('new snapshot refused, still serving 2026-11-21T04-00-00Z'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)!.msg).toMatch(new RegExp(`${escape(file)}: record 0 \\(id "[^"]+"\\): field "abstract": ${8 * RECORD_LIMITS.maxStringChars} characters, at most ${RECORD_LIMITS.maxStringChars} allowed$`));
  });

  it('refuses two records sharing an id, naming the file and the id', async () => {
    const refused = refusedByBoth();
    let id = '';
    const file = await publishPoisoned('2026-11-23T04-00-00Z', (records) => {
      id = records[0]!.id as string;
      records[1] = { ...records[1]!, id };
    });
    const { failed } = await underLoad(refused);
    expect(failed).toEqual([]);
    // The refusals of the version before may be logged after this one's began: find this one's.
    const expected = `${file}: records 0 and 1 share the id ${JSON.stringify(id)}; each id may appear once in a file`;
    const refusals = server.lines.filter((line) => line.msg?.startsWith('new snapshot refused, still serving 2026-11-21T04-00-00Z'));
    expect(refusals.some((line) => line.msg!.includes(expected)), refusals.map((line) => line.msg).join('\n')).toBe(true);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
