/**
 * Whose data each source's records are: the licence they are under and the credit a client
 * showing them must display, one pair of settings per source. The defaults are what is known of
 * each upstream's terms (docs/operations.md#data-terms says where each comes from); an operator
 * whose contract says otherwise sets them.
 */

import { type TString, Type } from '@sinclair/typebox';
import parseSpdx from 'spdx-expression-parse';
import { SOURCE_NAMES, type SourceName } from '../../sync/format.ts';
import { ConfigError } from './configError.ts';

/** The terms of one source's records. */
export interface SourceTerms {
  /**
   * An SPDX licence expression (`CC-BY-SA-4.0`, `LicenseRef-…` for terms the SPDX list lacks), or
   * the http(s) URL of the terms where no SPDX id applies.
   */
  readonly license: string;
  /** The text a client showing the records must display. */
  readonly attribution: string;
}

/** Longest attribution text taken, in characters: a credit line, not a licence text. */
export const MAX_ATTRIBUTION_CHARS = 300;

/** Longest licence setting taken, in characters (an SPDX expression or a URL). */
export const MAX_LICENSE_CHARS = 500;

function license(fallback: string, description: string): TString {
  return Type.String({ minLength: 1, maxLength: MAX_LICENSE_CHARS, default: fallback, description });
}

function attribution(fallback: string, description: string): TString {
  return Type.String({ minLength: 1, maxLength: MAX_ATTRIBUTION_CHARS, default: fallback, description });
}

/**
 * The settings, named after the source (`<SOURCE>_LICENSE`, `<SOURCE>_ATTRIBUTION`), with what
 * is known as defaults:
 * - MySwitzerland's attraction records each state CC BY-SA 4.0 (`subjectOf.license`), and the
 *   SwitzerlandMobility routes seen through the same API are labelled so; its terms ask for
 *   attribution to Switzerland Tourism.
 * - Swiss Activities and STnet content comes under a partner contract, not an open licence: an
 *   SPDX `LicenseRef-` names those terms.
 */
export const TERMS_SETTINGS = {
  ACTIVITIES_LICENSE: license('LicenseRef-SwissActivities-Partner-Contract', 'Licence of the activities: an SPDX expression, or the URL of the terms.'),
  ACTIVITIES_ATTRIBUTION: attribution('Swiss Activities', 'Credit a client showing the activities must display.'),
  SNOWDATA_LICENSE: license('LicenseRef-STnet-Partner-Terms', 'Licence of the stations and winter routes: an SPDX expression, or the URL of the terms.'),
  SNOWDATA_ATTRIBUTION: attribution('Switzerland Tourism, STnet winter sports report', 'Credit a client showing the stations and winter routes must display.'),
  TOURS_LICENSE: license('CC-BY-SA-4.0', 'Licence of the tours where a record states none: an SPDX expression, or the URL of the terms.'),
  TOURS_ATTRIBUTION: attribution('Switzerland Tourism, MySwitzerland Open Data; SwitzerlandMobility for its routes', 'Credit a client showing the tours must display.'),
  ATTRACTIONS_LICENSE: license('CC-BY-SA-4.0', 'Licence of the attractions where a record states none: an SPDX expression, or the URL of the terms.'),
  ATTRACTIONS_ATTRIBUTION: attribution('Switzerland Tourism, MySwitzerland Open Data', 'Credit a client showing the attractions must display.'),
} satisfies Record<`${Uppercase<SourceName>}_${'LICENSE' | 'ATTRIBUTION'}`, TString>;

/**
 * Reads every source's terms; blank or unset gives the default.
 *
 * @throws ConfigError naming the variable and what is allowed: a licence that is neither a valid
 *   SPDX expression nor an http(s) URL, an attribution that is too long or holds a line break or
 *   another control character
 */
export function readSourceTerms(env: NodeJS.ProcessEnv): Readonly<Record<SourceName, SourceTerms>> {
  const terms = {} as Record<SourceName, SourceTerms>;
  for (const source of SOURCE_NAMES) {
    const prefix = source.toUpperCase() as Uppercase<SourceName>;
    terms[source] = Object.freeze({
      license: readLicense(env, `${prefix}_LICENSE`, TERMS_SETTINGS[`${prefix}_LICENSE`]),
      attribution: readAttribution(env, `${prefix}_ATTRIBUTION`, TERMS_SETTINGS[`${prefix}_ATTRIBUTION`]),
    });
  }
  return Object.freeze(terms);
}

/** The terms of every source as the defaults give them. */
export const DEFAULT_SOURCE_TERMS = readSourceTerms({});

function readLicense(env: NodeJS.ProcessEnv, name: string, schema: TString): string {
  const raw = env[name]?.trim();
  if (!raw) return schema.default as string;
  const allowed = `expected an SPDX licence expression (e.g. CC-BY-SA-4.0, or LicenseRef-<name> for terms the SPDX list lacks) or the http(s) URL of the terms, at most ${MAX_LICENSE_CHARS} characters`;
  if (raw.length > MAX_LICENSE_CHARS) throw new ConfigError(`${name}: ${raw.length} characters; ${allowed}`);
  if (/^https?:\/\//i.test(raw)) {
    if (!URL.canParse(raw)) throw new ConfigError(`${name}="${raw}": not a URL; ${allowed}`);
    return raw;
  }
  try {
    parseSpdx(raw);
  } catch {
    throw new ConfigError(`${name}="${raw}": not a known SPDX licence id or expression; ${allowed}`);
  }
  return raw;
}

function readAttribution(env: NodeJS.ProcessEnv, name: string, schema: TString): string {
  const raw = env[name]?.trim();
  if (!raw) return schema.default as string;
  const allowed = `expected one line of text, at most ${MAX_ATTRIBUTION_CHARS} characters`;
  if ([...raw].length > MAX_ATTRIBUTION_CHARS) throw new ConfigError(`${name}: ${[...raw].length} characters; ${allowed}`);
  // A credit goes into HTTP answers, GPX and map corners as one line.
  if (/\p{Cc}/u.test(raw)) throw new ConfigError(`${name}: holds a line break or another control character; ${allowed}`);
  return raw;
}
