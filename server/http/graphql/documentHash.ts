/**
 * The SHA-256 of a document for the request log (the hash automatic persisted queries use), kept
 * for the documents hashed lately: a document sent again is looked up by its text, which the
 * operation cache has hashed for its own lookup already, rather than hashed anew.
 */

import { hashQuery } from './persistedQueries.ts';

/** Characters of document text the memo holds; when full it starts over. */
const MAX_MEMO_CHARS = 1 << 20;

const memo = new Map<string, string>();
let memoChars = 0;

/** Lowercase hex SHA-256 of a document's text (UTF-8), as {@link hashQuery} computes it. */
export function documentHash(query: string): string {
  let hash = memo.get(query);
  if (hash !== undefined) return hash;
  hash = hashQuery(query);
  if (query.length > MAX_MEMO_CHARS) return hash;
  if (memoChars + query.length > MAX_MEMO_CHARS) {
    memo.clear();
    memoChars = 0;
  }
  memo.set(query, hash);
  memoChars += query.length;
  return hash;
}
