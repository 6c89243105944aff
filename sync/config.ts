/**
 * The sync's upstream settings, read from the environment and checked before any request:
 * base URLs default to the real hosts (each source module's `DEFAULT_*`), keys have no default.
 * `npm run sync -- --help` lists them from {@link SYNC_VARIABLES}.
 */

import { SOURCE_NAMES, type SourceName } from './format.ts';
import {
  DEFAULT_BASE_URL as MYSWITZERLAND_DEFAULT,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  DEFAULT_REQUEST_INTERVAL_MS,
  type MySwitzerlandConfig,
} from './sources/myswitzerland.ts';
import { DEFAULT_BASE_URL as STNET_DEFAULT, type SnowdataConfig } from './sources/snowdata.ts';
import { DEFAULT_AUTH_HEADER, DEFAULT_BOOKING_URL, DEFAULT_CONTENT_URL, type SwissActivitiesConfig } from './sources/swissactivities.ts';

/** Longest a sync run waits in all (backoff, Retry-After, pacing), in ms, by default: an hour. */
export const DEFAULT_DEADLINE_MS = 3_600_000;

/**
 * Every variable the sync reads: its default (null: required, no default), the sources that
 * read it, and a one-line `use` for `--help`. Names ending in `_URL` must be http(s) URLs,
 * names ending in `_MS` whole milliseconds.
 */
export const SYNC_VARIABLES = [
  { name: 'SYNC_DEADLINE_MS', default: String(DEFAULT_DEADLINE_MS), sources: SOURCE_NAMES, use: 'longest a run may wait in all (retries, rate limits, pacing); a wait past it fails its source' },
  { name: 'MYSWITZERLAND_BASE_URL', default: MYSWITZERLAND_DEFAULT, sources: ['tours', 'attractions'], use: 'MySwitzerland Open Data API base URL' },
  { name: 'MYSWITZERLAND_API_KEY', default: null, sources: ['tours', 'attractions'], use: 'MySwitzerland Open Data API key (developer portal, opendata.myswitzerland.io)' },
  { name: 'MYSWITZERLAND_REQUEST_INTERVAL_MS', default: String(DEFAULT_REQUEST_INTERVAL_MS), sources: ['tours', 'attractions'], use: 'least time between two MySwitzerland requests (the API has a quota)' },
  { name: 'MYSWITZERLAND_RATE_LIMIT_WAIT_MS', default: String(DEFAULT_RATE_LIMIT_WAIT_MS), sources: ['tours', 'attractions'], use: 'wait after a MySwitzerland 429 that has no Retry-After' },
  { name: 'SWISSACTIVITIES_CONTENT_URL', default: DEFAULT_CONTENT_URL, sources: ['activities'], use: 'Swiss Activities content API (GraphQL) URL' },
  { name: 'SWISSACTIVITIES_BOOKING_URL', default: DEFAULT_BOOKING_URL, sources: ['activities'], use: 'Swiss Activities booking API base URL' },
  { name: 'SWISSACTIVITIES_API_KEY', default: null, sources: ['activities'], use: 'Swiss Activities booking API key (from the partner contract; the content API takes none)' },
  { name: 'SWISSACTIVITIES_AUTH_HEADER', default: DEFAULT_AUTH_HEADER, sources: ['activities'], use: 'header that carries the booking key: Authorization sends "Bearer <key>", any other name the bare key' },
  { name: 'STNET_BASE_URL', default: STNET_DEFAULT, sources: ['snowdata'], use: "Switzerland Tourism's STnet WISPO stations service URL" },
  { name: 'STNET_USERNAME', default: null, sources: ['snowdata'], use: 'STnet account name (an STnet account is issued by Switzerland Tourism)' },
  { name: 'STNET_API_KEY', default: null, sources: ['snowdata'], use: 'STnet account key; never sent, only hashed into each request\'s stn-ticket' },
] as const satisfies readonly { name: string; default: string | null; sources: readonly SourceName[]; use: string }[];

export interface SyncConfig {
  /** SYNC_DEADLINE_MS: longest the run's HTTP client waits in all, in ms. */
  deadlineMs: number;
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
    if (name.endsWith('_MS') && !/^\d+$/.test(value)) problems.push(`${name}="${value}" is not a whole number of milliseconds`);
    return value;
  };
  const uses = (...names: SourceName[]) => names.some((name) => sources.includes(name));

  const config: SyncConfig = { deadlineMs: Number(needed('SYNC_DEADLINE_MS')), secrets: [] };
  if (uses('tours', 'attractions')) {
    config.myswitzerland = {
      baseUrl: needed('MYSWITZERLAND_BASE_URL'),
      apiKey: needed('MYSWITZERLAND_API_KEY'),
      requestIntervalMs: Number(needed('MYSWITZERLAND_REQUEST_INTERVAL_MS')),
      rateLimitWaitMs: Number(needed('MYSWITZERLAND_RATE_LIMIT_WAIT_MS')),
    };
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
