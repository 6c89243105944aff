import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTRACTION_SEASONS, CHILDREN_AGES, NEEDED_TIMES } from '../../../server/resolvers/attractions.ts';
import { DEFAULT_SAMPLES_DIR, listSampleJson, readSampleJson } from '../../../sync/fixtures/samplesDir.ts';

interface SamplePage {
  meta?: { facets?: Record<string, Record<string, number>> };
  data: { classification?: { name?: string; values?: { name?: string }[] }[] }[];
}

/** Every value of one facet in the real attraction answers: their facet counts and their records. */
function realValues(facet: string): Set<string> {
  const values = new Set<string>();
  for (const file of listSampleJson(path.join(DEFAULT_SAMPLES_DIR, 'myswitzerland', 'attractions-by-city'))) {
    const page = readSampleJson(file) as SamplePage;
    for (const value of Object.keys(page.meta?.facets?.[facet] ?? {})) values.add(value);
    for (const record of page.data) {
      for (const entry of record.classification ?? []) if (entry.name === facet) for (const v of entry.values ?? []) if (v.name) values.add(v.name);
    }
  }
  return values;
}

describe('the closed attraction filters', () => {
  it.each([
    ['season', 'seasons', ATTRACTION_SEASONS],
    ['neededTime', 'neededtime', NEEDED_TIMES],
    ['childrenAge', 'childrenage', CHILDREN_AGES],
  ] as const)('accept every %s value of the real answers (facet %s)', (_argument, facet, allowed) => {
    const values = realValues(facet);
    expect(values.size).toBeGreaterThan(0);
    for (const value of values) expect(allowed as readonly string[]).toContain(value);
  });

  it('accept the neededtime values of the national answer beside those of the city samples', () => {
    // test/fixtures/upstream/myswitzerland/TOURS-EVIDENCE.md: the national list's facets.
    expect(NEEDED_TIMES).toEqual(expect.arrayContaining(['2days', '3days', '4days', '7days']));
  });
});
