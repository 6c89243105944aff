/**
 * The repository's documentation pages, for the tests that read them: the README, every page
 * under docs/, BENCHMARKS.md and every folder's README.md.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The repository's root directory. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every file of the repository that git tracks, or would track (new files not ignored), relative to the root with `/`. */
export function repositoryFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));
}

/** The documentation pages, relative to the root: README.md, docs/**\/*.md, BENCHMARKS.md and every README.md in a folder. */
export function docPages(): string[] {
  return repositoryFiles().filter(
    (file) => file === 'README.md' || file === 'BENCHMARKS.md' || (file.startsWith('docs/') && file.endsWith('.md')) || file.endsWith('/README.md'),
  );
}

/** A page without its fenced code blocks, whose brackets and # lines are not links or headings. */
export function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}
