import { describe, expect, it } from 'vitest';
import { matchedSpans } from '../../../../server/search/text/highlight.ts';
import { queryWords } from '../../../../server/search/text/words.ts';

/** The words of `text` that `query` matches, as written. */
function marked(text: string, query: string): string[] {
  return matchedSpans(text, queryWords(query)).map(({ start, end }) => text.slice(start, end));
}

describe('matchedSpans', () => {
  it('finds the words a query word matches exactly, as a prefix or with one typo, as written', () => {
    expect(marked('Grindelwald First', 'grindelwald first')).toEqual(['Grindelwald', 'First']);
    expect(marked('Grindelwald First', 'grind')).toEqual(['Grindelwald']);
    expect(marked('Grindelwald First', 'Grindelwlad')).toEqual(['Grindelwald']);
    expect(marked('Rundwanderung Zermatt', 'zer')).toEqual(['Zermatt']);
  });

  it('leaves a typo alone in query words shorter than five letters', () => {
    expect(marked('Zug Zig', 'zog')).toEqual([]);
  });

  it('finds words whatever their accents, case and umlaut spelling', () => {
    expect(marked('Zürich Opera House', 'zuerich')).toEqual(['Zürich']);
    expect(marked('Zürich Opera House', 'ZURICH')).toEqual(['Zürich']);
    expect(marked('Moléson Gruyères', 'moleson gruyeres')).toEqual(['Moléson', 'Gruyères']);
    expect(marked('Straße am See', 'strasse')).toEqual(['Straße']);
  });

  it('finds the parts of a hyphenated compound, or the whole of it by its parts joined', () => {
    expect(marked('Loipe Saas-Fee 1', 'fee')).toEqual(['Fee']);
    expect(marked('Loipe Saas-Fee 1', 'saasfee')).toEqual(['Saas-Fee']);
    expect(marked('Gleitschirm-Schnupperkurs in Laax', 'gleitschirm')).toEqual(['Gleitschirm']);
  });

  it('gives spans as UTF-16 offsets into the text, markup and all', () => {
    const text = 'Fondue <script>alert(1)</script> & Käse';
    expect(matchedSpans(text, queryWords('script kase'))).toEqual([
      { start: 8, end: 14 },
      { start: 25, end: 31 },
      { start: 35, end: 39 },
    ]);
  });

  it('finds nothing for a query without words', () => {
    expect(matchedSpans('Zermatt', [])).toEqual([]);
  });
});
