import type { Store } from '../snapshot/store.ts';
import type { SourceName } from '../../sync/format.ts';
import type { SourceTerms } from '../config/config.ts';

/** Each source's terms as one served snapshot answers them (terms.ts). */
export type ServedTerms = Readonly<Record<SourceName, SourceTerms>>;

/** What every resolver receives: the store of the snapshot current when the request began, its day and its terms. */
export interface Context {
  readonly store: Store;
  /**
   * The day the request is answered on in Europe/Zurich, `YYYY-MM-DD`: what an activity's next
   * available date and whether it is bookable are worked out against (server/http/snapshotHolder.ts).
   */
  readonly today: string;
  /** Each source's licence and attribution, as the settings give them for this snapshot (terms.ts). */
  readonly terms: ServedTerms;
}
