/**
 * The docs say what is true now: every repository path they name exists, they name no commit
 * (a figure's commit belongs in BENCHMARKS.md, which the bench writes, and in commit messages),
 * and neither they nor the code's comments tell the history of a figure.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, repositoryFiles, ROOT } from '../helpers/docPages.ts';

const FILES = repositoryFiles();
const PAGES = docPages();
const FILE_NAMES = new Set(FILES.map((file) => path.posix.basename(file)));

/**
 * A word that names a path: folders and a file with one of these extensions (`server/http/`,
 * `docs/deploy.md`, `route.ts`), or folders alone (`deploy/k8s/`). Not part of a URL, a
 * `$VARIABLE/…` or a longer word.
 */
const PATH_WORD = /(?<![\w/.:<@$~-])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|md|json(?:\.gz)?|ya?ml|graphql|m?js|sh)|(?:[\w.-]+\/)+)(?![\w/<*…])/g;

/**
 * Paths a page may name that are not files of the repository: what a build, a benchmark or a
 * sync writes.
 */
const NOT_IN_THE_REPOSITORY: readonly RegExp[] = [
  /^dist\//, // npm run build
  /^(?:server|sync|loadWorker)\.mjs$|^playground\/$/, // the bundle, inside dist/
  /^test-results\//, // the browser tests' screenshots
  /^bench\/data\//, // npm run bench and its --quick run
  /^BENCHMARKS\.quick\.md$/,
  /^(?:DATA_DIR|STATE_DIR)\//, // settings naming a directory
  /^(?:\d{4}-\d\d-\d\dT[\w-]+\/|[a-z]{2}-[A-Z]{2}\/)/, // inside a snapshot: <version>/<locale>/
  /^\.tmp\//, // the snapshot writer's version being written
  /^report\.json$/, // the publish gate's report inside each snapshot version
  /^Node\.js$/, // the runtime
  /^(?:persisted-documents|persisted-query-manifest)\.json$|^codegen\.ts$|^(?:\.\/)?src\//, // a client app's build: its codegen config, sources and manifests of trusted documents
  /^(?:mirror-tours\.mjs|tours\.json)$/, // docs/api.md's worked example: a client's script and the copy it keeps
];

/** Paths of the Swiss Activities frontend's own repository, which docs/swissactivities-mapping.md reads and links. */
const UPSTREAM_FRONTEND = /^(?:(?:services|lib)\/[\w.]+\.js|pages\/|lib\/|contentServices\.js)$/;

/**
 * Whether a path a page names exists: a word with a folder relative to the repository root, to
 * the page's folder or to server/ (the rooms are named without it: `http/graphql/route.ts`);
 * a bare file name as the name of some file of the repository.
 */
function exists(page: string, word: string): boolean {
  const relative = word.replace(/^\.\//, '');
  if (!relative.includes('/')) return FILE_NAMES.has(relative);
  return [relative, path.posix.join(path.posix.dirname(page), relative), `server/${relative}`].some((candidate) =>
    fs.existsSync(path.join(ROOT, candidate)),
  );
}

/** The paths a page names that do not exist, with their line numbers. */
function missingPaths(page: string, text: string): string[] {
  const missing: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const match of line.matchAll(PATH_WORD)) {
      const word = match[1]!;
      if (NOT_IN_THE_REPOSITORY.some((pattern) => pattern.test(word))) continue;
      if (page === 'docs/swissactivities-mapping.md' && UPSTREAM_FRONTEND.test(word)) continue;
      if (!exists(page, word)) missing.push(`${page}:${i + 1}: ${word}`);
    }
  });
  return missing;
}

/** Hex words long enough to be an abbreviated commit (git abbreviates to 7 at least). */
const HEX_WORD = /\b[0-9a-f]{7,40}\b/g;

/** Of `words`, those that name a commit of this repository (`git cat-file`, one process for all). */
function commitsAmong(words: readonly string[]): Set<string> {
  if (words.length === 0) return new Set();
  const answers = execFileSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd: ROOT,
    encoding: 'utf8',
    input: words.map((word) => `${word}^{commit}\n`).join(''),
  }).split('\n');
  return new Set(words.filter((_, i) => answers[i] === 'commit'));
}

/** Words that tell how a figure changed rather than what it is. */
const HISTORY = /\bwent\s+from\b|\bearlier\s+measurements?\b/i;

/**
 * Words that state a measured figure: a time in µs, an approximate time or share ("about 5 s",
 * "some 80 µs", "took 345 ms"), or a figure's change ("103 → 82 µs"). Measured figures belong in
 * BENCHMARKS.md, with the run that measured them, and docs/performance.md reads them from there.
 */
const MEASUREMENT = /\d\s?µs\b|\b(?:about|some|roughly|took)\s+\d[\d,.]*\s?(?:ms|s|µs|%)(?!\w)|\d\s?(?:ms|µs|%)?\s?→\s?\d[\d,.]*\s?(?:ms|µs|%)/i;

/** The lines of a file that match `pattern`, with their line numbers. */
function linesMatching(file: string, pattern: RegExp): string[] {
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

/**
 * Folders that hold code and so need a README.md saying what the folder is and what it may
 * import: every one but node_modules and the test folders that mirror the code (test/README.md
 * covers them).
 */
function foldersNeedingReadme(): string[] {
  const folders = new Set(FILES.filter((file) => /\.(?:ts|mjs|js)$/.test(file)).map((file) => path.posix.dirname(file)));
  return [...folders]
    .filter((folder) => folder !== '.' && !/^(?:test\/server|test\/sync)(?:\/|$)|(?:^|\/)node_modules\//.test(folder))
    .sort();
}

describe('the docs state the present', () => {
  it('every folder that holds code has a README.md', () => {
    expect(foldersNeedingReadme().filter((folder) => !fs.existsSync(path.join(ROOT, folder, 'README.md')))).toEqual([]);
  });

  it.each(PAGES)('every repository path %s names exists', (page) => {
    expect(missingPaths(page, fs.readFileSync(path.join(ROOT, page), 'utf8'))).toEqual([]);
  });

  it('no page names a commit of the repository, except BENCHMARKS.md the commit it measured', () => {
    const named = PAGES.filter((page) => page !== 'BENCHMARKS.md').flatMap((page) =>
      fs
        .readFileSync(path.join(ROOT, page), 'utf8')
        .split('\n')
        .flatMap((line, i) => [...line.matchAll(HEX_WORD)].map((match) => ({ at: `${page}:${i + 1}`, word: match[0] }))),
    );
    const commits = commitsAmong([...new Set(named.map(({ word }) => word))]);
    expect(named.filter(({ word }) => commits.has(word)).map(({ at, word }) => `${at}: ${word}`)).toEqual([]);
  });

  it('no page and no comment of the code tells how a figure changed over time', () => {
    const sources = FILES.filter((file) => /\.(?:ts|mjs|js|sh)$/.test(file) || file === 'Dockerfile' || file === '.ci/run');
    const checked = [...PAGES.filter((page) => page !== 'BENCHMARKS.md'), ...sources].filter((file) => file !== 'test/docs/present.test.ts');
    expect(checked.flatMap((file) => linesMatching(file, HISTORY))).toEqual([]);
  });

  it('no page but BENCHMARKS.md and docs/performance.md, and no comment of the product code, states a measured figure', () => {
    const code = FILES.filter((file) => /^(?:server|sync|tracing|deploy|\.ci)\//.test(file) || file === 'Dockerfile');
    const checked = [...PAGES.filter((page) => page !== 'BENCHMARKS.md' && page !== 'docs/performance.md' && !page.startsWith('test/') && !page.startsWith('bench/')), ...code];
    expect(checked.flatMap((file) => linesMatching(file, MEASUREMENT))).toEqual([]);
  });

  it('finds a missing path, a commit and a history line where there is one', () => {
    expect(missingPaths('docs/x.md', 'See `server/http/gone.ts`, `requestGone.ts`, docs/deploy.md and `http/graphql/route.ts`.')).toEqual([
      'docs/x.md:1: server/http/gone.ts',
      'docs/x.md:1: requestGone.ts',
    ]);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect([...commitsAmong([head.slice(0, 7), head, 'abcdef0123'])]).toContain(head);
    expect(HISTORY.test('the heap went from 115 to 100 MB')).toBe(true);
    expect(['some 80 µs', 'it listens about 10 s after', 'took 345 ms', '103 → 82 µs', 'about 6 % of'].filter((line) => !MEASUREMENT.test(line))).toEqual([]);
    expect(['SHUTDOWN_GRACE_MS (default 10000 ms)', 'pauses 65 s after a 429', 'about 6 KB'].filter((line) => MEASUREMENT.test(line))).toEqual([]);
  });
});
