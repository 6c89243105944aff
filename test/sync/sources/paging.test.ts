import { describe, expect, it } from 'vitest';
import { type Page, pageThrough } from '../../../sync/sources/paging.ts';

/** Pages of `size` numbered records out of `total`, declaring `total` unless told otherwise. */
function numbered(total: number, size: number, declare: { total?: number | null; pages?: (index: number) => number | null } = {}) {
  return async (index: number): Promise<Page<number>> => {
    const records = Array.from({ length: Math.max(0, Math.min(size, total - index * size)) }, (_, i) => index * size + i);
    return { records, ids: records, declaredTotal: declare.total === undefined ? total : declare.total, totalPages: declare.pages ? declare.pages(index) : Math.ceil(total / size) };
  };
}

async function run(fetchPage: (index: number) => Promise<Page<number>>, pageSize = 10) {
  const received: number[] = [];
  const result = await pageThrough({ what: 'test list', pageSize, fetchPage, onRecords: (records) => received.push(...records), onPage: () => {} });
  return { result, received };
}

describe('pageThrough', () => {
  it('pages to the declared end and hands on every record once, in order', async () => {
    const { result, received } = await run(numbered(25, 10));
    expect(result).toEqual({ declared: 25, received: 25, pages: 3 });
    expect(received).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('stops at the first short page when the upstream declares no total', async () => {
    const { result } = await run(numbered(25, 10, { total: null, pages: () => null }));
    expect(result).toEqual({ declared: null, received: 25, pages: 3 });
  });

  it('reports a short declared total as declared against received, without refusing it', async () => {
    const { result } = await run(numbered(25, 10, { total: 40 }));
    expect(result).toMatchObject({ declared: 40, received: 25 });
  });

  it('stops with an error naming the page when a page holds only ids seen before', async () => {
    const same = async (): Promise<Page<number>> => ({ records: [1, 2, 3], ids: [1, 2, 3], declaredTotal: null, totalPages: null });
    await expect(run(same, 3)).rejects.toThrow('test list page 2: every id was on an earlier page (the upstream repeats a page); stopped');
  });

  it('does not page past the budget the first page declared when totalPages keeps growing', async () => {
    let requests = 0;
    const growing = async (index: number): Promise<Page<number>> => {
      requests++;
      const records = Array.from({ length: 10 }, (_, i) => index * 10 + i);
      return { records, ids: records, declaredTotal: null, totalPages: index + 2 };
    };
    await expect(run(growing)).rejects.toThrow('test list page 4: more pages than the 2 the first page declared; stopped');
    expect(requests).toBe(4);
  });
});
