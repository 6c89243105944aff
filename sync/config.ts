/**
 * The sync's upstream settings, read from the environment and checked before any request. Each
 * source declares its own, as TypeBox schemas (settings.ts: base URLs default to the real
 * hosts, keys have no default); this module gathers them from sync/sources/index.ts's SOURCES, so
 * `npm run sync -- --help` lists every one from {@link SYNC_VARIABLES}.
 */

import { SOURCE_NAMES, type SourceName } from './format.ts';
import { milliseconds, readSetting, type Setting } from './settings.ts';
import { SOURCES, sourceNamed } from './sources/index.ts';

/** Longest a sync run waits in all (backoff, Retry-After, pacing), in ms, by default: an hour. */
export const DEFAULT_DEADLINE_MS = 3_600_000;

/** Longest one request attempt may take, headers and whole body, in ms, by default. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 120_000;

/** The settings every run reads, whatever its sources. */
const DEADLINE: Setting = {
  name: 'SYNC_DEADLINE_MS',
  schema: milliseconds(0, 86_400_000, DEFAULT_DEADLINE_MS, "longest each source's fetch may take in all (requests, bodies, retries, rate limits, pacing); a request still running or waiting at it fails its source"),
};
const ATTEMPT_TIMEOUT: Setting = {
  name: 'SYNC_ATTEMPT_TIMEOUT_MS',
  schema: milliseconds(1000, 3_600_000, DEFAULT_ATTEMPT_TIMEOUT_MS, 'longest one request attempt may take, its headers and its whole body; a slower one is retried'),
};

/** A setting with the sources that read it. */
export interface SyncVariable extends Setting {
  sources: readonly SourceName[];
}

/** Every variable the sync reads, once each, with the sources that read it: the deadline and the attempt timeout first, then each source's in SOURCES order. */
export const SYNC_VARIABLES: readonly SyncVariable[] = (() => {
  const variables: SyncVariable[] = [{ ...DEADLINE, sources: SOURCE_NAMES }, { ...ATTEMPT_TIMEOUT, sources: SOURCE_NAMES }];
  for (const source of SOURCES) {
    for (const setting of source.settings) {
      const known = variables.find((v) => v.name === setting.name);
      if (known) known.sources = [...known.sources, source.name];
      else variables.push({ ...setting, sources: [source.name] });
    }
  }
  return variables;
})();

export interface SyncConfig {
  /** SYNC_DEADLINE_MS: longest each source's fetch may take in all, in ms. */
  deadlineMs: number;
  /** SYNC_ATTEMPT_TIMEOUT_MS: longest one request attempt may take, in ms. */
  attemptTimeoutMs: number;
  /** Each requested source's configuration, as its `configure` built it. */
  sources: Partial<Record<SourceName, unknown>>;
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
 * @throws SyncConfigError naming each missing key and each value not of its schema
 */
export function readSyncConfig(sources: readonly SourceName[], env: NodeJS.ProcessEnv = process.env): SyncConfig {
  const problems: string[] = [];
  const values: Record<string, string> = {};
  const secrets = new Set<string>();
  const read = (variable: SyncVariable): void => {
    const users = variable.sources.filter((s) => sources.includes(s));
    const read = readSetting(env, variable);
    if ('problem' in read) {
      problems.push(read.problem === 'is not set' ? `${variable.name} is not set (needed for ${users.join(', ')})` : `${variable.name}${read.problem}`);
      return;
    }
    values[variable.name] = read.value;
    if (variable.secret) secrets.add(read.value);
  };
  // In SYNC_VARIABLES order, so the message lists the faults in the order --help does.
  for (const variable of SYNC_VARIABLES) {
    if (variable.sources.length === SOURCE_NAMES.length || variable.sources.some((s) => sources.includes(s))) read(variable);
  }
  if (problems.length > 0) throw new SyncConfigError(problems.join('; '));
  const config: SyncConfig = { deadlineMs: Number(values.SYNC_DEADLINE_MS), attemptTimeoutMs: Number(values.SYNC_ATTEMPT_TIMEOUT_MS), sources: {}, secrets: [...secrets] };
  for (const name of sources) config.sources[name] = sourceNamed(name).configure(values);
  return config;
}
