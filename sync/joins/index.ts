/**
 * The pure steps across sources, run by the CLI after fetching and before publishing. A join
 * changes the data of one source from that of others; it does no I/O and changes none of its
 * inputs.
 */

import type { AreaName, AreaRecords, Locale, SourceName } from '../format.ts';
import type { SourceData } from '../source.ts';
import { joinWinterRoutes } from './winterRoutes.ts';

/** The records of a source a join reads, per locale and area. */
export type JoinInput = Partial<Record<Locale, Partial<{ [A in AreaName]: readonly AreaRecords[A][] }>>>;

/** A step across sources. */
export interface Join {
  name: string;
  /** The source whose data it changes; it runs only when that source was fetched. */
  target: SourceName;
  /** The other sources it reads: fetched in this run, else as the current snapshot holds them. */
  reads: readonly SourceName[];
  /** The target's new data; `inputs` has an entry for each source of {@link reads} that has data. */
  run(target: SourceData, inputs: Partial<Record<SourceName, JoinInput>>): SourceData;
}

/** Every join, in the order they run. */
export const JOINS: readonly Join[] = [
  {
    name: 'winter routes',
    target: 'snowdata',
    reads: ['tours'],
    run(snowdata, inputs) {
      const tours: Partial<Record<Locale, readonly AreaRecords['tours'][]>> = {};
      for (const [locale, areas] of Object.entries(inputs.tours ?? {}) as [Locale, NonNullable<JoinInput[Locale]>][]) {
        if (areas.tours) tours[locale] = areas.tours;
      }
      return joinWinterRoutes(snowdata, tours);
    },
  },
];
