/**
 * `npm run sync -- --probe`: calls each configured upstream once and reports, per source and
 * endpoint, whether it answered, whether it took the key, the records on its first page, and
 * the fields it sent that the adapter does not read or lacked that it does. Publishes nothing;
 * it is what an operator runs on the day the keys arrive.
 */

import { createHttpClient, type HttpClientOptions } from './client.ts';
import { defaultOf } from './settings.ts';
import { readSyncConfig, SYNC_VARIABLES } from './config.ts';
import { SOURCE_NAMES, type SourceName } from './format.ts';
import type { ProbeEndpoint } from './source.ts';
import { sourceNamed } from './sources/index.ts';

/** What the probe found of one source. */
export interface SourceProbe {
  source: SourceName;
  endpoints: ProbeEndpoint[];
}

export interface ProbeRun {
  /** 0 when every probed source answered on every endpoint and accepted its key, else 1. */
  exitCode: 0 | 1;
  sources: SourceProbe[];
}

/**
 * The sources a probe with no source named covers: those whose required settings (keys) are
 * all set.
 */
export function configuredSources(env: NodeJS.ProcessEnv): SourceName[] {
  return SOURCE_NAMES.filter((source) =>
    SYNC_VARIABLES.every((v) => defaultOf(v) !== null || !v.sources.includes(source) || Boolean(env[v.name]?.trim())),
  );
}

/**
 * Probes the given sources concurrently, one call per endpoint (no retries), and prints the
 * table on `stdout`.
 *
 * @throws SyncConfigError before any request when a setting of a source with a probe is missing or malformed
 */
export async function probeSources(options: {
  sources: readonly SourceName[];
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  /** Timeouts of the HTTP client. */
  http?: Omit<HttpClientOptions, 'secrets' | 'maxAttempts'>;
}): Promise<ProbeRun> {
  const config = readSyncConfig(options.sources, options.env);
  const http = createHttpClient({ deadlineMs: config.deadlineMs, ...options.http, maxAttempts: 1, secrets: config.secrets });
  let sources: SourceProbe[];
  try {
    sources = await Promise.all(
      options.sources.map(async (source) => ({ source, endpoints: await sourceNamed(source).probe({ http, config: config.sources[source] }) })),
    );
  } finally {
    await http.close();
  }
  options.stdout.write(probeTable(sources));
  const ok = sources.every((s) => s.endpoints.every((e) => e.reachable && e.keyAccepted === true));
  return { exitCode: ok ? 0 : 1, sources };
}

/** The settings a source cannot do without: its account name and key, the ones to check after a 401 or 403. */
function keyNames(source: SourceName): string {
  return sourceNamed(source).settings.filter((setting) => defaultOf(setting) === null).map((setting) => setting.name).join(' and ');
}

const yesNo = (value: boolean | null) => (value === null ? '-' : value ? 'yes' : 'no');

/** One row per source and endpoint, then a note per error and per field difference. */
function probeTable(sources: readonly SourceProbe[]): string {
  const header = ['source', 'endpoint', 'reachable', 'key accepted', 'records', 'unexpected', 'missing'];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const { source, endpoints } of sources) {
    for (const e of endpoints) {
      // Without a readable answer there were no fields to compare: '-', not 0.
      const fieldCount = (fields: string[]) => (e.records === null ? '-' : String(fields.length));
      rows.push([source, e.name, yesNo(e.reachable), yesNo(e.keyAccepted), e.records === null ? '-' : String(e.records), fieldCount(e.unexpectedFields), fieldCount(e.missingFields)]);
      notes.push(`${source} ${e.name}: ${e.url}`);
      if (e.error) notes.push(`${source} ${e.name}: error: ${e.error}`);
      if (e.keyAccepted === false) notes.push(`${source} ${e.name}: the key was refused: check ${keyNames(source)}`);
      if (e.unexpectedFields.length) notes.push(`${source} ${e.name}: fields not read: ${e.unexpectedFields.join(', ')}`);
      if (e.missingFields.length) notes.push(`${source} ${e.name}: fields read but absent: ${e.missingFields.join(', ')}`);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Text columns left, the rest right.
  const format = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return `${[format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(format), ...notes].join('\n')}\n`;
}
