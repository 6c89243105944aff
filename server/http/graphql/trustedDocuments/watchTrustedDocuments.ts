/**
 * Trusted documents that follow their manifests: loaded at start (a bad manifest stops the
 * start), then loaded again whenever a manifest file changes, as the snapshot is
 * (server/snapshot/reload.ts): its directory watched, backed by a periodic stat. A reload that
 * fails keeps the documents served and reports the error.
 */

import type { DocumentChecker } from '../../../execution/limits.ts';
import { fileSignature, watchFileEvents } from '../../../util/watchFile.ts';
import { loadTrustedDocuments, type TrustedDocuments } from './trustedDocuments.ts';

export interface WatchTrustedDocumentsOptions {
  /** The manifest files (PERSISTED_DOCUMENTS). */
  files: readonly string[];
  /** The checker of the document alone, bound to the schema and limits served. */
  check: DocumentChecker;
  /** Called with the documents of each reload once they replace those served. */
  onReload(documents: TrustedDocuments): void;
  /** Called when a reload was refused (the documents served stay), or a file cannot be watched. */
  onError(error: Error): void;
  /** Quiet time after the last change event before loading, in ms. Default 250. */
  debounceMs?: number;
  /** Interval of the stat fallback, in ms. Default 5 000. */
  pollMs?: number;
}

/** Trusted documents that follow their files until closed. */
export interface WatchedTrustedDocuments extends TrustedDocuments {
  /** Stops watching; a load in progress is not swapped in. */
  close(): void;
}

/**
 * Loads the manifests and watches them; see the module comment.
 *
 * @throws ManifestError naming the file and the operation, when the first load fails
 */
export async function watchTrustedDocuments(options: WatchTrustedDocumentsOptions): Promise<WatchedTrustedDocuments> {
  const { files, check } = options;
  const signatures = async () => (await Promise.all(files.map((file) => fileSignature(file).catch(() => null)))).join('|');
  let seen = await signatures();
  let current = await loadTrustedDocuments(files, check);
  let loading = false;
  let again = false;
  let closed = false;
  let debounce: NodeJS.Timeout | null = null;

  async function reload(): Promise<void> {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      const signature = await signatures();
      if (signature === seen) return;
      // Marked seen before loading: a manifest refused is not loaded again until it changes.
      seen = signature;
      const next = await loadTrustedDocuments(files, check);
      if (closed) return;
      current = next;
      options.onReload(next);
    } catch (error) {
      if (!closed) options.onError(error as Error);
    } finally {
      loading = false;
      if (again && !closed) {
        again = false;
        void reload();
      }
    }
  }

  const schedule = () => {
    if (closed) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      void reload();
    }, options.debounceMs ?? 250);
  };
  const watchers = files.map((file) => watchFileEvents(file, schedule, options.onError));
  const poll = setInterval(() => void reload(), options.pollMs ?? 5_000);
  poll.unref();

  return {
    byId: (id) => current.byId(id),
    names: () => current.names(),
    get size() {
      return current.size;
    },
    close() {
      closed = true;
      for (const watcher of watchers) watcher.close();
      clearInterval(poll);
      if (debounce) clearTimeout(debounce);
    },
  };
}
