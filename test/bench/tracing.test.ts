import { describe, expect, it } from 'vitest';
import { replaceTracingSection } from '../../bench/tracing.ts';

const SECTION = ['## Tracing', '', 'new figures', ''];

describe('replaceTracingSection', () => {
  it('replaces the tracing section of a report in place, up to the next section', () => {
    const report = ['# Benchmarks', '', '## In-process', 'a', '## Tracing', '', 'old figures', 'more', '## Targets', 't'].join('\n');
    expect(replaceTracingSection(report, SECTION)).toBe(['# Benchmarks', '', '## In-process', 'a', '## Tracing', '', 'new figures', '', '## Targets', 't'].join('\n'));
  });

  it('puts the section before the targets of a report that has none', () => {
    const report = ['# Benchmarks', '## In-process', 'a', '## Targets', 't'].join('\n');
    expect(replaceTracingSection(report, SECTION)).toBe(['# Benchmarks', '## In-process', 'a', '## Tracing', '', 'new figures', '', '## Targets', 't'].join('\n'));
  });

  it('ends a report without targets with the section', () => {
    expect(replaceTracingSection('# Benchmarks', SECTION)).toBe(['# Benchmarks', ...SECTION].join('\n'));
  });
});
