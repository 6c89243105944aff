import { describe, expect, it } from 'vitest';
import { MAX_TYPO_CANDIDATES, MAX_TYPO_MATCHES, typoFinder, typoKeys } from '../../../../server/search/text/typos.ts';
import { runSteps } from '../../../../server/util/timeSlice.ts';

/** Whether `a` and `b` are one insertion, deletion, substitution or swap of neighbours apart: the brute-force oracle. */
function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const edits = new Set<string>();
  const letters = new Set([...a, ...b]);
  for (let i = 0; i <= a.length; i++) {
    if (i < a.length) edits.add(a.slice(0, i) + a.slice(i + 1));
    for (const c of letters) {
      edits.add(a.slice(0, i) + c + a.slice(i));
      if (i < a.length) edits.add(a.slice(0, i) + c + a.slice(i + 1));
    }
    if (i + 1 < a.length) edits.add(a.slice(0, i) + a[i + 1] + a[i] + a.slice(i + 2));
  }
  return edits.has(b);
}

describe('typoFinder', () => {
  it('finds the words one edit away, as a brute-force comparison with every word does', () => {
    const terms = ['alpen', 'alpin', 'alpine', 'apen', 'lapen', 'salpen', 'albern', 'bergen', 'berge', 'bergn'].sort();
    const find = typoFinder(terms, runSteps(typoKeys(terms)));
    for (const word of ['alpen', 'alpne', 'bergen', 'berg', 'xalpen', 'zzzzz']) {
      const found = [...find(word)].map((at) => terms[at]).sort();
      expect(found, word).toEqual(terms.filter((term) => oneEditApart(word, term)));
    }
  });

  it('matches at most MAX_TYPO_MATCHES words for one query word, however many are one edit away', () => {
    // Every one-letter substitution of "bergen" at its last letter and more: far more words than the bound.
    const terms = [...new Set(Array.from({ length: 26 * 6 }, (_, i) => {
      const at = i % 6;
      return 'bergen'.slice(0, at) + String.fromCharCode(97 + Math.floor(i / 6)) + 'bergen'.slice(at + 1);
    }))].filter((term) => term !== 'bergen').sort();
    expect(terms.filter((term) => oneEditApart('bergen', term)).length).toBeGreaterThan(MAX_TYPO_MATCHES);
    const find = typoFinder(terms, runSteps(typoKeys(terms)));
    const found = [...find('bergen')];
    expect(found).toHaveLength(MAX_TYPO_MATCHES);
    for (const at of found) expect(oneEditApart('bergen', terms[at]!)).toBe(true);
  });

  it('answers a very long query word that is one edit from no word with none', () => {
    expect(MAX_TYPO_CANDIDATES).toBeGreaterThan(MAX_TYPO_MATCHES);
    const terms = ['alpenblick', 'bergsee'].sort();
    const find = typoFinder(terms, runSteps(typoKeys(terms)));
    expect([...find('q'.repeat(10_000))]).toEqual([]);
  });
});
