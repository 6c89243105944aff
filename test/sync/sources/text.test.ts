import { describe, expect, it } from 'vitest';
import { plainText, RAW_CAP_FACTOR, TEXT_CAPS, type TextKind } from '../../../sync/sources/text.ts';

const text = (value: string | null | undefined, kind: TextKind = 'name') => {
  const result = plainText(value, kind);
  if (!result.ok) throw new Error(`rejected: ${result.rejection.message}`);
  return result.text;
};

describe('plainText', () => {
  it('decodes entities, as real attraction names arrive', () => {
    expect(text('Ballenberg &amp; Freilichtmuseum')).toBe('Ballenberg & Freilichtmuseum');
    expect(text('Caf&eacute; du Lac &#8211; Gen&egrave;ve')).toBe('Café du Lac – Genève');
  });

  it('decodes once: an escaped entity stays the entity as written', () => {
    expect(text('Use &amp;amp; for &amp;')).toBe('Use &amp; for &');
  });

  it('drops tags with their attributes, and the contents of script and style', () => {
    expect(text('<b onclick="steal()">Aletsch</b> <script>alert(1)</script><style>b{}</style>Glacier')).toBe('Aletsch Glacier');
  });

  it('keeps the text of a javascript: link but never the link, nor a script URL written as text', () => {
    expect(text('<a href="javascript:alert(1)">Book</a> now', 'teaser')).toBe('Book now');
    expect(text('See javascript:alert(document.cookie) or data:text/html;base64,PHNjcmlwdD4= here', 'teaser')).toBe('See or here');
    expect(text('Java&#115;cript:alert(1) hidden', 'teaser')).toBe('hidden');
  });

  it('leaves ordinary words before a colon alone', () => {
    expect(text('Data: 12 lifts open', 'teaser')).toBe('Data: 12 lifts open');
  });

  it('collapses whitespace into one line for a name', () => {
    expect(text('  Grand\n\tHotel\u00a0 Zermatterhof  ')).toBe('Grand Hotel Zermatterhof');
  });

  it('keeps paragraphs as blank lines and line breaks in a long text', () => {
    expect(text('<p>First  paragraph,\n still first.</p><p>Second<br>line two</p>\n\n\n\n<ul><li>a</li><li>b</li></ul>', 'description')).toBe(
      'First paragraph,\nstill first.\n\nSecond\nline two\n\na\nb',
    );
  });

  it('gives null for nothing, and for markup without text', () => {
    expect(text(null)).toBeNull();
    expect(text(undefined)).toBeNull();
    expect(text('   ')).toBeNull();
    expect(text('<p> <script>x</script></p>', 'report')).toBeNull();
  });

  it('rejects a text over its cap, naming the kind, the length and the cap', () => {
    const long = 'x'.repeat(TEXT_CAPS.name.maxChars + 1);
    expect(plainText(long, 'name')).toEqual({
      ok: false,
      rejection: { rule: 'text-cap', kind: 'name', message: `name text has ${TEXT_CAPS.name.maxChars + 1} characters of plain text, at most ${TEXT_CAPS.name.maxChars} allowed for a name` },
    });
    expect(text('x'.repeat(TEXT_CAPS.name.maxChars))).toHaveLength(TEXT_CAPS.name.maxChars);
  });

  it('counts the cap on the plain text, so markup around a text within its cap is fine', () => {
    expect(text(`<p class="lead">${'y'.repeat(TEXT_CAPS.name.maxChars)}</p>`)).toHaveLength(TEXT_CAPS.name.maxChars);
  });

  it('rejects a text of many megabytes without parsing it', () => {
    const huge = `<p>${'Schnee '.repeat(3_000_000)}</p>`;
    const result = plainText(huge, 'report');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.rejection.message).toBe(`report text has ${huge.length} characters before removing markup, at most ${TEXT_CAPS.report.maxChars} allowed for a report`);
    expect(huge.length).toBeGreaterThan(TEXT_CAPS.report.maxChars * RAW_CAP_FACTOR);
  });

  it('keeps an http(s) URL, decoding &amp; in its query', () => {
    expect(text('https://www.myswitzerland.com/de-ch/?a=1&amp;b=2', 'url')).toBe('https://www.myswitzerland.com/de-ch/?a=1&b=2');
  });

  it('rejects a URL of any other scheme, saying which are allowed', () => {
    for (const url of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>x</script>', 'java\tscript:alert(1)', 'www.example.ch']) {
      const result = plainText(url, 'url');
      expect(result.ok, url).toBe(false);
      expect(!result.ok && result.rejection.rule).toBe('url-scheme');
      expect(!result.ok && result.rejection.message).toMatch(/is not an absolute http or https URL; only those are served as links$/);
    }
  });
});
