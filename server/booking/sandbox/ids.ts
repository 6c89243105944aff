/** The ids the sandbox gives its records and tickets. */

import { randomBytes } from 'node:crypto';

/** A new id: a type prefix and 16 random hex digits, e.g. `bkg_3f9a0c2e1b7d4a65`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** The id of the ticket of a booking item: `tkt_` and the item id's hex digits. */
export function ticketId(itemId: string): string {
  return `tkt_${itemId.slice(itemId.indexOf('_') + 1)}`;
}

/** The id of the booking item a ticket id names (the inverse of {@link ticketId}). */
export function itemIdOfTicket(id: string): string {
  return `itm_${id.slice('tkt_'.length)}`;
}
