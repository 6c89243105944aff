/**
 * Automatic persisted queries in a cluster (WORKERS > 1): a query registered with one worker is
 * known to every worker. Otherwise each worker keeps its own store, and a client whose hashed
 * GET reaches another worker than its registration gets PERSISTED_QUERY_NOT_FOUND and falls back
 * to a POST, nearly every time with several workers.
 *
 * A worker publishes each query it newly stores (its hash verified, the query through every
 * check) to the primary; the primary keeps them in a store bounded as a worker's is
 * (APQ_CACHE_BYTES) and passes each one it did not know to the other workers. A worker that
 * starts, or restarts, asks for the primary's store and gets it in one message. What the primary
 * takes is bounded: one query of at most MAX_BODY_BYTES per registration, none it knows already,
 * and the store's own budget in all.
 */

import cluster, { type Worker } from 'node:cluster';
import { createPersistedQueries, type PersistedQueryRelay } from './persistedQueries.ts';

/** From a worker to the primary, once it listens: send me the queries known so far. */
interface ReadyMessage {
  type: 'persisted-queries:ready';
}
/** From a worker to the primary: a query newly stored here. */
interface RegisteredMessage {
  type: 'persisted-queries:registered';
  sha256Hash: string;
  query: string;
}
/** From the primary to a worker: queries registered with other workers, `[sha256Hash, query]`. */
interface ShareMessage {
  type: 'persisted-queries:share';
  queries: [string, string][];
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The primary's side: relays the queries registered with one worker to the others, and gives a
 * starting worker those known so far. Does nothing when persisted queries are off.
 *
 * @param options.maxBytes the store's budget in bytes of entries (APQ_CACHE_BYTES; see createPersistedQueries)
 * @param options.maxQueryBytes the largest query a worker can have been sent (MAX_BODY_BYTES)
 */
export function relayPersistedQueries(options: { maxBytes: number; maxQueryBytes: number }): void {
  if (options.maxBytes === 0) return;
  const known = createPersistedQueries(options.maxBytes);
  const send = (worker: Worker, queries: [string, string][]) => {
    if (worker.isConnected()) worker.send({ type: 'persisted-queries:share', queries } satisfies ShareMessage);
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (isMessage<ReadyMessage>(message, 'persisted-queries:ready')) {
      const queries = [...known.entries()];
      if (queries.length > 0) send(worker, queries);
    } else if (isMessage<RegisteredMessage>(message, 'persisted-queries:registered')) {
      const { sha256Hash, query } = message;
      if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash) || typeof query !== 'string') return;
      if (Buffer.byteLength(query) > options.maxQueryBytes || !known.set(sha256Hash, query)) return;
      for (const other of Object.values(cluster.workers ?? {})) {
        if (other && other !== worker) send(other, [[sha256Hash, query]]);
      }
    }
  });
}

/**
 * A worker's side, to give its store (see createPersistedQueries): it listens to the primary
 * from now on, keeping what arrives until the store subscribes, and asks for the queries known
 * so far. Call it before the worker's first turn of the event loop ends: a message the primary
 * sends before anyone listens is lost.
 */
export function workerPersistedQueries(): PersistedQueryRelay {
  let deliver: ((sha256Hash: string, query: string) => void) | undefined;
  const pending: [string, string][] = [];
  process.on('message', (message: unknown) => {
    if (!isMessage<ShareMessage>(message, 'persisted-queries:share')) return;
    for (const [sha256Hash, query] of message.queries) {
      if (deliver) deliver(sha256Hash, query);
      else pending.push([sha256Hash, query]);
    }
  });
  send({ type: 'persisted-queries:ready' } satisfies ReadyMessage);
  return {
    publish(sha256Hash, query) {
      send({ type: 'persisted-queries:registered', sha256Hash, query } satisfies RegisteredMessage);
    },
    subscribe(onQuery) {
      deliver = onQuery;
      for (const [sha256Hash, query] of pending.splice(0)) onQuery(sha256Hash, query);
    },
  };
}

/** Sends to the primary; once it is gone (the worker is draining) there is no one to tell. */
function send(message: ReadyMessage | RegisteredMessage): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => {});
}
