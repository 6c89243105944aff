import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The code of the repository whose imports are checked (tests are left out: they may import anything). */
const CODE_DIRS = ['server', 'sync', 'bench', 'tracing'];

/** Every .ts file under a directory of the repository, as paths from the root with forward slashes. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'data' ? [] : tsFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The repository files a file imports or re-exports (type-only and dynamic imports included), from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier)).split(path.sep).join('/'));
}

const GRAPH = new Map(CODE_DIRS.flatMap(tsFiles).map((file) => [file, importsOf(file)]));

/** Every import circle, each once, as the files in it from its smallest path round to the same. */
function circles(): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of GRAPH.get(file) ?? []) {
      if (!GRAPH.has(next)) continue;
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        found.set(rotated.join(' → '), [...rotated, rotated[0]!]);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...GRAPH.keys()].sort()) if (!state.has(file)) visit(file);
  return [...found.values()];
}

/**
 * The rooms of sync/ and what each may import besides its own folder (a prefix ending in `/` is a
 * folder, anything else one file). A file under sync/sources/<upstream>/ may import its own
 * upstream's folder and the shared files of sync/sources/, never another upstream.
 */
const SYNC_RULES: readonly { room: string; may: readonly string[] }[] = [
  { room: 'sync/locales.ts', may: [] },
  { room: 'sync/records.ts', may: ['sync/locales.ts'] },
  { room: 'sync/stationRecords.ts', may: [] },
  { room: 'sync/format.ts', may: ['sync/locales.ts', 'sync/records.ts', 'sync/stationRecords.ts'] },
  { room: 'sync/client.ts', may: [] },
  { room: 'sync/settings.ts', may: [] },
  { room: 'sync/source.ts', may: ['sync/format.ts', 'sync/client.ts', 'sync/settings.ts'] },
  { room: 'sync/sources/', may: ['sync/format.ts', 'sync/client.ts', 'sync/settings.ts', 'sync/source.ts'] },
  { room: 'sync/publish/', may: ['sync/format.ts', 'sync/source.ts'] },
  { room: 'sync/joins/', may: ['sync/format.ts', 'sync/source.ts', 'sync/sources/', 'sync/publish/'] },
  { room: 'sync/fixtures/', may: ['sync/'] },
  { room: 'sync/', may: ['sync/', 'tracing/'] },
];

/** The rule of a file of sync/: the first room that holds it. */
function ruleOf(file: string) {
  return SYNC_RULES.find(({ room }) => (room.endsWith('/') ? file.startsWith(room) : file === room))!;
}

/** The folder of sync/sources/ an upstream's file is in, or null for the shared files of sync/sources/. */
function upstreamOf(file: string): string | null {
  const parts = file.split('/');
  return parts.length > 3 ? parts.slice(0, 3).join('/') + '/' : null;
}

/** Each import of sync/ that breaks a rule, in words naming the file, the import and the rule. */
function syncViolations(): string[] {
  const found: string[] = [];
  for (const [file, imports] of GRAPH) {
    if (!file.startsWith('sync/')) continue;
    const rule = ruleOf(file);
    for (const target of imports) {
      if (!target.startsWith('sync/') && !(target.startsWith('tracing/') && rule.may.includes('tracing/'))) {
        found.push(`${file}: imports ${target}; sync/ never imports server/ or bench/ (their contract is sync/format.ts)`);
        continue;
      }
      const own = rule.room.endsWith('/') && target.startsWith(rule.room);
      const allowed = rule.may.some((may) => (may.endsWith('/') ? target.startsWith(may) : target === may));
      if (rule.room === 'sync/sources/' && own) {
        const from = upstreamOf(file);
        const to = upstreamOf(target);
        // Only the SOURCES list (sources/index.ts) looks into the upstreams' folders from outside.
        if (to !== null && to !== from && file !== 'sync/sources/index.ts') found.push(`${file}: imports ${target}; only sync/sources/index.ts and an upstream's own folder may import it`);
        continue;
      }
      if (rule.room === 'sync/' && (target.startsWith('sync/fixtures/'))) {
        found.push(`${file}: imports ${target}; the sync itself never imports the fixture generator`);
        continue;
      }
      if (!own && !allowed) found.push(`${file}: imports ${target}; ${rule.room} may import only itself and ${rule.may.join(', ') || 'nothing else'}`);
    }
  }
  return found;
}

describe('the imports of the whole repository', () => {
  it('have no circle in server/, sync/ or bench/', () => {
    expect(circles().map((loop) => loop.join(' → '))).toEqual([]);
  });

  it('keep each folder of sync/ to what it may import', () => {
    expect(syncViolations()).toEqual([]);
  });

  it('let publish/ import no join and no source', () => {
    const publishing = [...GRAPH].filter(([file]) => file.startsWith('sync/publish/'));
    const wrong = publishing.flatMap(([file, imports]) => imports.filter((t) => t.startsWith('sync/joins/') || t.startsWith('sync/sources/')).map((t) => `${file} → ${t}`));
    expect(wrong).toEqual([]);
  });

  it('let tracing/ import no other folder of the repository', () => {
    const wrong = [...GRAPH].filter(([file]) => file.startsWith('tracing/')).flatMap(([file, imports]) => imports.filter((t) => !t.startsWith('tracing/')).map((t) => `${file} → ${t}`));
    expect(wrong).toEqual([]);
  });

  it('let bench/ import of sync/ only the snapshot format', () => {
    const wrong = [...GRAPH].filter(([file]) => file.startsWith('bench/')).flatMap(([file, imports]) => imports.filter((t) => t.startsWith('sync/') && t !== 'sync/format.ts').map((t) => `${file} → ${t}`));
    expect(wrong).toEqual([]);
  });
});
