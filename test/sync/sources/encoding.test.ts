import { describe, expect, it } from 'vitest';
import { repairEncoding } from '../../../sync/sources/encoding.ts';

/** The text as an upstream that reads its UTF-8 as Latin-1 sends it. */
const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
/** The same, read as Windows-1252. */
const cp1252 = (text: string) => new TextDecoder('windows-1252').decode(Buffer.from(text, 'utf8'));

/** Texts of the four locales with every kind of character a Swiss text holds beyond ASCII. */
const TEXTS = [
  'Vierwaldstättersee',
  'Schlittelweg Grindelwald – Bussalp, 4,5 km, für Familien',
  'Château-d’Œx: « Fête de l’été » à 5 € près du Léman',
  'Città di Lugano, più belle giornate così',
  'Straße, Ärger, Öl, Übergang, naïve, Noël, ½ Tag, 20 °C, © 2026',
  '“Quoted” and ‘single’ … — dash ‰ • †',
];

describe('repairEncoding', () => {
  it('leaves correct text as it is', () => {
    for (const text of TEXTS) expect(repairEncoding(text)).toEqual({ text, repaired: false, damaged: false });
  });

  it('repairs UTF-8 read as Latin-1, as Windows-1252, and read wrongly twice', () => {
    for (const text of TEXTS) {
      for (const broken of [latin1(text), cp1252(text), latin1(latin1(text)), cp1252(cp1252(text))]) {
        expect(broken).not.toBe(text);
        expect(repairEncoding(broken), broken).toEqual({ text, repaired: true, damaged: false });
      }
    }
  });

  it('repairs the broken part of a text that mixes it with correct text', () => {
    expect(repairEncoding(`Genève, ${latin1('Zürich')}`)).toEqual({ text: 'Genève, Zürich', repaired: true, damaged: false });
  });

  it('repairs an à whose no-break space was trimmed or collapsed before the text arrived', () => {
    const trimmed = (text: string) => latin1(text).replace(/\s+/g, ' ').trim();
    expect(repairEncoding(trimmed('Monte Verità'))).toEqual({ text: 'Monte Verità', repaired: true, damaged: false });
    expect(repairEncoding(trimmed('Città di Lugano'))).toEqual({ text: 'Città di Lugano', repaired: true, damaged: false });
    expect(repairEncoding(`Âge d'or, ${trimmed('prix : 5 €')}`).text).toBe("Âge d'or, prix : 5 €");
  });

  it('says damaged where a byte was lost on the way and the marks cannot be undone', () => {
    const lossy = latin1('Straße – Brücke').replace(/[\u0080-\u009f]/g, '?');
    expect(repairEncoding(lossy)).toEqual({ text: 'StraÃ?e â?? Brücke', repaired: true, damaged: true });
    expect(repairEncoding('StraÃ\uFFFDe').damaged).toBe(true);
  });
});
