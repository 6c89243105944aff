/**
 * The sync CLI's usage and `--help`: the settings section is generated from
 * {@link SYNC_VARIABLES}, so a setting added there is documented here without more work.
 */

import path from 'node:path';
import { SYNC_VARIABLES } from './config.ts';
import { defaultOf } from './settings.ts';
import { DEFAULT_CHANGE_VERSIONS, DEFAULT_KEEP } from './publish/publish.ts';
import { LOCALES, SOURCE_NAMES } from './format.ts';

/**
 * How the user started the sync, for the usage lines: `npm run sync --` under that npm script,
 * else `node dist/sync.mjs` or `npx tsx sync/main.ts` from the script path.
 *
 * @param script the path of the running script (`process.argv[1]`)
 */
export function programName(env: NodeJS.ProcessEnv, script: string | undefined, cwd = process.cwd()): string {
  const relative = script ? path.relative(cwd, script) || script : 'sync/main.ts';
  // npm sets npm_lifecycle_* for every child of a script: only trust them when the script runs this file.
  if (env.npm_lifecycle_event && env.npm_lifecycle_script?.includes(relative)) return `npm run ${env.npm_lifecycle_event} --`;
  return relative.endsWith('.ts') ? `npx tsx ${relative}` : `node ${relative}`;
}

/** The three usage lines. */
export function usage(program: string): string {
  return [
    `usage: ${program} [${SOURCE_NAMES.join('|')} ...] [--data-dir DIR] [--locales ${LOCALES.join(',')}] [--force] [--keep N] [--changes N] [--dry-run]`,
    `       ${program} --probe [${SOURCE_NAMES.join('|')} ...]`,
    `       ${program} --rollback [--data-dir DIR]`,
    `       ${program} --keygen`,
  ].join('\n');
}

/** Every option of the CLI with its argument, and its use for `--help`. */
export const OPTIONS: readonly [string, string][] = [
  ['--data-dir DIR', 'snapshot directory (default: DATA_DIR, else data)'],
  ['--locales LIST', `comma-separated locales to fetch (default: all of ${LOCALES.join(',')})`],
  ['--force', 'publish a source even when the publish gate refuses it; the report lists what was forced'],
  ['--dry-run', 'fetch and run the publish gate, print its report, publish nothing; exit 1 when it would refuse'],
  ['--keep N', `versions to keep, the new one included (default ${DEFAULT_KEEP})`],
  ['--changes N', `earlier versions the change lists reach back to (default ${DEFAULT_CHANGE_VERSIONS}; at most --keep count)`],
  ['--probe', 'call each configured upstream once and report what it answered; publishes nothing'],
  ['--rollback', 'point the manifest back at the previous version'],
  ['--keygen', 'print a new Ed25519 key pair: SNAPSHOT_SIGNING_KEY=… and SNAPSHOT_PUBLIC_KEY=… lines'],
  ['-h, --help', 'print this help'],
];

/** The whole `--help` text: usage, options, every setting with its sources, default and use, exit status. */
export function helpText(program: string): string {
  const optionWidth = Math.max(...OPTIONS.map(([flag]) => flag.length));
  const settings = SYNC_VARIABLES.flatMap((v) => {
    const sources = v.sources.length === SOURCE_NAMES.length ? 'all sources' : v.sources.join(', ');
    const fallback = defaultOf(v);
    return [`  ${v.name} (${sources}; ${fallback === null ? 'required' : `default ${fallback}`})`, `      ${v.schema.description}`];
  });
  return [
    usage(program),
    '',
    `Fetches the upstream sources (${SOURCE_NAMES.join(', ')}; none named means all)`,
    'and publishes a new snapshot version through the publish gate (docs/sync.md). A source',
    'that fails, or that the gate refuses, keeps its last good data, marked stale; when every',
    'requested source fails, no version is written.',
    '',
    'Options:',
    ...OPTIONS.map(([flag, text]) => `  ${flag.padEnd(optionWidth)}  ${text}`),
    '',
    'Settings, from the environment (a run reads only those of the sources it fetches):',
    ...settings,
    '',
    'Signing: SNAPSHOT_SIGNING_KEY (from --keygen) signs each manifest written, in',
    'manifest.json.sig beside it; servers pulling with SNAPSHOT_PUBLIC_KEY check it (docs/deploy.md).',
    '',
    'Tracing: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) turns OpenTelemetry traces on,',
    'with the other standard OTEL_* variables; TRACEPARENT continues a trace (docs/sync.md, Tracing).',
    '',
    'Exit status: 0 when every requested source published (--dry-run: would publish; --probe:',
    'every probed upstream was reachable and accepted its key); 1 when one did not; 2 for a',
    'usage or setting error.',
    '',
  ].join('\n');
}
