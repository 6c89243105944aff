import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER = path.join(ROOT, 'server');

/**
 * The rooms of server/, lowest first: a file may import its own folder and any folder of a lower
 * rank, never one of the same rank or higher. `main.ts`, the composition root, sits above all.
 */
const RANKS: Readonly<Record<string, number>> = {
  util: 0,
  config: 1,
  search: 2,
  snapshot: 3,
  resolvers: 4,
  execution: 5,
  http: 6,
  ops: 7,
  booking: 7,
  'main.ts': 8,
};

/** The one module of sync/ the server may import: the snapshot format, which does no I/O. */
const SYNC_FORMAT = 'sync/format.ts';

/** The tracing setup shared with sync/ (it imports no folder of the repository). */
const TRACING = 'tracing/';

/** Every .ts file under a directory, as paths relative to it with forward slashes. */
function tsFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${prefix}${entry.name}`;
    if (entry.isDirectory()) return tsFiles(path.join(dir, entry.name), `${relative}/`);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The room of a file under server/: its first folder, or the file itself at the top. */
function roomOf(file: string): string {
  return file.split('/')[0]!;
}

/** Every module specifier a file imports or re-exports, type-only and dynamic imports included. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SERVER, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
}

/** Each import of server/ that breaks a rule of the rooms, in words naming the file, the import and the rule. */
function violations(): string[] {
  const found: string[] = [];
  for (const file of tsFiles(SERVER)) {
    const room = roomOf(file);
    const rank = RANKS[room];
    if (rank === undefined) {
      found.push(`server/${file}: is in no known folder (known: ${Object.keys(RANKS).join(', ')})`);
      continue;
    }
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.relative(ROOT, path.resolve(SERVER, path.dirname(file), specifier)).split(path.sep).join('/');
      if (!target.startsWith('server/')) {
        if (target !== SYNC_FORMAT && !target.startsWith(TRACING)) {
          found.push(`server/${file}: imports '${specifier}' (${target}); outside server/ it may import only ${SYNC_FORMAT} and ${TRACING}`);
        }
        continue;
      }
      const imported = target.slice('server/'.length);
      const importedRoom = roomOf(imported);
      if (importedRoom === room) continue;
      const importedRank = RANKS[importedRoom];
      if (importedRank !== undefined && importedRank < rank) continue;
      const below = Object.keys(RANKS).filter((other) => RANKS[other]! < rank);
      found.push(
        `server/${file}: imports '${specifier}' (server/${imported}); a file in ${room}/ may import only its own folder` +
          (below.length > 0 ? ` and ${below.join(', ')}` : ''),
      );
    }
  }
  return found;
}

describe('the rooms of server/', () => {
  it('each file imports only its own folder and the folders below it, of sync/ only the format, and tracing/', () => {
    expect(violations()).toEqual([]);
  });

  it('every top-level entry of server/ has a rank', () => {
    const entries = readdirSync(SERVER).filter((name) => !name.endsWith('.md'));
    expect(entries.filter((name) => RANKS[name] === undefined)).toEqual([]);
  });
});
