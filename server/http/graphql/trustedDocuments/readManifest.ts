/**
 * The two common manifest formats of trusted documents, read into one list of entries:
 *
 * - GraphQL Code Generator's client preset with `persistedDocuments: true` writes
 *   `persisted-documents.json`, `{ "<hash>": "<document>" }`
 *   (https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#persisted-documents);
 * - Apollo's `generate-persisted-query-manifest` writes a persisted query list,
 *   `{ "format": "apollo-persisted-query-manifest", "version": 1, "operations": [{ id, name, type, body }] }`
 *   (https://www.apollographql.com/docs/graphos/platform/security/persisted-queries#manifest-format).
 */

/** Marks an Apollo persisted query list. */
export const APOLLO_MANIFEST_FORMAT = 'apollo-persisted-query-manifest';

/** One document of a manifest, as it says it. */
export interface ManifestEntry {
  /** The id clients send (a hash in both formats), normalised by {@link normaliseDocumentId}. */
  readonly id: string;
  /** The document's text. */
  readonly body: string;
  /** The operation's name, when the manifest names it (Apollo's do). */
  readonly name?: string;
}

/** A manifest that cannot be used; the message names the file and the entry. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

/**
 * An id as it is looked up: without a `sha256:` prefix (GraphQL over HTTP's persisted documents
 * write hashes so), and a hex sha256 in lowercase.
 */
export function normaliseDocumentId(id: string): string {
  const bare = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
  return /^[0-9a-fA-F]{64}$/.test(bare) ? bare.toLowerCase() : bare;
}

/**
 * Reads the entries of a manifest's text.
 *
 * @param file the manifest's path, named by every error
 * @throws ManifestError for text that is no JSON, a manifest in neither format, or an entry
 *   without a string id and body
 */
export function readManifest(file: string, text: string): ManifestEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`${file}: not JSON (${(error as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw neitherFormat(file);
  if ('format' in json) return readApolloManifest(file, json as Record<string, unknown>);
  const entries = Object.entries(json);
  if (!entries.every(([, body]) => typeof body === 'string')) throw neitherFormat(file);
  return entries.map(([id, body]) => ({ id: normaliseDocumentId(id), body: body as string }));
}

function readApolloManifest(file: string, json: Record<string, unknown>): ManifestEntry[] {
  if (json.format !== APOLLO_MANIFEST_FORMAT) throw neitherFormat(file);
  if (json.version !== 1) throw new ManifestError(`${file}: Apollo persisted query list version ${JSON.stringify(json.version)} is not supported; expected 1`);
  if (!Array.isArray(json.operations)) throw new ManifestError(`${file}: an Apollo persisted query list needs "operations", an array of { id, name, type, body }`);
  return json.operations.map((operation: unknown, index) => {
    const { id, name, body } = (typeof operation === 'object' && operation !== null ? operation : {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '' || typeof body !== 'string' || (name !== undefined && typeof name !== 'string')) {
      throw new ManifestError(`${file}: operations[${index}] is not { id, name, type, body } with a non-empty string id and a string body`);
    }
    return { id: normaliseDocumentId(id), body, ...(name === undefined ? {} : { name }) };
  });
}

function neitherFormat(file: string): ManifestError {
  return new ManifestError(
    `${file}: neither a GraphQL Code Generator persisted-documents.json ({ "<hash>": "<document>" }) nor an Apollo persisted query list ({ "format": "${APOLLO_MANIFEST_FORMAT}", "version": 1, "operations": [...] })`,
  );
}
