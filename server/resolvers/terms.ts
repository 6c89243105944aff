/**
 * Whose data an answer is: each source's licence and attribution as the server's settings give
 * them (server/config/sourceTerms.ts), per served snapshot, for the list envelopes' `meta`, the
 * records' own `license` and `attribution`, GeoJSON and GPX.
 */

import { SOURCE_AREAS, type AreaName, type SourceName } from '../../sync/format.ts';
import type { SourceTerms } from '../config/config.ts';
import type { Context, ServedTerms } from './context.ts';

export type { ServedTerms, SourceTerms };

/** What ends a fixture snapshot's labels (`meta.source`, sync/publish/write.ts), and so its credits. */
const FIXTURE_NOTE = ' (fixture data, not from the upstream)';

/**
 * The terms a snapshot is served with: in a snapshot the fixture generator made, each
 * attribution says, as `meta.source` does, that the data is fixture data.
 */
export function servedTerms(terms: ServedTerms, fixture: boolean): ServedTerms {
  if (!fixture) return terms;
  const marked = {} as Record<SourceName, SourceTerms>;
  for (const [source, { license, attribution }] of Object.entries(terms) as [SourceName, SourceTerms][]) {
    marked[source] = Object.freeze({ license, attribution: `${attribution}${FIXTURE_NOTE}` });
  }
  return Object.freeze(marked);
}

/** The source whose records each area holds. */
const AREA_SOURCE = Object.fromEntries(
  (Object.entries(SOURCE_AREAS) as [SourceName, readonly AreaName[]][]).flatMap(([source, areas]) => areas.map((area) => [area, source])),
) as Readonly<Record<AreaName, SourceName>>;

/**
 * The licence and attribution of an area's records in the snapshot a request is served from:
 * its source's settings; with `record`, the licence the upstream states on that record instead,
 * when it states one (a tour's or attraction's `upstreamLicense`).
 *
 * @param area the snapshot area (`tours`, `attractions`, `stations`, `routes`, `activities`…)
 */
export function areaTerms(context: Context, area: AreaName, record?: { readonly upstreamLicense?: string | null }): SourceTerms {
  const terms = context.terms[AREA_SOURCE[area]];
  const stated = record?.upstreamLicense;
  return typeof stated === 'string' ? { license: stated, attribution: terms.attribution } : terms;
}

/** Resolvers of a record type's `license` and `attribution`, for an area's records. */
function recordTermsResolvers(area: AreaName) {
  return {
    license: (record: { readonly upstreamLicense?: string | null }, _: unknown, context: Context) => areaTerms(context, area, record).license,
    attribution: (_record: unknown, _args: unknown, context: Context) => areaTerms(context, area).attribution,
  };
}

/** `license` and `attribution` of the record types that carry them. */
export const termsResolvers = {
  Activity: recordTermsResolvers('activities'),
  Tour: recordTermsResolvers('tours'),
  Attraction: recordTermsResolvers('attractions'),
};
