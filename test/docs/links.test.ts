/**
 * The README, docs/ and the folders' READMEs link to each other and to the code by relative
 * paths and heading anchors; moving a file or renaming a heading must not leave a reader at a
 * dead link.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, ROOT, withoutCodeBlocks } from '../helpers/docPages.ts';

const PAGES = docPages();

/** Markdown links `[text](target)`, outside fenced code blocks. */
function linkTargets(markdown: string): string[] {
  return [...withoutCodeBlocks(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCodeBlocks(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('documentation links', () => {
  it.each(PAGES)('every relative link of %s reaches a file, and a heading where it names one', (page) => {
    const broken: string[] = [];
    for (const target of linkTargets(fs.readFileSync(path.join(ROOT, page), 'utf8'))) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
      if (!fs.existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect([...headingAnchors('# Quick start\n## Choices where the contract says "see docs/x.md"\n## CORS\n## CORS\n```\n# not a heading\n```\n')]).toEqual([
      'quick-start',
      'choices-where-the-contract-says-see-docsxmd',
      'cors',
      'cors-1',
    ]);
  });
});
