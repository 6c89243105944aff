import { describe, expect, it } from 'vitest';
import { createFilterIndex, type FilterCondition } from '../../../server/search/filterIndex.ts';
import { countPositions, firstPositions, hasPosition, type Intersection } from '../../../server/search/positionSet.ts';

interface Item {
  kind: string | null;
  tags: string[];
  open: boolean;
}

const KINDS = ['hike', 'bike', 'ski', null] as const;
const TAGS = ['family', 'indoor', 'guided', 'winter'] as const;

/** `count` items whose values cycle through the vocabularies at different rates, so every combination occurs. */
function items(count: number): Item[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: KINDS[i % KINDS.length]!,
    tags: TAGS.filter((_, t) => (i >> t) % 3 === 0),
    open: i % 5 < 2,
  }));
}

const FILTERS = { kind: (r: Item) => r.kind, tag: (r: Item) => r.tags, open: (r: Item) => r.open };

/** The positions of the intersection, ascending, read one by one. */
function positionsOf(sets: Intersection, size: number): number[] {
  return Array.from({ length: size }, (_, p) => p).filter((p) => hasPosition(sets, p));
}

describe('createFilterIndex', () => {
  // 100 records: the last word of each set is partly used.
  const records = items(100);
  const index = createFilterIndex(records, FILTERS);

  it('matches the positions a record-by-record test finds, for every combination of conditions', () => {
    const kinds: FilterCondition[] = [undefined, null, 'hike', 'ski', 'unknown'];
    const tags: FilterCondition[] = [undefined, 'family', 'winter', 'unknown'];
    const opens: FilterCondition[] = [undefined, true, false];
    let combinations = 0;
    for (const kind of kinds) {
      for (const tag of tags) {
        for (const open of opens) {
          const expected = records
            .map((record, position) => ({ record, position }))
            .filter(
              ({ record }) =>
                (kind == null || record.kind === kind) && (tag == null || record.tags.includes(tag as string)) && (open == null || record.open === open),
            )
            .map(({ position }) => position);
          const matched = index.match({ kind, tag, open });
          if (kind == null && tag == null && open == null) {
            expect(matched).toBeNull();
            continue;
          }
          const label = JSON.stringify({ kind, tag, open });
          expect(positionsOf(matched!, records.length), label).toEqual(expected);
          expect(countPositions(matched!), label).toBe(expected.length);
          expect(firstPositions(matched!, 7), label).toEqual(expected.slice(0, 7));
          expect(firstPositions(matched!, records.length), label).toEqual(expected);
          combinations++;
        }
      }
    }
    expect(combinations).toBe(5 * 4 * 3 - 2);
  });

  it('never indexes a null value: a record without a kind matches no kind', () => {
    expect(records.some((record) => record.kind === null)).toBe(true);
    const anyKind = KINDS.filter((kind) => kind !== null).reduce((sum, kind) => sum + countPositions(index.match({ kind })!), 0);
    expect(anyKind).toBe(records.filter((record) => record.kind !== null).length);
  });

  it('answers the same sets for the same condition, whatever was asked before', () => {
    const hikes = positionsOf(index.match({ kind: 'hike' })!, records.length);
    index.match({ kind: 'hike', tag: 'family', open: true });
    index.match({ kind: 'hike', tag: 'unknown' });
    expect(positionsOf(index.match({ kind: 'hike' })!, records.length)).toEqual(hikes);
    expect(countPositions(index.match({ kind: 'unknown' })!)).toBe(0);
  });

  it('answers with empty sets over no records', () => {
    const empty = createFilterIndex([] as Item[], FILTERS);
    expect(countPositions(empty.match({ kind: 'hike', open: true })!)).toBe(0);
    expect(firstPositions(empty.match({ tag: 'family' })!, 10)).toEqual([]);
  });
});
