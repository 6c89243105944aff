import { describe, expect, it } from 'vitest';
import { positionSetOf } from '../../../../server/search/positionSet.ts';
import { createTextIndex, MAX_FIELDS, MAX_QUERY_WORDS, scoreSumOf, tierSumOf, worstTierOf, type TextIndex } from '../../../../server/search/text/textIndex.ts';

type Doc = [name: string, abstract: string | null];

/** An index over `docs` and a search that answers with the names of the documents found. */
function searchable(docs: Doc[]): { index: TextIndex; names: (query: string) => string[] | null } {
  const index = createTextIndex(docs);
  return {
    index,
    names: (query) => {
      const positions = index.search(query)?.positions ?? null;
      return positions && Array.from(positions, (position) => docs[position]![0]);
    },
  };
}

/**
 * Documents of random words of two to seven letters over a small alphabet, so that one- and
 * two-letter prefixes expand into hundreds of words and five-letter words are one typo away from
 * others: a name of one to three words and, but for every fourth document, an abstract.
 */
function randomCorpus(seed: number, words: number, documents: number, abstractLength: (position: number) => number): { vocabulary: string[]; docs: Doc[] } {
  let state = seed;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const word = () => Array.from({ length: 2 + Math.floor(random() * 6) }, () => 'aeiklmnorstu'[Math.floor(random() * 12)]).join('');
  const vocabulary = Array.from({ length: words }, word);
  const text = (length: number) => Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
  const docs = Array.from({ length: documents }, (_, i): Doc => [text(1 + (i % 3)), i % 4 === 0 ? null : text(abstractLength(i))]);
  return { vocabulary, docs };
}

const de = searchable([
  ['Seeweg nach Rapperswil', 'Gemütlicher Spaziergang von Zürich dem Ufer entlang'],
  ['Zürich Altstadt', 'Rundgang durch die Gassen an der Limmat'],
  ['Genf', 'Spaziergang am Genfersee mit Blick auf den Jet d’eau'],
  ['Gruyères', 'Mittelalterliches Städtchen, bekannt für seinen Käse'],
  ['Sils/Segl', 'Wanderung am Silsersee im Oberengadin'],
  ['Saas-Fee', 'Gletscherdorf im Wallis'],
  ['Neuenburg', 'Die Stadt Neuchâtel liegt am Neuenburgersee'],
  ['Graubünden Panorama', 'Rundreise durch die Täler'],
  ['Zermatt', 'Autofreies Dorf am Fuss des Matterhorns'],
  ['Grindelwald First', 'Bergbahn und Cliff Walk'],
  ['Interlaken', 'Zwischen Thunersee und Brienzersee'],
  ['Straßenbahn-Rundfahrt', 'Mit dem Tram durch Basel'],
  ['Lugano', 'Spaziergang am Lago di Lugano'],
]);

const en = searchable([
  ['Zurich Old Town', 'A walk through the lanes along the Limmat'],
  ['Geneva Lakeside', 'Stroll along Lake Geneva to the Jet d’eau'],
  ['Grisons Panorama', 'A round trip through the valleys of Graubünden'],
  ['Gruyères Castle', 'Medieval town famous for its cheese'],
]);

const fr = searchable([
  ['Zurich, la vieille ville', 'Promenade dans les ruelles au bord de la Limmat'],
  ['Genève', 'Promenade au bord du lac Léman'],
  ['Grisons', 'Circuit à travers les vallées'],
  ['Château de Gruyères', 'Cité médiévale célèbre pour son fromage'],
  ['Neuchâtel', 'Les façades jaunes de la vieille ville'],
]);

const it_ = searchable([
  ['Zurigo città vecchia', 'Passeggiata lungo la Limmat'],
  ['Ginevra', 'Passeggiata sul lungolago fino al Jet d’eau'],
  ['Grigioni', 'Giro delle valli, lunedì e martedì'],
  ['Sentiero di Sils', 'Escursione sul lago di Segl'],
]);

describe('createTextIndex', () => {
  describe('case and diacritics', () => {
    it('finds Zürich whatever the case and spelling in German', () => {
      for (const query of ['zurich', 'ZURICH', 'Zürich', 'ZÜRICH', 'Zuerich', 'zuerich']) {
        expect(de.names(query), query).toEqual(['Zürich Altstadt', 'Seeweg nach Rapperswil']);
      }
    });

    it('finds Zurich, Zurigo and Genève as each language writes them', () => {
      expect(en.names('zürich')).toEqual(['Zurich Old Town']);
      expect(fr.names('Zurich')).toEqual(['Zurich, la vieille ville']);
      expect(it_.names('zurigo')).toEqual(['Zurigo città vecchia']);
      expect(fr.names('geneve')).toEqual(['Genève']);
      expect(fr.names('GENEVE')).toEqual(['Genève']);
      expect(en.names('Geneva')).toEqual(['Geneva Lakeside']);
      expect(it_.names('Ginevra')).toEqual(['Ginevra']);
      expect(de.names('genf')).toEqual(['Genf']);
    });

    it('finds Gruyères without its accent and without its last letter', () => {
      expect(de.names('gruyeres')).toEqual(['Gruyères']);
      expect(fr.names('gruyere')).toEqual(['Château de Gruyères']);
      expect(en.names('Gruyere')).toEqual(['Gruyères Castle']);
    });

    it('folds French and Italian accents and the cedilla', () => {
      expect(fr.names('leman')).toEqual(['Genève']);
      expect(fr.names('chateau')).toEqual(['Château de Gruyères']);
      expect(fr.names('facades')).toEqual(['Neuchâtel']);
      expect(fr.names('medievale')).toEqual(['Château de Gruyères']);
      expect(it_.names('citta')).toEqual(['Zurigo città vecchia']);
      expect(it_.names('lunedi')).toEqual(['Grigioni']);
    });

    it('matches a German umlaut written as ue, oe or ae, or without its dots', () => {
      expect(de.names('Graubuenden')).toEqual(['Graubünden Panorama']);
      expect(de.names('graubunden')).toEqual(['Graubünden Panorama']);
      expect(de.names('Kaese')).toEqual(['Gruyères']);
      expect(de.names('taeler')).toEqual(['Graubünden Panorama']);
      expect(de.names('Staedtchen')).toEqual(['Gruyères']);
      expect(en.names('graubuenden')).toEqual(['Grisons Panorama']);
      // Beyond what typo tolerance would forgive: a prefix, and two umlauts in one word.
      expect(de.names('Zue')).toEqual(['Zürich Altstadt', 'Seeweg nach Rapperswil']);
      const index = createTextIndex([['Schönbühl'], ['Schonbuhl']]);
      expect(Array.from(index.search('Schoenbuehl')!.positions)).toEqual([0]);
      expect(Array.from(index.search('schönbühl')!.positions)).toEqual([0, 1]);
    });

    it('matches ß and ss both ways', () => {
      expect(de.names('strassenbahn')).toEqual(['Straßenbahn-Rundfahrt']);
      expect(de.names('Straßenbahn')).toEqual(['Straßenbahn-Rundfahrt']);
      const index = createTextIndex([['Fuss'], ['Fuß']]);
      expect(Array.from(index.search('fuß')!.positions)).toEqual([0, 1]);
      expect(Array.from(index.search('fuss')!.positions)).toEqual([0, 1]);
    });

    it('splits and folds a plain ASCII query as it does any other query', () => {
      // "¿" is no word character: appended, it leaves the words as they were, but the query is no longer ASCII.
      const queries = ['ZURICH', 'saas-fee', 'Saas--Fee!', 'lugano,genf', 'Sils/Segl', 'rund_gang', 'strassenbahn-rundfahrt 12', "d'eau", '  Zermatt\t', '-', 'x9y'];
      for (const query of queries) {
        expect(de.names(query), query).toEqual(de.names(`${query}¿`));
      }
      expect(de.names('Saas--Fee!')).toEqual(['Saas-Fee']);
    });

    it('finds Neuchâtel without its circumflex in any field', () => {
      expect(fr.names('neuchatel')).toEqual(['Neuchâtel']);
      expect(de.names('Neuchatel')).toEqual(['Neuenburg']);
    });
  });

  describe('compound names', () => {
    it('finds Saas-Fee written with a hyphen, a space or neither', () => {
      for (const query of ['Saas-Fee', 'saas fee', 'saasfee', 'Saas', 'fee']) {
        expect(de.names(query), query).toEqual(['Saas-Fee']);
      }
    });

    it('finds Sils/Segl by either of its names', () => {
      expect(de.names('sils')).toEqual(['Sils/Segl']);
      expect(de.names('Segl')).toEqual(['Sils/Segl']);
      expect(it_.names('segl')).toEqual(['Sentiero di Sils']);
    });
  });

  describe('prefixes', () => {
    it('finds a place from the first letters of its name', () => {
      expect(de.names('zer')).toEqual(['Zermatt']);
      expect(de.names('grind')).toEqual(['Grindelwald First']);
      expect(de.names('Neuch')).toEqual(['Neuenburg']);
      expect(fr.names('gen')).toEqual(['Genève']);
      expect(it_.names('Zur')).toEqual(['Zurigo città vecchia']);
    });

    it('matches a word inside a field by its prefix too', () => {
      expect(de.names('matterh')).toEqual(['Zermatt']);
    });
  });

  describe('typos', () => {
    it('forgives one inserted, missing, replaced or swapped letter in words of five letters or more', () => {
      expect(de.names('Zermattt')).toEqual(['Zermatt']);
      expect(de.names('Zermat')).toEqual(['Zermatt']);
      expect(de.names('Zermstt')).toEqual(['Zermatt']);
      expect(de.names('Grindelwlad')).toEqual(['Grindelwald First']);
      expect(de.names('Interlakn')).toEqual(['Interlaken']);
      expect(de.names('Intrelaken')).toEqual(['Interlaken']);
      expect(de.names('Lugamo')).toEqual(['Lugano']);
      expect(fr.names('Genefe')).toEqual(['Genève']);
      expect(it_.names('Zurigi')).toEqual(['Zurigo città vecchia']);
    });

    it('forgives a typo in a five-letter word', () => {
      const index = createTextIndex([['Basel'], ['Bern']]);
      expect(Array.from(index.search('Basle')!.positions)).toEqual([0]);
      expect(Array.from(index.search('Bsael')!.positions)).toEqual([0]);
    });

    it('does not forgive two typos in one word', () => {
      expect(de.names('Zremattt')).toEqual([]);
      expect(de.names('Grindelwlda')).toEqual([]);
      expect(de.names('Intrelakn')).toEqual([]);
    });

    it('takes words under five letters exactly or as a prefix, never with a typo', () => {
      const index = createTextIndex([['Genf'], ['Bern'], ['Sion'], ['Chur']]);
      expect(Array.from(index.search('genf')!.positions)).toEqual([0]);
      expect(Array.from(index.search('gemf')!.positions)).toEqual([]);
      expect(Array.from(index.search('berm')!.positions)).toEqual([]);
      expect(Array.from(index.search('sino')!.positions)).toEqual([]);
      expect(Array.from(index.search('chr')!.positions)).toEqual([]);
      expect(Array.from(index.search('chu')!.positions)).toEqual([3]);
    });

    it('does not find unrelated words', () => {
      expect(de.names('Lausanne')).toEqual([]);
      expect(de.names('zug')).toEqual([]);
      expect(de.names('Matterhorn Lausanne')).toEqual([]);
      expect(en.names('Basel')).toEqual([]);
      expect(fr.names('Lugano')).toEqual([]);
    });
  });

  describe('several words', () => {
    it('requires every word to match, in any field and order', () => {
      expect(de.names('zermatt matterhorn')).toEqual(['Zermatt']);
      expect(de.names('Matterhorn autofreies zermatt')).toEqual(['Zermatt']);
      expect(de.names('zürich rapperswil')).toEqual(['Seeweg nach Rapperswil']);
      expect(de.names('zermatt rapperswil')).toEqual([]);
    });

    it('lets each word match exactly, by prefix or with its typo', () => {
      expect(de.names('Zermattt matter')).toEqual(['Zermatt']);
      expect(de.names('grindelwlad cliff wal')).toEqual(['Grindelwald First']);
    });

    it('counts a repeated word once', () => {
      expect(de.names('zermatt Zermatt ZERMATT')).toEqual(['Zermatt']);
    });

    it(`ignores distinct words after the first ${MAX_QUERY_WORDS}`, () => {
      const words = 'one two three four five six seven eight nine ten'.split(' ');
      expect(words).toHaveLength(MAX_QUERY_WORDS);
      const index = createTextIndex([[words.join(' ')]]);
      expect(Array.from(index.search(words.join(' '))!.positions)).toEqual([0]);
      expect(Array.from(index.search(`${words.join(' ')} eleven`)!.positions)).toEqual([0]);
      expect(Array.from(index.search(`eleven ${words.join(' ')}`)!.positions)).toEqual([]);
    });
  });

  describe('ranking', () => {
    it('ranks a match in the name before a match in the abstract only', () => {
      // The abstract match comes first in document order.
      expect(de.names('zurich')).toEqual(['Zürich Altstadt', 'Seeweg nach Rapperswil']);
      expect(de.names('lugano')).toEqual(['Lugano']);
      const index = createTextIndex([
        ['Lago Maggiore', 'Boat trip from Locarno'],
        ['Locarno', null],
        ['Ascona', 'Next to Locarno'],
        ['Locarno Film Festival', 'Every August'],
      ]);
      expect(Array.from(index.search('locarno')!.positions)).toEqual([1, 3, 2, 0]);
    });

    it('ranks the name field first even against a typo', () => {
      const index = createTextIndex([
        ['Laax', 'Flims is next door'],
        ['Films by the lake', null],
      ]);
      expect(Array.from(index.search('flims')!.positions)).toEqual([1, 0]);
    });

    it('ranks an exact word before a prefix, and a prefix before a typo', () => {
      const index = createTextIndex([['Films by the lake'], ['Flimserstein'], ['Flims']]);
      expect(Array.from(index.search('flims')!.positions)).toEqual([2, 1, 0]);
      const glarus = createTextIndex([['Glaris'], ['Glarus']]);
      expect(Array.from(glarus.search('glarus')!.positions)).toEqual([1, 0]);
    });

    it('ranks documents whose every word matches in the name before those needing the abstract', () => {
      const index = createTextIndex([
        ['Zermatt', 'Hike below the Matterhorn'],
        ['Zermatt Matterhorn Glacier Paradise', null],
      ]);
      expect(Array.from(index.search('zermatt matterhorn')!.positions)).toEqual([1, 0]);
    });

    it('ranks a word near the start of a field before one further in', () => {
      const index = createTextIndex([
        ['A', 'Long walk along the shore through reeds and meadows to Brienz'],
        ['B', 'Brienz and its wood carvers'],
      ]);
      expect(Array.from(index.search('brienz')!.positions)).toEqual([1, 0]);
    });

    it('keeps document order between equal matches', () => {
      const index = createTextIndex([['Lugano'], ['Lugano Paradiso'], ['Lugano'], ['Lugano']]);
      expect(Array.from(index.search('lugano')!.positions)).toEqual([0, 1, 2, 3]);
      expect(Array.from(index.search('lug')!.positions)).toEqual([0, 1, 2, 3]);
    });

    it('keeps document order when the matches come from different words, in a large index', () => {
      // "zermatt" and "zermatter" both extend the prefix; the later word holds the earlier
      // position. Few matches among many documents take the sorting path.
      const docs: Doc[] = Array.from({ length: 300 }, (_, i): Doc => [`Wanderweg ${i}`, null]);
      docs[250] = ['Zermatt', null];
      docs[10] = ['Zermatter Höhenweg', null];
      expect(Array.from(createTextIndex(docs).search('zermat')!.positions)).toEqual([10, 250]);
      // The same in a small index, where scanning every position is cheaper.
      const small = createTextIndex([['Zermatter Höhenweg'], ['Wanderweg'], ['Zermatt']]);
      expect(Array.from(small.search('zermat')!.positions)).toEqual([0, 2]);
    });

    it(`ranks by the worst word first, then the sums, with ${MAX_QUERY_WORDS} words in the last of ${MAX_FIELDS} fields`, () => {
      // The sums of tiers and of scores at their largest still rank as they should.
      const words = ['alpine', 'bridge', 'castle', 'dragon', 'engine', 'forest', 'garden', 'harbor', 'island', 'jungle'];
      expect(words).toHaveLength(MAX_QUERY_WORDS);
      const typo = (word: string) => `${word.slice(0, -1)}x`;
      const padding = Array.from({ length: 40 }, (_, i) => `pad${i}`);
      const last = (text: string): (string | null)[] => [...Array.from({ length: MAX_FIELDS - 1 }, () => null), text];
      const index = createTextIndex([
        // Every word a typo in the last field, far into it: the worst tier, and the largest sums.
        last([...padding, ...words.map(typo)].join(' ')),
        // The same worst tier from one word only, the others exact in the first field.
        [words.slice(1).join(' '), ...last(typo(words[0]!)).slice(1)],
        // Every word exact in the last field, far into it.
        last([...padding, ...words].join(' ')),
        // The same near the start of the field: a smaller sum of scores.
        last([...words, ...padding].join(' ')),
        // Every word exact in the first field.
        [words.join(' '), ...last('').slice(1)],
      ]);
      expect(Array.from(index.search(words.join(' '))!.positions)).toEqual([4, 3, 2, 1, 0]);
    });

    it('ranks by field, kind and place the same way whether the matches are few or many among the documents', () => {
      const docs: Doc[] = [
        ['Lago Maggiore', 'Boat trip from Locarno'],
        ['Locarno', null],
        ['Films by the lake', 'Locarnese shores'],
        ['Ascona', 'Next to Locarno, on the lake'],
        ['Locarno Film Festival', 'Every August by the lake'],
        ['Lakeside Locarno', 'Lake walk'],
      ];
      const small = createTextIndex(docs);
      // Padding past the matches leaves the positions of the first documents as they are.
      const large = createTextIndex([...docs, ...Array.from({ length: 300 }, (_, i): Doc => [`Wanderweg ${i}`, null])]);
      for (const query of ['locarno', 'lake', 'locarno lake', 'locarnoo', 'film lake']) {
        const few = Array.from(large.search(query)!.positions);
        expect(few.length * 16, query).toBeLessThan(306);
        expect(few, query).toEqual(Array.from(small.search(query)!.positions));
      }
      expect(Array.from(large.search('locarno lake')!.positions)).toEqual([5, 4, 3]);
    });
  });

  describe('queries without words', () => {
    it('returns null for an empty, blank or punctuation-only query', () => {
      expect(de.index.search('')).toBeNull();
      expect(de.index.search('   ')).toBeNull();
      expect(de.index.search('\t\n')).toBeNull();
      expect(de.index.search('-- / !?')).toBeNull();
    });

    it('finds words between punctuation', () => {
      expect(de.names('  "Zermatt"! ')).toEqual(['Zermatt']);
    });
  });

  describe('documents', () => {
    it('skips null and empty fields and finds nothing in an empty index', () => {
      const index = createTextIndex([['Arosa', null], ['', 'Arosa Lenzerheide'], [null, null]]);
      expect(Array.from(index.search('arosa')!.positions)).toEqual([0, 1]);
      expect(Array.from(createTextIndex([]).search('arosa')!.positions)).toEqual([]);
    });

    it('refuses documents with different numbers of fields', () => {
      expect(() => createTextIndex([['Arosa', null], ['Davos']])).toThrow(
        new RangeError('document 1 has 1 text fields, expected 2'),
      );
    });

    it(`takes up to ${MAX_FIELDS} text fields and refuses more`, () => {
      const fields = (count: number, word: string, at: number) => Array.from({ length: count }, (_, f) => (f === at ? word : null));
      const widest = createTextIndex([fields(MAX_FIELDS, 'Arosa', MAX_FIELDS - 1), fields(MAX_FIELDS, 'Arosa', 0)]);
      expect(Array.from(widest.search('arosa')!.positions)).toEqual([1, 0]);
      expect(() => createTextIndex([fields(MAX_FIELDS + 1, 'Arosa', 0)])).toThrow(
        new RangeError(`documents have ${MAX_FIELDS + 1} text fields; at most ${MAX_FIELDS} are supported`),
      );
    });

    it('answers the same query the same way twice', () => {
      const first = Array.from(de.index.search('zurich')!.positions);
      de.index.search('zermatt matterhorn');
      expect(Array.from(de.index.search('zurich')!.positions)).toEqual(first);
    });
  });

  describe('pages and filters', () => {
    // Thousands of documents made of a dozen words, so that a query matches most of them and
    // many share each rank: the cut at the end of a page falls among equals, which are taken
    // in position order by sorting a few or by scanning positions for many. "dolor" is in a
    // name only every 300th document, so that a few of its matches rank before many equals.
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const WORDS = ['alpen', 'alpenweg', 'alpine', 'wanderung', 'wandern', 'see', 'seeweg', 'berg', 'bergsee', 'lorem', 'ipsum', 'dolor'];
    const text = (length: number, words = WORDS) => Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ');
    const nameWords = WORDS.filter((word) => word !== 'dolor');
    const docs: Doc[] = Array.from({ length: 3000 }, (_, i): Doc => [
      `${i % 300 === 0 ? 'dolor ' : ''}${text(1 + (i % 4), nameWords)}`,
      i % 5 === 0 ? null : text(3 + (i % 9)),
    ]);
    const index = createTextIndex(docs);
    const inFilter = new Set(Array.from({ length: docs.length }, (_, p) => p).filter(() => random() < 0.4));
    const evens = new Set(Array.from({ length: docs.length }, (_, p) => p).filter((p) => p % 2 === 0));
    const filters = [
      { name: '40 % of the documents', sets: [positionSetOf(docs.length, [...inFilter])], has: (p: number) => inFilter.has(p) },
      { name: 'two sets', sets: [positionSetOf(docs.length, [...inFilter]), positionSetOf(docs.length, [...evens])], has: (p: number) => inFilter.has(p) && evens.has(p) },
    ];
    const QUERIES = ['lorem', 'dolor', 'alp', 'alpen', 'wanderung see', 'berg alpen lorem', 'alpnie', 'bergsee ipsum dolor', 'seewg'];

    it('answers a page with the first matches of the whole ranking, and the total', () => {
      for (const query of QUERIES) {
        const all = Array.from(index.search(query)!.positions);
        expect(all.length, query).toBeGreaterThan(0);
        for (const end of [1, 2, 5, 20, 21, 64, 128, 129, 300, all.length - 1, all.length, all.length + 10]) {
          const page = index.search(query, { end })!;
          expect(page.total, `${query}, end ${end}`).toBe(all.length);
          expect(Array.from(page.positions), `${query}, end ${end}`).toEqual(all.slice(0, end));
        }
        expect(index.search(query, { end: 0 })).toEqual({ total: all.length, positions: [] });
      }
    });

    it('counts and ranks only the matches in a filter', () => {
      for (const query of QUERIES) {
        const all = Array.from(index.search(query)!.positions);
        for (const filter of filters) {
          const kept = all.filter(filter.has);
          for (const end of [1, 20, 150, kept.length, Infinity]) {
            const page = index.search(query, { filter: filter.sets, end })!;
            expect(page.total, `${query}, ${filter.name}, end ${end}`).toBe(kept.length);
            expect(Array.from(page.positions), `${query}, ${filter.name}, end ${end}`).toEqual(kept.slice(0, end));
          }
        }
        // A filtered search leaves nothing behind for the next one.
        expect(Array.from(index.search(query)!.positions), query).toEqual(all);
      }
    });

    it('finds nothing when one word is found nowhere, however common the others', () => {
      for (const query of ['lorem zzzzz', 'zzzzz alpen lorem', 'alpen wanderung qqqq']) {
        // A search before leaves its sets behind in the index's scratch space.
        expect(index.search('berg alpen lorem', { end: 20 })!.total).toBeGreaterThan(0);
        for (const end of [1, 20, undefined]) expect(index.search(query, { end }), `${query}, end ${end}`).toEqual({ total: 0, positions: [] });
        expect(index.search(query, { filter: filters[0]!.sets, end: 20 }), query).toEqual({ total: 0, positions: [] });
        expect(index.matchSet(query), query).toEqual(positionSetOf(docs.length, []));
      }
    });

    it('ranks the few documents with ten common words, each at another place in each document', () => {
      // Every word is in 90 % of the documents, at every place, but all ten only in ten of them,
      // each word one place further along in each: the best ranks that ten words' places could
      // combine to hold none of those, and there are billions of such combinations.
      const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
      const rotated = (shift: number, skip: number | null) =>
        Array.from({ length: WORDS.length }, (_, i) => WORDS[(i + shift) % WORDS.length]!).filter((word) => word !== (skip === null ? null : WORDS[skip])).join(' ');
      const docs = Array.from({ length: 3000 }, (_, i): Doc => [i % 300 === 7 ? rotated(Math.floor(i / 300), null) : rotated(i % 7, i % 10), null]);
      const manyWords = createTextIndex(docs);
      const query = WORDS.join(' ');
      const all = Array.from(manyWords.search(query)!.positions);
      expect(all).toHaveLength(10);
      for (const end of [1, 5, 20]) {
        expect(manyWords.search(query, { end }), `end ${end}`).toEqual({ total: 10, positions: all.slice(0, end) });
      }
      const kept = (p: number) => p % 600 === 7 || p % 2 === 0;
      const filter = positionSetOf(docs.length, docs.map((_, p) => p).filter(kept));
      expect(manyWords.search(query, { filter: [filter], end: 20 })).toEqual({ total: 5, positions: all.filter(kept) });
    });

    it('gives the set of all matches for callers that order them otherwise', () => {
      for (const query of QUERIES) {
        expect(index.matchSet(query), query).toEqual(positionSetOf(docs.length, index.search(query)!.positions));
      }
      expect(index.matchSet(' - ')).toBeNull();
      expect(index.matchSet('zermatt')).toEqual(positionSetOf(docs.length, []));
    });
  });

  describe('query words kept between searches', () => {
    const { vocabulary, docs } = randomCorpus(11, 1500, 2000, (i) => 4 + (i % 6));
    const letters = [...'aeiklmnorstu'];
    // More than the index keeps (MAX_EXPANDED_WORDS), so that it forgets and expands again.
    const queries = [...letters, ...letters.flatMap((a) => letters.map((b) => a + b)), ...vocabulary.slice(0, 40), 'mo ta', 'kelmon', 'a e i'];
    const answer = (index: TextIndex, query: string) => ({
      page: index.search(query, { end: 10 }),
      all: index.search(query),
      set: index.matchSet(query),
    });

    it('answers every query again as it did the first time, and as an index that never searched before', () => {
      const index = createTextIndex(docs);
      const first = queries.map((query) => answer(index, query));
      queries.forEach((query, i) => expect(answer(index, query), query).toEqual(first[i]));
      for (const query of ['s', 'mo', 'kelmon', 'a e i']) {
        expect(answer(createTextIndex(docs), query), query).toEqual(first[queries.indexOf(query)]);
      }
      expect(first[queries.indexOf('s')]!.all!.total).toBeGreaterThan(100);
    });
  });

  describe('the ranking rules, read plainly', () => {
    // Fields of at most nine words, where a word's place score is its place in the field: one-
    // letter prefixes have their postings merged, others not.
    const { vocabulary, docs } = randomCorpus(23, 1200, 2500, (i) => 3 + (i % 7));

    const withinOneEdit = (a: string, b: string) => {
      if (a.length === b.length) {
        const differ = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
        return differ.length === 1 || (differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]!] && a[differ[1]!] === b[differ[0]!]);
      }
      const [short, long] = a.length < b.length ? [a, b] : [b, a];
      return long.length === short.length + 1 && [...long].some((_, i) => long.slice(0, i) + long.slice(i + 1) === short);
    };
    // A word's best match in a document, as [tier, place]: tier 3 × field + kind (0 exact,
    // 1 prefix, 2 typo), the lowest tier, then the nearest place; null when it has none.
    const bestMatch = (query: string, doc: Doc): [number, number] | null => {
      let best: [number, number] | null = null;
      doc.forEach((field, f) => {
        field?.split(' ').forEach((term, place) => {
          const kind = term === query ? 0 : term.startsWith(query) ? 1 : query.length >= 5 && withinOneEdit(query, term) ? 2 : null;
          if (kind === null) return;
          const tier = 3 * f + kind;
          if (best === null || tier < best[0] || (tier === best[0] && place < best[1])) best = [tier, place];
        });
      });
      return best;
    };
    // Every match, best first, with its key: the worst tier of its words, the sum of their tiers,
    // the sum of their places, then position.
    const rankingKeys = (query: string) => {
      const words = [...new Set(query.split(' '))];
      return docs
        .map((doc, position) => ({ position, matches: words.map((w) => bestMatch(w, doc)) }))
        .filter(({ matches }) => matches.every((match) => match !== null))
        .map(({ position, matches }) => {
          const tiers = matches.map((match) => match![0]);
          const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
          return { position, key: [Math.max(...tiers), sum(tiers), sum(matches.map((match) => match![1])), position] };
        })
        .sort((a, b) => a.key.reduce((order, v, i) => order || v - b.key[i]!, 0));
    };
    const ranking = (query: string) => rankingKeys(query).map(({ position }) => position);
    const letters = [...'aeiklmnorstu'];
    // A swapped, a missing, an inserted and a replaced letter.
    const typos = [
      (w: string) => w.slice(0, 2) + w[3] + w[2] + w.slice(4),
      (w: string) => w.slice(0, 3) + w.slice(4),
      (w: string) => `${w.slice(0, 3)}e${w.slice(3)}`,
      (w: string) => `${w.slice(0, -1)}a`,
    ];
    const long = vocabulary.filter((w) => w.length >= 6).slice(0, 6);
    const queries = [...letters, 'ka', 'st', 'mor', ...vocabulary.slice(0, 6), ...typos.flatMap((typo) => long.map(typo)), 's e', 'a ka', `m ${vocabulary[0]}`, `${long[0]} t`];

    it('ranks every match of one- and two-word queries as the rules say, whole and by pages', () => {
      const index = createTextIndex(docs);
      for (const query of queries) {
        const expected = ranking(query);
        expect(Array.from(index.search(query)!.positions), query).toEqual(expected);
        for (const end of [1, 10, 20, 129]) {
          const page = index.search(query, { end })!;
          expect({ total: page.total, positions: Array.from(page.positions) }, `${query}, end ${end}`).toEqual({ total: expected.length, positions: expected.slice(0, end) });
        }
      }
      expect(ranking('s').length).toBeGreaterThan(300);
    });

    it('gives with each match, when asked, its worst tier, tier sum and place sum as the rules say, whole and by pages', () => {
      const index = createTextIndex(docs);
      for (const query of queries) {
        const expected = rankingKeys(query).map(({ key }) => key.slice(0, 3));
        for (const end of [undefined, 10, 129]) {
          const { ranks } = index.search(query, { end, ranks: true })!;
          const parts = Array.from(ranks!, (rank) => [worstTierOf(rank), tierSumOf(rank), scoreSumOf(rank)]);
          expect(parts, `${query}, end ${end}`).toEqual(expected.slice(0, end));
        }
      }
    });

    it('ranks only the matches in a filter as the rules say', () => {
      const index = createTextIndex(docs);
      const kept = (p: number) => p % 3 !== 0;
      const filter = [positionSetOf(docs.length, docs.map((_, p) => p).filter(kept))];
      for (const query of queries) {
        const expected = ranking(query).filter(kept);
        const page = index.search(query, { filter, end: 10 })!;
        expect({ total: page.total, positions: Array.from(page.positions) }, query).toEqual({ total: expected.length, positions: expected.slice(0, 10) });
        expect(index.matchSet(query), query).toEqual(positionSetOf(docs.length, ranking(query)));
      }
    });
  });
});
