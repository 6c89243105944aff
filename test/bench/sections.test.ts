import { describe, expect, it } from 'vitest';
import { replaceSection } from '../../bench/sections.ts';

const SECTION = ['## Tracing', '', 'new figures', ''];

describe('replaceSection', () => {
  it('replaces the section of the same heading in place, up to the next section', () => {
    const report = ['# Benchmarks', '', '## In-process', 'a', '## Tracing', '', 'old figures', 'more', '## Targets', 't'].join('\n');
    expect(replaceSection(report, SECTION)).toBe(['# Benchmarks', '', '## In-process', 'a', '## Tracing', '', 'new figures', '', '## Targets', 't'].join('\n'));
  });

  it('puts the section before the targets of a report that has none', () => {
    const report = ['# Benchmarks', '## In-process', 'a', '## Targets', 't'].join('\n');
    expect(replaceSection(report, SECTION)).toBe(['# Benchmarks', '## In-process', 'a', '## Tracing', '', 'new figures', '', '## Targets', 't'].join('\n'));
  });

  it('ends a report without targets with the section', () => {
    expect(replaceSection('# Benchmarks', SECTION)).toBe(['# Benchmarks', ...SECTION].join('\n'));
  });

  it('finds the section by its own heading, leaving the others alone', () => {
    const report = ['# Benchmarks', '## Tracing', 'kept', '## Change lists', 'old', '## Targets', 't'].join('\n');
    expect(replaceSection(report, ['## Change lists', 'new'])).toBe(['# Benchmarks', '## Tracing', 'kept', '## Change lists', 'new', '## Targets', 't'].join('\n'));
  });
});
