/**
 * Which trusted document a request asks for: by `documentId` (the parameter of GraphQL over
 * HTTP's persisted documents, in a POST's body or a GET's query string), or by the hash of an automatic persisted query (Apollo's `extensions.persistedQuery`). With
 * only trusted documents allowed (PERSISTED_DOCUMENTS_ONLY), every other request is refused.
 */

import { GraphQLError } from 'graphql';
import { persistedQueryNotFound, readPersistedQuery } from '../persistedQueries.ts';
import type { TrustedDocument, TrustedDocuments } from './trustedDocuments.ts';

/** Longest `documentId` looked up; no manifest's id comes near it. */
const MAX_DOCUMENT_ID_CHARS = 256;

/** The refusal, when only trusted documents are allowed, of a request that names none. */
export function trustedDocumentRequired(): GraphQLError {
  return new GraphQLError(
    'Only trusted documents are answered: send the documentId (or extensions.persistedQuery.sha256Hash) of a document the server was given, without the query',
    { extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED' } },
  );
}

/** The refusal of a `documentId` that names no trusted document. */
function unknownDocument(): GraphQLError {
  return new GraphQLError('PersistedQueryNotFound: the documentId names none of the trusted documents of this server', {
    extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
  });
}

/**
 * Resolves the trusted document of a request, writing its text into `params.query`.
 *
 * @param trusted the trusted documents, or null when the server has none
 * @param only whether every request must name a trusted document
 * @returns the document, or null when the request names none and may go on as it is (an
 *   automatic persisted query, a query sent in full)
 * @throws Error (a 400 Bad Request) for a `documentId` that is no string, or sent with a query;
 *   GraphQLError PERSISTED_QUERY_NOT_FOUND for an id no document has; GraphQLError
 *   TRUSTED_DOCUMENT_REQUIRED when `only` and the request names no trusted document
 */
export function resolveTrustedDocument(
  params: { query: unknown; documentId?: unknown; extensions: unknown },
  trusted: TrustedDocuments | null,
  only: boolean,
): TrustedDocument | null {
  const { documentId } = params;
  if (documentId != null) {
    if (typeof documentId !== 'string' || documentId === '' || documentId.length > MAX_DOCUMENT_ID_CHARS) {
      throw new Error(`documentId must be the id of a trusted document, a string of 1 to ${MAX_DOCUMENT_ID_CHARS} characters (a hash, optionally prefixed by "sha256:")`);
    }
    if (params.query != null) throw new Error('Send either documentId or query, not both');
    const found = trusted?.byId(documentId);
    if (!found) throw unknownDocument();
    params.query = found.query;
    return found;
  }
  if (trusted === null) return null;
  const persisted = readPersistedQuery(params.extensions);
  const found = persisted && trusted.byId(persisted.sha256Hash);
  // A query sent along must be the document's: otherwise its hash does not match, which the
  // automatic persisted queries refuse.
  if (found && (params.query == null || params.query === found.query)) {
    params.query = found.query;
    return found;
  }
  if (!only) return null;
  if (persisted && params.query == null) throw persistedQueryNotFound();
  throw trustedDocumentRequired();
}
