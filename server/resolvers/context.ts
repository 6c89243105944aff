import type { Store } from '../snapshot/store.ts';

/** What every resolver receives: the store of the snapshot current when the request began. */
export interface Context {
  readonly store: Store;
}
