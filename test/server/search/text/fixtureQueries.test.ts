import { beforeAll, describe, expect, it } from 'vitest';
import { positionSetOf } from '../../../../server/search/positionSet.ts';
import type { TextIndex } from '../../../../server/search/text/textIndex.ts';
import { resolvers } from '../../../../server/resolvers/index.ts';
import { createSchema, readSdl } from '../../../../server/execution/schema.ts';
import { loadSnapshot } from '../../../../server/snapshot/load.ts';
import { createStore, type Store } from '../../../../server/snapshot/store.ts';
import { DATA_DIR } from '../../../helpers/api.ts';

// A page (a search with `end`) may be read off match levels over bitsets, where the whole
// ranking (no `end`) always comes from walking every posting: on the fixture snapshot's own
// words, common ones above all, both must give the same total and the same first matches.

let store: Store;

beforeAll(async () => {
  store = createStore(await loadSnapshot(DATA_DIR, createSchema(readSdl(), resolvers)));
});

/** The words found in the most names, most first: lower-case ASCII letters only, so that they are query words as they stand. */
function commonWords(names: readonly string[], count: number): string[] {
  const documents = new Map<string, number>();
  for (const name of names) {
    for (const word of new Set(name.toLowerCase().split(/[^a-z]+/))) {
      if (word.length >= 3) documents.set(word, (documents.get(word) ?? 0) + 1);
    }
  }
  return [...documents].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([word]) => word);
}

/** Queries of every kind from common words: whole, by their first letters, with a swapped letter, and two or three together. */
function queriesOf(words: readonly string[]): string[] {
  const swapped = (word: string) => word.slice(0, 1) + word[2] + word[1] + word.slice(3);
  return [
    ...words,
    ...words.flatMap((word) => [word.slice(0, 1), word.slice(0, 2)]),
    ...words.filter((word) => word.length >= 5).map(swapped),
    ...words.slice(0, 6).flatMap((a, i) => words.slice(i + 1, 7).map((b) => `${a} ${b}`)),
    `${words[0]} ${words[1]} ${words[2]}`,
    `${words[0]!.slice(0, 1)} ${words[1]}`,
  ];
}

function expectPagesOfTheWholeRanking(text: TextIndex, size: number, queries: readonly string[]): void {
  const kept = (p: number) => p % 3 !== 1;
  const filter = [positionSetOf(size, Array.from({ length: size }, (_, p) => p).filter(kept))];
  for (const query of queries) {
    const all = Array.from(text.search(query)!.positions);
    const inFilter = all.filter(kept);
    for (const end of [1, 10, 20, 128]) {
      const page = text.search(query, { end })!;
      expect({ total: page.total, positions: Array.from(page.positions) }, `${query}, end ${end}`).toEqual({ total: all.length, positions: all.slice(0, end) });
      const filtered = text.search(query, { filter, end })!;
      expect({ total: filtered.total, positions: Array.from(filtered.positions) }, `${query}, filtered, end ${end}`).toEqual({ total: inFilter.length, positions: inFilter.slice(0, end) });
    }
  }
}

describe('text search on the fixture snapshot', () => {
  it('answers every page of de-CH tours as the whole ranking begins, for common words and their prefixes', () => {
    const { records, text } = store.locales['de-CH'].tours;
    const words = commonWords(records.map((record) => record.name), 12);
    expect(words.length).toBeGreaterThanOrEqual(8);
    expectPagesOfTheWholeRanking(text, records.length, [...queriesOf(words), 'unterwegs aufstieg']);
  });

  it('answers every page of en-CH attractions as the whole ranking begins, for common words and their prefixes', () => {
    const { records, text } = store.locales['en-CH'].attractions;
    const words = commonWords(records.map((record) => record.name), 12);
    expect(words.length).toBeGreaterThanOrEqual(8);
    expectPagesOfTheWholeRanking(text, records.length, [...queriesOf(words), 's']);
  });
});
