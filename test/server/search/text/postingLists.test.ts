import { describe, expect, it } from 'vitest';
import { positionSetOf } from '../../../../server/search/positionSet.ts';
import { holdsAsBitset, PostingListsBuilder, type PostingLists } from '../../../../server/search/text/postingLists.ts';

/** List `list` of `lists` as a plain array. */
function listOf(lists: PostingLists, list: number): number[] {
  return [...lists.positions.subarray(lists.starts[list], lists.starts[list + 1])];
}

describe('PostingListsBuilder', () => {
  it('numbers the lists in the order added and gives each back as it was', () => {
    const builder = new PostingListsBuilder(100);
    const added = [[3], [0, 1, 2, 99], [7], [5, 50]];
    expect(added.map((positions) => builder.add(positions))).toEqual([0, 1, 2, 3]);
    expect(builder.count).toBe(4);
    const lists = builder.build();
    expect(added.map((_, list) => listOf(lists, list))).toEqual(added);
    expect(lists.starts).toHaveLength(added.length + 1);
    expect(lists.positions).toHaveLength(8);
  });

  it('keeps every position when the lists outgrow the room it starts with', () => {
    const size = 5_000;
    const builder = new PostingListsBuilder(size);
    const added = Array.from({ length: 300 }, (_, list) => Array.from({ length: list % 40 }, (_, i) => (list * 7 + i * 13) % size).sort((a, b) => a - b));
    for (const positions of added) builder.add(positions);
    const lists = builder.build();
    expect(added.map((_, list) => listOf(lists, list))).toEqual(added);
  });

  it('holds a list as a bitset too when it has as many positions as the bitset has words', () => {
    // 64 documents: two 32-bit words.
    const builder = new PostingListsBuilder(64);
    const short = builder.add([10]);
    const long = builder.add([1, 40]);
    const lists = builder.build();
    expect(holdsAsBitset(1, 64)).toBe(false);
    expect(lists.bitsets.has(short)).toBe(false);
    expect(lists.bitsets.get(long)).toEqual(positionSetOf(64, [1, 40]));
  });

  it('builds an empty set of lists', () => {
    const lists = new PostingListsBuilder(10).build();
    expect(lists.positions).toHaveLength(0);
    expect([...lists.starts]).toEqual([0]);
  });
});
