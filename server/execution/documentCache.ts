/**
 * The engine's store of what the checks made of documents (server/execution/engine.ts), bounded by
 * entries and by characters of document text, and the note of documents requested once.
 */

import { h32 } from '../util/xxhash.ts';

/** Characters of document text the cache may hold per entry of its size, on average. */
export const DOCUMENT_CHARS_PER_ENTRY = 512;

/** Hashes of documents requested once that the cache notes, per entry of its size. */
const SEEN_ONCE_PER_ENTRY = 4;

/** What is kept of one document text (or template key). */
export interface DocumentEntry<T> {
  /** What the checks made of the document, per operation name (null: none given). */
  readonly byName: Map<string | null, T>;
  /** Used since it was kept or last given a second chance. */
  used: boolean;
}

/**
 * Once it holds more than `maxEntries` operations, or more than `maxEntries` ×
 * {@link DOCUMENT_CHARS_PER_ENTRY} characters of document text (a parsed document takes about
 * 100 to 500 bytes per token, so large documents are bounded by their size rather than their
 * number), documents leave with their operations: those not used since they were kept (or last
 * given a second chance) first, while one that was used goes back to the end of the line once
 * (CLOCK, an approximation of least recently used that costs a hit no reordering). A document
 * longer than the whole budget is never kept.
 */
export class DocumentCache<T> {
  // By document text, then by operation name (null: none given).
  readonly #documents = new Map<string, DocumentEntry<T>>();
  // Hashes of the documents (and templates) requested once, by operation name: a document is kept
  // from its second request on, so a client that never repeats one (a query builder) cannot fill
  // the cache with operations used once and push out those used again and again.
  readonly #seenOnce = new Set<string>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #operations = 0;
  #chars = 0;

  /** @param maxEntries most operations kept; 0 keeps none */
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxEntries * DOCUMENT_CHARS_PER_ENTRY;
  }

  /** Operations held now. */
  get size(): number {
    return this.#operations;
  }

  /** What is kept of a document text (or template key), without marking it used. */
  get(text: string): DocumentEntry<T> | undefined {
    return this.#documents.get(text);
  }

  /** Whether a document (or template) was requested before; if not, notes that it now has been. */
  seenBefore(text: string, operationName: string | null): boolean {
    // A cache that keeps nothing has nothing to decide.
    if (this.#maxEntries === 0) return false;
    const key = `${h32(text)} ${operationName ?? ''}`;
    if (this.#seenOnce.delete(key)) return true;
    // A collision of hashes only keeps a document on its first request: the cost of a collision
    // is one early entry, never a wrong answer (entries are keyed by the whole text).
    if (this.#seenOnce.size >= this.#maxEntries * SEEN_ONCE_PER_ENTRY) this.#seenOnce.clear();
    this.#seenOnce.add(key);
    return false;
  }

  /** Keeps what the checks made of a document under an operation name, making room as the class comment says. */
  remember(text: string, operationName: string | null, value: T): void {
    if (text.length > this.#maxChars) return;
    let entry = this.#documents.get(text);
    if (entry === undefined) {
      this.#documents.set(text, (entry = { byName: new Map(), used: false }));
      this.#chars += text.length;
    }
    if (!entry.byName.has(operationName)) this.#operations++;
    entry.byName.set(operationName, value);
    for (const [key, candidate] of this.#documents) {
      if (this.#operations <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      // Map keeps insertion order: a document used since it was kept gets a second chance at the end.
      this.#documents.delete(key);
      if (candidate.used) {
        candidate.used = false;
        this.#documents.set(key, candidate);
      } else {
        this.#operations -= candidate.byName.size;
        this.#chars -= key.length;
      }
    }
  }
}
