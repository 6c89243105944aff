/**
 * The sync's upstream settings, read from the environment and checked before any request:
 * base URLs default to the real hosts (each source module's `DEFAULT_*`), keys have no default.
 */

import type { SourceName } from './snapshot.ts';
import { DEFAULT_BASE_URL as MYSWITZERLAND_DEFAULT, type MySwitzerlandConfig } from './sources/myswitzerland.ts';
import { DEFAULT_BASE_URL as STNET_DEFAULT, type SnowdataConfig } from './sources/snowdata.ts';
import { DEFAULT_AUTH_HEADER, DEFAULT_BOOKING_URL, DEFAULT_CONTENT_URL, type SwissActivitiesConfig } from './sources/swissactivities.ts';

/** Every variable the sync reads, with its default (null: required, no default) and use. */
export const SYNC_VARIABLES = [
  { name: 'MYSWITZERLAND_BASE_URL', default: MYSWITZERLAND_DEFAULT, sources: ['tours', 'attractions'] },
  { name: 'MYSWITZERLAND_API_KEY', default: null, sources: ['tours', 'attractions'] },
  { name: 'SWISSACTIVITIES_CONTENT_URL', default: DEFAULT_CONTENT_URL, sources: ['activities'] },
  { name: 'SWISSACTIVITIES_BOOKING_URL', default: DEFAULT_BOOKING_URL, sources: ['activities'] },
  { name: 'SWISSACTIVITIES_API_KEY', default: null, sources: ['activities'] },
  { name: 'SWISSACTIVITIES_AUTH_HEADER', default: DEFAULT_AUTH_HEADER, sources: ['activities'] },
  { name: 'STNET_BASE_URL', default: STNET_DEFAULT, sources: ['snowdata'] },
  { name: 'STNET_USERNAME', default: null, sources: ['snowdata'] },
  { name: 'STNET_API_KEY', default: null, sources: ['snowdata'] },
] as const satisfies readonly { name: string; default: string | null; sources: readonly SourceName[] }[];

export interface SyncConfig {
  myswitzerland?: MySwitzerlandConfig;
  swissactivities?: SwissActivitiesConfig;
  snowdata?: SnowdataConfig;
  /** Every key value, so the HTTP client can redact them wherever they might appear. */
  secrets: string[];
}

/** A setting is missing or malformed; the message names every variable at fault. */
export class SyncConfigError extends Error {
  override name = 'SyncConfigError';
}

/**
 * Reads the settings the given sources need (and only those: syncing snowdata needs no
 * MySwitzerland key).
 *
 * @throws SyncConfigError naming each missing key and each URL that is not http(s)
 */
export function readSyncConfig(sources: readonly SourceName[], env: NodeJS.ProcessEnv = process.env): SyncConfig {
  const problems: string[] = [];
  const needed = (name: (typeof SYNC_VARIABLES)[number]['name']): string => {
    const variable = SYNC_VARIABLES.find((v) => v.name === name)!;
    const users = variable.sources.filter((s) => sources.includes(s));
    const value = env[name]?.trim() || variable.default;
    if (!value) {
      problems.push(`${name} is not set (needed for ${users.join(', ')})`);
      return '';
    }
    if (name.endsWith('_URL') && !isHttpUrl(value)) problems.push(`${name}="${value}" is not an http(s) URL`);
    if (name.endsWith('_HEADER') && !HEADER_NAME.test(value)) problems.push(`${name}="${value}" is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~)`);
    return value;
  };
  const uses = (...names: SourceName[]) => names.some((name) => sources.includes(name));

  const config: SyncConfig = { secrets: [] };
  if (uses('tours', 'attractions')) {
    config.myswitzerland = { baseUrl: needed('MYSWITZERLAND_BASE_URL'), apiKey: needed('MYSWITZERLAND_API_KEY') };
    config.secrets.push(config.myswitzerland.apiKey);
  }
  if (uses('activities')) {
    config.swissactivities = {
      contentUrl: needed('SWISSACTIVITIES_CONTENT_URL'),
      bookingUrl: needed('SWISSACTIVITIES_BOOKING_URL'),
      apiKey: needed('SWISSACTIVITIES_API_KEY'),
      authHeader: needed('SWISSACTIVITIES_AUTH_HEADER'),
    };
    config.secrets.push(config.swissactivities.apiKey);
  }
  if (uses('snowdata')) {
    config.snowdata = { baseUrl: needed('STNET_BASE_URL'), username: needed('STNET_USERNAME'), apiKey: needed('STNET_API_KEY') };
    config.secrets.push(config.snowdata.apiKey);
  }
  if (problems.length > 0) throw new SyncConfigError(problems.join('; '));
  config.secrets = config.secrets.filter(Boolean);
  return config;
}

/** An HTTP field name: a token (RFC 9110, section 5.1). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
