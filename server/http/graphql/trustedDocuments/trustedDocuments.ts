/**
 * Trusted documents (a persisted-document allow-list): the operations an app's build registered,
 * read from manifests (readManifest.ts), each checked against the schema and the limits that
 * depend on the document alone once, when loaded. A request names one by its id instead of
 * sending the query, and skips parsing and validation.
 */

import { readFile } from 'node:fs/promises';
import { getOperationAST, Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { DocumentChecker } from '../../../execution/limits.ts';
import { hashQuery } from '../persistedQueries.ts';
import { ManifestError, normaliseDocumentId, readManifest, type ManifestEntry } from './readManifest.ts';

/** One trusted document, checked. */
export interface TrustedDocument {
  /** The id its manifest gives it. */
  readonly id: string;
  /** The document's text, as the manifest has it. */
  readonly query: string;
  /** The hex sha256 of its text: the hash an automatic persisted query names it by, and logs show. */
  readonly hash: string;
  /** The text parsed; it passed the checks of the document alone (server/execution/limits.ts). */
  readonly document: DocumentNode;
  /** The names of its operations (an unnamed operation has none). */
  readonly operationNames: readonly string[];
  /** The manifest it comes from, as configured. */
  readonly file: string;
}

/** The trusted documents a server answers, by id. */
export interface TrustedDocuments {
  /**
   * The document of an id: the id its manifest gives it or the hex sha256 of its text (what an
   * automatic persisted query sends), with or without a `sha256:` prefix.
   */
  byId(id: string): TrustedDocument | undefined;
  /** The names of the operations of every document, e.g. to label metrics by operation name. */
  names(): ReadonlySet<string>;
  /** How many documents there are. */
  readonly size: number;
}

/**
 * Reads, checks and indexes the documents of manifest files; files may repeat an entry (the same
 * id and text).
 *
 * @param check the checker of the document alone, bound to the schema and limits served
 * @throws ManifestError naming the file (and the entry, the operation) for a file that cannot be
 *   read, a manifest in neither format, an id given two different texts, or a document that
 *   fails a check or holds an operation other than a query
 */
export async function loadTrustedDocuments(files: readonly string[], check: DocumentChecker): Promise<TrustedDocuments> {
  const byId = new Map<string, TrustedDocument>();
  const names = new Set<string>();
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ManifestError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    for (const entry of readManifest(file, text)) {
      const known = byId.get(entry.id);
      if (known) {
        if (known.query !== entry.body) throw new ManifestError(`${file}: id ${entry.id} is given another document than in ${known.file}; an id names one document`);
        continue;
      }
      const trusted = checkEntry(file, entry, check);
      byId.set(entry.id, trusted);
      for (const name of trusted.operationNames) names.add(name);
    }
  }
  // A document is also found by the sha256 of its text, as an automatic persisted query names it,
  // unless that hash is the id of another document.
  for (const trusted of [...byId.values()]) {
    if (!byId.has(trusted.hash)) byId.set(trusted.hash, trusted);
  }
  const count = new Set(byId.values()).size;
  return {
    byId: (id) => byId.get(normaliseDocumentId(id)),
    names: () => names,
    size: count,
  };
}

/** Checks one entry of a manifest. */
function checkEntry(file: string, entry: ManifestEntry, check: DocumentChecker): TrustedDocument {
  const where = () => `${file}: ${operationsOf(entry)} (id ${entry.id})`;
  const checked = check(entry.body);
  if (checked.errors) throw new ManifestError(`${where()}: ${checked.errors.map((error) => error.message).join('; ')}`);
  const operations = checked.document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  for (const operation of operations) {
    if (operation.operation !== 'query') {
      throw new ManifestError(`${where()}: holds a ${operation.operation}; this API answers queries only`);
    }
  }
  if (entry.name !== undefined && !getOperationAST(checked.document, entry.name)) {
    throw new ManifestError(`${where()}: the manifest names the operation "${entry.name}", which the document does not define`);
  }
  return {
    id: entry.id,
    query: entry.body,
    hash: hashQuery(entry.body),
    document: checked.document,
    operationNames: operations.flatMap((operation) => (operation.name ? [operation.name.value] : [])),
    file,
  };
}

/** How an error names an entry: its operation's name, else the names its text gives, else "an unnamed operation". */
function operationsOf(entry: ManifestEntry): string {
  if (entry.name) return `operation "${entry.name}"`;
  // Read from the text rather than the parsed document: the entry may be refused for not parsing.
  const names = [...entry.body.matchAll(/\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/g)].map((match) => `"${match[1]}"`);
  return names.length > 0 ? `operation ${names.join(', ')}` : 'an unnamed operation';
}
