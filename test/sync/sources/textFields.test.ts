import { describe, expect, it } from 'vitest';
import type { StationRecord } from '../../../sync/format.ts';
import type { SourceData } from '../../../sync/source.ts';
import { plainTextData, plainTextRecords, TEXT_FIELDS } from '../../../sync/sources/textFields.ts';
import { TEXT_CAPS } from '../../../sync/sources/text.ts';

describe('plainTextRecords', () => {
  it('makes each text field of the table plain text of its kind, nested and in lists, and keeps raw as sent', () => {
    const raw = { name: 'Bernaqua &amp; spa' };
    const record = {
      id: 'a1',
      name: '<b>Bernaqua</b> &amp; spa',
      description: '<p>Pools.</p><p>Saunas <script>alert(1)</script>and <a href="javascript:alert(1)" onclick="x()">more</a>.</p>',
      images: ['https://example.ch/a.jpg', '  '],
      postalCode: '3000 &amp;',
      raw,
    };
    const { records, rejected } = plainTextRecords('attractions', [record]);
    expect(rejected).toEqual([]);
    expect(records).toEqual([{ id: 'a1', name: 'Bernaqua & spa', description: 'Pools.\n\nSaunas and more.', images: ['https://example.ch/a.jpg'], postalCode: '3000 &amp;', raw }]);
    expect(records[0]!.raw).toBe(raw);
  });

  it('returns the same record when no text changed', () => {
    const record = { id: 'r1', type: 'sledging', link: 'https://www.myswitzerland.com/r1/' };
    expect(plainTextRecords('routes', [record]).records[0]).toBe(record);
  });

  it('rejects a record with a text over its cap or a link of another scheme, naming the field and the rule', () => {
    const long = { id: 's1', name: 'x'.repeat(TEXT_CAPS.name.maxChars + 1) };
    const script = { id: 's2', name: 'Davos', links: [{ type: 'WEB', title: 'Home', url: 'javascript:alert(1)' }] };
    const { records, rejected } = plainTextRecords('stations', [long, script, { id: 's3', name: 'Laax' }] as unknown as StationRecord[]);
    expect(records.map((r) => r.id)).toEqual(['s3']);
    expect(rejected).toEqual([
      { id: 's1', rule: 'text-cap', reason: `name: name text has ${TEXT_CAPS.name.maxChars + 1} characters of plain text, at most ${TEXT_CAPS.name.maxChars} allowed for a name` },
      { id: 's2', rule: 'url-scheme', reason: 'links[].url: url "javascript:alert(1)" is not an absolute http or https URL; only those are served as links' },
    ]);
  });

  it('has a table for every area', () => {
    expect(Object.keys(TEXT_FIELDS).sort()).toEqual(['activities', 'attractions', 'locations', 'routes', 'stations', 'tours', 'types']);
  });
});

describe('plainTextData', () => {
  it('repairs UTF-8 read as Latin-1 in the texts and counts the records repaired and those left damaged', () => {
    const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const data: SourceData = {
      label: 'Test',
      locales: {
        'de-CH': {
          tours: {
            records: [
              { id: 't1', name: latin1('Vierwaldstättersee – Rundweg'), abstract: 'Schön.' },
              { id: 't2', name: 'Zürichsee', abstract: latin1('Über die Brücke') },
              { id: 't3', name: latin1('Straße').replace(/[\u0080-\u009f]/g, '?') },
              { id: 't4', name: 'Genève' },
            ] as never[],
            rejected: [],
            declared: 4,
            received: 4,
            fieldMisses: {},
          },
        },
      },
    };
    const batch = plainTextData(data).locales['de-CH']!.tours!;
    expect(batch.records.map((r) => [r.name, r.abstract])).toEqual([
      ['Vierwaldstättersee – Rundweg', 'Schön.'],
      ['Zürichsee', 'Über die Brücke'],
      ['StraÃ?e', undefined],
      ['Genève', undefined],
    ]);
    expect(batch.encoding).toEqual({ repaired: 2, damaged: 1 });
  });

  it('adds text rejections to each batch and keeps its counts', () => {
    const data: SourceData = {
      label: 'Test',
      locales: {
        'de-CH': {
          tours: {
            records: [{ id: 't1', name: 'A &lt;b&gt; walk' }, { id: 't2', name: 'Bad', url: 'data:text/html,x' }] as never[],
            rejected: [{ id: null, reason: 'missing "identifier"' }],
            declared: 3,
            received: 3,
            fieldMisses: { name: 1 },
          },
        },
      },
    };
    const out = plainTextData(data);
    expect(out.locales['de-CH']!.tours).toEqual({
      records: [{ id: 't1', name: 'A <b> walk' }],
      rejected: [
        { id: null, reason: 'missing "identifier"' },
        { id: 't2', rule: 'url-scheme', reason: 'url: url "data:text/html,x" is not an absolute http or https URL; only those are served as links' },
      ],
      declared: 3,
      received: 3,
      fieldMisses: { name: 1 },
      encoding: { repaired: 0, damaged: 0 },
    });
    expect(data.locales['de-CH']!.tours!.records).toHaveLength(2);
  });
});
