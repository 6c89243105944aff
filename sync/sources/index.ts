/**
 * The one list of sources that the CLI, the probe, the settings and `--help` iterate. Adding a
 * source is one folder under sources/ plus one line here (and its name and areas in
 * sync/format.ts, the snapshot's contract with the server).
 */

import type { SourceName } from '../format.ts';
import type { Source } from '../source.ts';
import { attractionsSource, toursSource } from './myswitzerland/listSources.ts';
import { snowdataSource } from './stnet/snowdataSource.ts';
import { activitiesSource } from './swissactivities/activitiesSource.ts';

/** Every source, in the order of sync/format.ts's SOURCE_NAMES. */
export const SOURCES: readonly Source[] = [activitiesSource, snowdataSource, toursSource, attractionsSource];

/** The source of a name. */
export function sourceNamed(name: SourceName): Source {
  const source = SOURCES.find((s) => s.name === name);
  if (!source) throw new Error(`no source named "${name}" (expected ${SOURCES.map((s) => s.name).join(', ')})`);
  return source;
}
