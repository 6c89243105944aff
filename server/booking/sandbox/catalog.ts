/**
 * What the sandbox sells: the current snapshot's activities, their price per place and the slots
 * offered (availability.ts). Read per request, so a reloaded snapshot is sold at once.
 */

import type { ActivityRecord } from '../../../sync/format.ts';
import { LOCALES, type Locale } from '../../snapshot/locales.ts';
import { addDays, isOffered, slotsOn, type Slot } from '../availability.ts';
import type { Money } from './records.ts';

/** The snapshot's activities, looked up by their booking id. */
export class Catalog {
  /** Per snapshot (its records array): the records by booking id. */
  private readonly byBookingId = new WeakMap<readonly ActivityRecord[], Map<number, ActivityRecord>>();

  /** @param activities the current snapshot's activities of a locale */
  constructor(readonly activities: (locale: Locale) => readonly ActivityRecord[]) {}

  /** The activity with booking id `id` in `locale`'s snapshot, if it has one. */
  activityIn(locale: Locale, id: number): ActivityRecord | undefined {
    const records = this.activities(locale);
    let index = this.byBookingId.get(records);
    if (index === undefined) {
      index = new Map(records.map((record) => [record.bookingId, record]));
      this.byBookingId.set(records, index);
    }
    return index.get(id);
  }

  /** The activity in the preferred locale, else in the first locale that has it. */
  findActivity(id: number, preferred: Locale): ActivityRecord | undefined {
    for (const locale of [preferred, ...LOCALES]) {
      const record = this.activityIn(locale, id);
      if (record) return record;
    }
    return undefined;
  }

  /** The content id (GraphQL Activity.id) of an activity, while the snapshot has it. */
  contentIdOf(activityId: number): string | null {
    return this.findActivity(activityId, 'de-CH')?.id ?? null;
  }
}

/** The price of one place, or null when the activity has no price the sandbox can charge. */
export function unitPrice(record: ActivityRecord): Money | null {
  const price = record.summary.startingPrice;
  if (price === null || !/^\d{1,7}(\.\d{1,2})?$/.test(price.amount)) return null;
  return { cents: Math.round(Number(price.amount) * 100), currency: price.currency };
}

/** Whether the sandbox sells places of an activity: the snapshot says so and it has a price. */
export function isBookable(record: ActivityRecord): boolean {
  return record.isBookable && unitPrice(record) !== null;
}

/** The slots of a bookable activity offered at `now` from `first` to `last` (dates, inclusive). */
export function offeredSlots(record: ActivityRecord, first: string, last: string, now: number): Slot[] {
  const slots: Slot[] = [];
  if (!isBookable(record)) return slots;
  for (let date = first; date <= last; date = addDays(date, 1)) {
    for (const slot of slotsOn(record.bookingId, date)) if (isOffered(slot, now)) slots.push(slot);
  }
  return slots;
}
