/**
 * Sync progress a person can follow: on a terminal, one line per source, redrawn in place
 * (pages per locale, items, retries); elsewhere (CI logs) plain lines, a few per locale.
 */

import type { RetryEvent } from './client.ts';
import type { PageProgress } from './source.ts';

/** Counters of one source, for the closing summary. */
export interface SourceStats {
  /** Pages (requests that returned data) over all parts. */
  pages: number;
  /** Upstream records received over all parts. */
  items: number;
  retries: number;
}

export interface Progress {
  /** After each page of `part` (a locale or a shared part such as `content`). */
  page(source: string, part: string, progress: PageProgress): void;
  /** Before a retry's wait. */
  retry(source: string, part: string, event: RetryEvent): void;
  /** The source's fetch ended; `outcome` is a short phrase such as `fetched` or `failed: …`. */
  done(source: string, outcome: string): void;
  stats(source: string): SourceStats;
  /** Draws the final state and stops redrawing. */
  stop(): void;
}

export interface ProgressOptions {
  /** Where progress goes (stderr in the CLI). */
  stream: NodeJS.WritableStream & { columns?: number };
  /** Redraw lines in place; otherwise print plain lines. */
  tty: boolean;
  /** The sources in display order. */
  sources: readonly string[];
  /** Least time between two redraws on a terminal, in ms. Default 100. */
  redrawMs?: number;
}

/** In plain mode a part logs its first page, every this many pages, and its last page. */
const PLAIN_EVERY_PAGES = 10;

interface SourceState {
  parts: Map<string, PageProgress>;
  retries: number;
  lastRetry: string | null;
  outcome: string | null;
}

/** Creates the progress display; see {@link ProgressOptions}. */
export function createProgress(options: ProgressOptions): Progress {
  const { stream, tty } = options;
  const states = new Map<string, SourceState>(options.sources.map((s) => [s, { parts: new Map(), retries: 0, lastRetry: null, outcome: null }]));
  const width = Math.max(...options.sources.map((s) => s.length));
  const state = (source: string): SourceState => {
    let found = states.get(source);
    if (!found) states.set(source, (found = { parts: new Map(), retries: 0, lastRetry: null, outcome: null }));
    return found;
  };
  let drawn = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const line = (source: string): string => {
    const s = state(source);
    // Sorted, so parts keep their place whatever order they report in: content, de-CH, en-CH…
    const parts = [...s.parts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([part, p]) => `${part} ${p.pages}${p.totalPages ? `/${p.totalPages}` : ''}`).join('  ');
    const { items } = totals(s);
    const head = `${source.padEnd(width)}  ${s.outcome ?? 'fetching'}`;
    const tail = [parts, `${formatCount(items)} items`, s.retries ? `${s.retries} ${s.retries === 1 ? 'retry' : 'retries'}${s.outcome ? '' : ` (last: ${s.lastRetry})`}` : ''].filter(Boolean);
    const text = `${head}  ${tail.join(' · ')}`;
    // A wrapped line would break the cursor arithmetic of the redraw.
    // Some pseudo-terminals report 0 columns.
    const columns = stream.columns && stream.columns >= 40 ? stream.columns : 100;
    return text.length >= columns ? `${text.slice(0, columns - 2)}…` : text;
  };

  const draw = () => {
    timer = null;
    let out = drawn > 0 ? `\x1b[${drawn}A` : '';
    for (const source of states.keys()) out += `\x1b[2K${line(source)}\n`;
    drawn = states.size;
    stream.write(out);
  };
  const schedule = () => {
    if (!tty || stopped || timer) return;
    timer = setTimeout(draw, drawn === 0 ? 0 : (options.redrawMs ?? 100));
  };
  const print = (text: string) => {
    if (!tty) stream.write(`${text}\n`);
  };

  return {
    page(source, part, progress) {
      const s = state(source);
      s.parts.set(part, { ...progress });
      const last = progress.totalPages !== null && progress.pages >= progress.totalPages;
      if (progress.pages === 1 || progress.pages % PLAIN_EVERY_PAGES === 0 || last) {
        print(`${source} ${part}: page ${progress.pages}${progress.totalPages ? ` of ${progress.totalPages}` : ''}, ${formatCount(progress.items)} items`);
      }
      schedule();
    },
    retry(source, part, event) {
      const s = state(source);
      s.retries++;
      s.lastRetry = `${event.reason}, waiting ${formatSeconds(event.delayMs)}`;
      print(`${source} ${part}: attempt ${event.attempt} of ${event.maxAttempts} failed (${event.reason}), retrying in ${formatSeconds(event.delayMs)}: ${event.method} ${event.url}`);
      schedule();
    },
    done(source, outcome) {
      const s = state(source);
      s.outcome = outcome;
      const { pages, items } = totals(s);
      print(`${source}: ${outcome} (${formatCount(items)} items in ${pages} pages${s.retries ? `, ${s.retries} retries` : ''})`);
      schedule();
    },
    stats(source) {
      const s = state(source);
      return { ...totals(s), retries: s.retries };
    },
    stop() {
      if (timer) clearTimeout(timer);
      if (tty && !stopped && states.size > 0) draw();
      stopped = true;
    },
  };
}

function totals(s: SourceState): { pages: number; items: number } {
  let pages = 0;
  let items = 0;
  for (const p of s.parts.values()) {
    pages += p.pages;
    items += p.items;
  }
  return { pages, items };
}

/** `12,345`: thousands separated by commas, whatever the machine's locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `0.4 s`, `12 s`. */
export function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
