import type { ServedSnapshot } from './httpOptions.ts';
import { DEFAULT_SOURCE_TERMS } from '../config/sourceTerms.ts';
import type { Context } from '../resolvers/context.ts';
import { type ServedTerms, servedTerms } from '../resolvers/terms.ts';
import type { Store } from '../snapshot/store.ts';
import { nextZurichMidnightMs, zurichDay, zurichMidnightMs } from '../util/zurichDay.ts';

/** What requests are served from now: a store, and what the HTTP layer reads of it. */
export interface Served extends ServedSnapshot {
  readonly store: Store;
  readonly context: Context;
}

/**
 * The one place that holds the current store. Each request takes {@link SnapshotHolder.served}
 * once and keeps it to the end, so replacing the store (hot reload) never mixes two snapshots in
 * one answer, and ETags always name the snapshot an answer came from.
 *
 * What is served is also one Zurich day's: some answers are worked out against the day they are
 * answered on (an activity's next available date), so at midnight the store is served anew, with
 * the new day in the context. The caches that belong to what is served (the response cache, the
 * record bytes cache) are then emptied, as on a new snapshot.
 */
export class SnapshotHolder {
  #served: Served;
  readonly #clock: () => number;
  readonly #terms: ServedTerms;
  /** When the day of {@link #served} begins and ends, ms since the epoch. */
  #dayStartsAtMs: number;
  #dayEndsAtMs: number;

  /**
   * @param clock ms since the epoch, the day requests are answered on is read from; default Date.now
   * @param terms each source's licence and attribution (Config.terms); default the settings' defaults
   */
  constructor(store: Store, clock: () => number = Date.now, terms: ServedTerms = DEFAULT_SOURCE_TERMS) {
    this.#clock = clock;
    this.#terms = terms;
    const now = clock();
    const today = zurichDay(now);
    this.#served = describe(store, today, terms);
    this.#dayStartsAtMs = zurichMidnightMs(today);
    this.#dayEndsAtMs = nextZurichMidnightMs(now);
  }

  /** The store requests are served from now. */
  get store(): Store {
    return this.#served.store;
  }

  /** The store with its version, context value and dates, built once per store and day. */
  get served(): Served {
    const now = this.#clock();
    // A clock set back (by NTP, say) serves the day it then reads as well.
    if (now >= this.#dayEndsAtMs || now < this.#dayStartsAtMs) this.#serve(this.#served.store, now);
    return this.#served;
  }

  /** Serves every later request from `store`; requests in flight finish on the previous one. */
  replace(store: Store): void {
    this.#serve(store, this.#clock());
  }

  #serve(store: Store, now: number): void {
    const today = zurichDay(now);
    this.#served = describe(store, today, this.#terms);
    this.#dayStartsAtMs = zurichMidnightMs(today);
    this.#dayEndsAtMs = nextZurichMidnightMs(now);
  }
}

function describe(store: Store, today: string, terms: ServedTerms): Served {
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
  return { store, version: store.snapshot.version, context: { store, today, terms: servedTerms(terms, !expires) }, sizes: store.sizes, expiresAtMs, lastSyncMs, fixture: !expires };
}
