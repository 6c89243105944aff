/** What every sandbox query and command reads: the state, the catalog and the caps. */

import type { Catalog } from './catalog.ts';
import type { SandboxState } from './state.ts';

/** The caps on carts and holds (settings BOOKING_MAX_CART_ITEMS and BOOKING_MAX_HELD_PLACES). */
export interface CartLimits {
  /** Most reservations one cart takes. */
  readonly maxCartItems: number;
  /** Most places one client may hold at once in reservations not yet checked out. */
  readonly maxHeldPlaces: number;
}

/** One sandbox's parts, as createSandbox (sandbox.ts) composes them. */
export interface SandboxContext {
  readonly state: SandboxState;
  readonly catalog: Catalog;
  readonly limits: CartLimits;
}
