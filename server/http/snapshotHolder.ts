import type { ServedSnapshot } from './httpOptions.ts';
import type { Context } from '../resolvers/context.ts';
import type { Store } from '../snapshot/store.ts';

/** What requests are served from now: a store, and what the HTTP layer reads of it. */
export interface Served extends ServedSnapshot {
  readonly store: Store;
  readonly context: Context;
}

/**
 * The one place that holds the current store. Each request takes {@link SnapshotHolder.served}
 * once and keeps it to the end, so replacing the store (hot reload) never mixes two snapshots in
 * one answer, and ETags always name the snapshot an answer came from.
 */
export class SnapshotHolder {
  #served: Served;

  constructor(store: Store) {
    this.#served = describe(store);
  }

  /** The store requests are served from now. */
  get store(): Store {
    return this.#served.store;
  }

  /** The store with its version, context value and dates, built once per store. */
  get served(): Served {
    return this.#served;
  }

  /** Serves every later request from `store`; requests in flight finish on the previous one. */
  replace(store: Store): void {
    this.#served = describe(store);
  }
}

function describe(store: Store): Served {
  const lastSyncMs: Record<string, number> = {};
  let expiresAtMs: number | null = null;
  // Generated fixture data never goes out of date (its dates are fixed so that it regenerates
  // byte for byte): caches keep its answers for the policy's max-age, not for max-age=0.
  const expires = store.snapshot.manifest.fixture === undefined;
  for (const [name, entry] of Object.entries(store.snapshot.manifest.sources)) {
    if (!entry) continue;
    lastSyncMs[name] = Date.parse(entry.lastSync);
    if (!expires) continue;
    const sourceExpiresAtMs = Date.parse(entry.expiresAt);
    expiresAtMs = expiresAtMs === null ? sourceExpiresAtMs : Math.min(expiresAtMs, sourceExpiresAtMs);
  }
  return { store, version: store.snapshot.version, context: { store }, sizes: store.sizes, expiresAtMs, lastSyncMs, fixture: !expires };
}
