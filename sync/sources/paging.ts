/**
 * The one paging loop the sources share: asks for page after page, hands each page's records on
 * at once (no raw page is kept), and stops a source whose upstream pages wrongly — a page of ids
 * all seen before, or more pages than the declared total allows.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { PageProgress } from '../source.ts';

/** One page as a source read it. */
export interface Page<T> {
  records: T[];
  /** The id of each record, as far as it could be read (null when not). */
  ids: readonly (string | number | null)[];
  /** The records the upstream declares in all, when it says. */
  declaredTotal: number | null;
  /** The pages the upstream declares in all, when it says. */
  totalPages: number | null;
}

export interface PagingOptions<T> {
  /** Names the pages in errors, e.g. `STnet stations` or `MySwitzerland tours de`. */
  what: string;
  /** Records a full page holds: a shorter page is the last when the upstream declares no total. */
  pageSize: number;
  /** Fetches page `index` (0 for the first). */
  fetchPage(index: number): Promise<Page<T>>;
  /** Gets each page's records as soon as the page is read. */
  onRecords(records: T[]): void;
  onPage(progress: PageProgress): void;
  /** Pause between two pages, in ms; default none. */
  pauseMs?: number;
}

/** What a paged fetch received against what the upstream declared. */
export interface PagingResult {
  /** The total the first page declared; null when it declared none. */
  declared: number | null;
  /** Records received on all pages. */
  received: number;
  pages: number;
}

/** Pages beyond the declared count a fetch may take, for records added while it pages. */
const PAGE_SLACK = 1;
/** Most pages of an upstream that declares no total: far above any real one. */
const MAX_UNDECLARED_PAGES = 10_000;

/**
 * Pages until the declared page count, or (without one) until a page is shorter than
 * `pageSize`. The budget is set by the first page's declared totals and never grows.
 *
 * @throws Error naming `what` and the page when a page holds only ids seen before, or when the
 *   upstream keeps sending pages past the budget its first page declared
 */
export async function pageThrough<T>(options: PagingOptions<T>): Promise<PagingResult> {
  const seen = new Set<string | number>();
  const progress: PageProgress = { pages: 0, totalPages: null, items: 0 };
  let declared: number | null = null;
  let budget = MAX_UNDECLARED_PAGES;
  for (let index = 0; ; index++) {
    if (index > 0 && options.pauseMs) await sleep(options.pauseMs);
    const page = await options.fetchPage(index);
    if (index === 0) {
      declared = page.declaredTotal;
      const fromTotal = declared === null ? null : Math.ceil(declared / options.pageSize);
      const pages = Math.max(page.totalPages ?? 0, fromTotal ?? 0);
      if (page.totalPages !== null || fromTotal !== null) budget = pages + PAGE_SLACK;
    } else if (index >= budget) {
      throw new Error(`${options.what} page ${index + 1}: more pages than the ${budget - PAGE_SLACK} the first page declared; stopped`);
    }
    const known = page.ids.filter((id): id is string | number => id !== null);
    if (index > 0 && known.length > 0 && known.every((id) => seen.has(id))) {
      throw new Error(`${options.what} page ${index + 1}: every id was on an earlier page (the upstream repeats a page); stopped`);
    }
    for (const id of known) seen.add(id);
    options.onRecords(page.records);
    progress.pages = index + 1;
    progress.totalPages = page.totalPages ?? (declared === null ? null : Math.ceil(declared / options.pageSize));
    progress.items += page.records.length;
    options.onPage({ ...progress });
    const last = page.totalPages !== null ? index + 1 >= page.totalPages : page.records.length < options.pageSize;
    if (last || page.records.length === 0) return { declared, received: progress.items, pages: progress.pages };
  }
}
