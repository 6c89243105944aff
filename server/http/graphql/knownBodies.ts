/**
 * The parameters of POST bodies answered before, by their exact bytes. A client sends the same
 * body for the same query and variables, again and again (a page's queries, a search box's first
 * keystrokes), and without the response cache parsing that body was the largest single cost of
 * a small answer after the answer itself. A body found here skips JSON.parse, and its variables
 * come back as the same object, which lets the operation find their coercion without writing
 * them out as JSON again (server/execution/preparedOperation.ts).
 *
 * Only bodies the fast path executed are remembered, none with a persisted query (its lookup
 * writes the stored query into the parameters). The remembered parameters are frozen, all the way
 * down: every request that sends those bytes shares them.
 */

import { deepFreeze } from '../../util/deepFreeze.ts';
import { h32Raw } from '../../util/xxhash.ts';
import type { SentParams } from './requestParams.ts';

/**
 * Longest body remembered, in bytes. The bodies that repeat are those of a client's operations
 * with short variables; a long one is most often a one-off.
 */
export const MAX_KNOWN_BODY_BYTES = 4096;

/** Bytes of remembered bodies, in all; past it, they are forgotten together and learned again. */
export const KNOWN_BODIES_BUDGET_BYTES = 1 << 20;

/** A remembered body; bodies whose bytes share a hash are chained. */
interface Known {
  readonly bytes: Buffer;
  readonly params: SentParams;
  readonly next: Known | undefined;
}

export class KnownBodies {
  // Keyed by a number rather than by the body as a string: a string would be decoded and hashed
  // anew for every lookup.
  readonly #byHash = new Map<number, Known>();
  #bytes = 0;

  /** The parameters of a body remembered with these exact bytes. */
  get(raw: Buffer): SentParams | undefined {
    if (this.#bytes === 0 || raw.length > MAX_KNOWN_BODY_BYTES) return undefined;
    return this.#find(h32Raw(raw), raw)?.params;
  }

  /** Remembers the parameters `raw` parses to, frozen; a body past {@link MAX_KNOWN_BODY_BYTES} is not. */
  remember(raw: Buffer, params: SentParams): void {
    if (raw.length > MAX_KNOWN_BODY_BYTES) return;
    const hash = h32Raw(raw);
    if (this.#find(hash, raw) !== undefined) return;
    if (this.#bytes + raw.length > KNOWN_BODIES_BUDGET_BYTES) this.clear();
    // A copy of its own: a small request's buffer is a slice of a pool it would keep alive.
    const bytes = Buffer.allocUnsafeSlow(raw.length);
    raw.copy(bytes);
    this.#byHash.set(hash, { bytes, params: deepFreeze(params), next: this.#byHash.get(hash) });
    this.#bytes += bytes.length;
  }

  #find(hash: number, raw: Buffer): Known | undefined {
    for (let known = this.#byHash.get(hash); known !== undefined; known = known.next) {
      if (known.bytes.equals(raw)) return known;
    }
    return undefined;
  }

  /** Bytes of the bodies remembered. */
  get bytes(): number {
    return this.#bytes;
  }

  clear(): void {
    this.#byHash.clear();
    this.#bytes = 0;
  }
}
