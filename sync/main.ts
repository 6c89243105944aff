/**
 * The sync CLI: fetch the upstream sources and publish a new snapshot version.
 *
 *   npm run sync -- [activities|snowdata|tours|attractions ...] [--data-dir DIR]
 *                   [--locales de-CH,en-CH] [--force] [--keep N] [--changes N] [--dry-run]
 *   npm run sync -- --probe [activities|snowdata|tours|attractions ...]
 *   npm run sync -- --rollback [--data-dir DIR]
 *   npm run sync -- --keygen      (prints a key pair for SNAPSHOT_SIGNING_KEY and SNAPSHOT_PUBLIC_KEY)
 *
 * No source means all (with --probe: all whose keys are set). Exit status 0 only when every
 * requested source published (with --dry-run: would publish); 1 when one did not (the others
 * still publish, and a failed or refused source keeps its last good data; when every one
 * failed, nothing is written); 2 for a usage or configuration error, found before any request.
 * docs/sync.md has the whole story.
 */

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { startTracing, TracingSettingError } from '../tracing/startTracing.ts';
import { createHttpClient, type HttpClientOptions } from './client.ts';
import { defaultOf } from './settings.ts';
import { readSyncConfig, SYNC_VARIABLES, SyncConfigError } from './config.ts';
import { helpText, OPTIONS, programName, usage } from './help.ts';
import { configuredSources, probeSources } from './probeSources.ts';
import { createProgress, formatCount, formatSeconds, type Progress, type SourceStats } from './progress.ts';
import { type FixtureOrigin, LOCALES, type Locale, SOURCE_NAMES, type SourceName } from './format.ts';
import { runJoins } from './joins/runJoins.ts';
import { readServedSource } from './publish/currentRecords.ts';
import { formatGateReport, formatLines } from './publish/gate/gateReport.ts';
import { DEFAULT_CHANGE_VERSIONS, DEFAULT_KEEP, publish, type PublishResult } from './publish/publish.ts';
import type { SourceOutcome } from './publish/report.ts';
import { rollback } from './publish/rollback.ts';
import { keyPairLines, readSigningKey, SigningKeyError } from './publish/sign.ts';
import { type FetchContext, syncDay } from './source.ts';
import { sourceNamed } from './sources/index.ts';
import { limitRecordsData } from './sources/recordLimits.ts';
import { plainTextData } from './sources/textFields.ts';

/** The `service.name` of the sync's spans unless OTEL_SERVICE_NAME says otherwise. */
export const SYNC_SERVICE_NAME = 'tourism-content-sync';

/** A bad command line or setting: exit 2 with the message and the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Command =
  | { kind: 'sync'; sources: SourceName[]; dataDir: string; locales: Locale[]; force: boolean; keep: number; changeVersions: number; dryRun: boolean }
  | { kind: 'rollback'; dataDir: string }
  /** `sources` empty: every configured source. */
  | { kind: 'probe'; sources: SourceName[] }
  | { kind: 'keygen' }
  | { kind: 'help' };

/**
 * Reads the command line; `--data-dir` defaults to DATA_DIR, then `data`.
 *
 * @throws UsageError naming the bad argument and what is allowed
 */
export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'data-dir': { type: 'string' },
        locales: { type: 'string' },
        force: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        keep: { type: 'string' },
        changes: { type: 'string' },
        rollback: { type: 'boolean', default: false },
        probe: { type: 'boolean', default: false },
        keygen: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(parseArgsProblem(error as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.keygen) {
    if (argv.length > 1) throw new UsageError('--keygen takes no other argument: it prints a new key pair and does nothing else');
    return { kind: 'keygen' };
  }
  const dataDir = values['data-dir']?.trim() || env.DATA_DIR?.trim() || 'data';
  if (values.rollback) {
    if (positionals.length > 0 || values.locales || values.force || values.keep || values.changes || values.probe || values['dry-run']) throw new UsageError('--rollback takes no sources, --locales, --force, --keep, --changes, --probe or --dry-run');
    return { kind: 'rollback', dataDir };
  }
  for (const name of positionals) {
    if (!(SOURCE_NAMES as string[]).includes(name)) throw new UsageError(`unknown source "${name}" (expected ${SOURCE_NAMES.join(', ')})`);
  }
  if (values.probe) {
    if (values.locales || values.force || values.keep || values.changes || values['data-dir'] || values['dry-run']) throw new UsageError('--probe takes only sources (it publishes nothing)');
    return { kind: 'probe', sources: SOURCE_NAMES.filter((name) => positionals.includes(name)) };
  }
  const sources = SOURCE_NAMES.filter((name) => positionals.length === 0 || positionals.includes(name));
  let locales: Locale[] = [...LOCALES];
  if (values.locales !== undefined) {
    const asked = values.locales.split(',').map((l) => l.trim()).filter(Boolean);
    for (const locale of asked) {
      if (!(LOCALES as readonly string[]).includes(locale)) throw new UsageError(`--locales: unknown locale "${locale}" (expected ${LOCALES.join(', ')})`);
    }
    if (asked.length === 0) throw new UsageError(`--locales needs at least one of ${LOCALES.join(', ')}`);
    locales = LOCALES.filter((l) => asked.includes(l));
  }
  let keep = DEFAULT_KEEP;
  if (values.keep !== undefined) {
    keep = Number(values.keep);
    if (!/^\d+$/.test(values.keep) || keep < 1) throw new UsageError(`--keep must be an integer of at least 1, got "${values.keep}"`);
  }
  let changeVersions = DEFAULT_CHANGE_VERSIONS;
  if (values.changes !== undefined) {
    changeVersions = Number(values.changes);
    if (!/^\d+$/.test(values.changes)) throw new UsageError(`--changes must be an integer of at least 0, got "${values.changes}"`);
  }
  if (values['dry-run'] && values.force) throw new UsageError('--dry-run publishes nothing, so --force has nothing to force; drop one of them');
  return { kind: 'sync', sources, dataDir, locales, force: values.force, keep, changeVersions, dryRun: values['dry-run'] };
}

/**
 * node:util's parseArgs error in the CLI's own words: its wording suggests `--` for positional
 * arguments, which the sync has no use for, and quotes the option without closing the quote.
 */
function parseArgsProblem(error: Error & { code?: string }): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1];
  const allowed = OPTIONS.map(([option]) => option.replace(', ', '/')).join(', ');
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option ?? error.message}; the options are ${allowed}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const named = OPTIONS.find(([name]) => name.split(' ')[0] === option)?.[0];
    return named && named.includes(' ') ? `${option} needs a value: ${named}` : `${option ?? 'an option'} takes no value; the options are ${allowed}`;
  }
  return error.message;
}

export interface SyncOptions {
  sources: readonly SourceName[];
  dataDir: string;
  locales: readonly Locale[];
  force?: boolean;
  /** Fetch and run the gate, print its report, publish nothing. */
  dryRun?: boolean;
  /** Versions to keep; default {@link DEFAULT_KEEP}. */
  keep?: number;
  /** Earlier versions the change lists reach back to; default {@link DEFAULT_CHANGE_VERSIONS}. */
  changeVersions?: number;
  env?: NodeJS.ProcessEnv;
  /** The sync time: names the version and is every source's lastSync. Default: now. */
  now?: Date;
  /** Version id; default derived from `now`. */
  version?: string;
  /** Marks the snapshot as the fixture generator's (publish's `fixture`); the CLI never sets it. */
  fixture?: FixtureOrigin;
  /** Timeouts, concurrency and backoff of the HTTP client. */
  http?: Omit<HttpClientOptions, 'secrets' | 'onRetry'>;
  /** The summary table. */
  stdout: NodeJS.WritableStream;
  /** Progress, and the one-line summary of a failure. */
  stderr: NodeJS.WritableStream & { columns?: number };
  /** Draw progress in place (a terminal) rather than as log lines. */
  tty: boolean;
  /**
   * When tracing is on: a span for the run (continuing the trace of the TRACEPARENT variable
   * of `env`, when set), one per source under it, and a client span per upstream request.
   */
  tracer?: Tracer | undefined;
}

export interface SyncRun {
  /** 0 when every requested source published (or would, on a dry run), else 1. */
  exitCode: 0 | 1;
  result: PublishResult;
}

/**
 * Fetches the requested sources concurrently through one HTTP client, turns their text into
 * plain text, runs the joins, and publishes through the gate; prints the summary table, and on
 * failure or refusal one line on stderr. A dry run prints the gate's report instead and writes
 * nothing.
 *
 * @throws SyncConfigError before any request when a key or URL is missing or malformed;
 *   Error when publishing fails (the current snapshot is then untouched)
 */
export async function runSync(options: SyncOptions): Promise<SyncRun> {
  const { tracer } = options;
  if (!tracer) return fetchAndPublish(options, undefined);
  const env = options.env ?? process.env;
  // The carrier of a trace handed to a process: https://opentelemetry.io/docs/specs/otel/context/env-carriers/
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE });
  return tracer.startActiveSpan('sync', { attributes: { 'sync.sources': [...options.sources], 'sync.locales': [...options.locales], 'sync.dry_run': options.dryRun === true } }, parent, async (span) => {
    try {
      const run = await fetchAndPublish(options, tracer);
      if (run.result.version !== null) span.setAttribute('sync.version', run.result.version);
      if (run.exitCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'a source was not published' });
      return run;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed by `error`. */
function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: firstLine(error) });
}

/** The sync itself ({@link runSync}); with a tracer, a span per source. */
async function fetchAndPublish(options: SyncOptions, tracer: Tracer | undefined): Promise<SyncRun> {
  const config = readSyncConfig(options.sources, options.env ?? process.env);
  // Read before any request: a bad key must not cost a whole run's fetching.
  const signingKey = readSigningKey(options.env ?? process.env);
  const now = options.now ?? new Date();
  const progress = createProgress({ stream: options.stderr, tty: options.tty, sources: options.sources });
  const http = createHttpClient({ deadlineMs: config.deadlineMs, deadlineName: 'SYNC_DEADLINE_MS', attemptTimeoutMs: config.attemptTimeoutMs, ...options.http, secrets: config.secrets, tracer });
  const seconds: Partial<Record<SourceName, number>> = {};
  const outcomes: Partial<Record<SourceName, SourceOutcome>> = {};
  try {
    await Promise.all(
      options.sources.map(async (source) => {
        const started = performance.now();
        const ctx: FetchContext = {
          http,
          config: config.sources[source],
          locales: options.locales,
          syncDay: syncDay(now),
          onPage: (part, page) => progress.page(source, part, page),
          onRetry: (part, event) => progress.retry(source, part, event),
          served: once(() => readServedSource(options.dataDir, source)),
        };
        const span = tracer?.startSpan(`sync ${source}`, { attributes: { 'sync.source': source } });
        try {
          const data = await (span ? context.with(trace.setSpan(context.active(), span), () => sourceNamed(source).fetch(ctx)) : sourceNamed(source).fetch(ctx));
          outcomes[source] = { ok: true, fetched: { ...plainTextData(limitRecordsData(data)), fetchedAt: now.toISOString() } };
          progress.done(source, 'fetched');
        } catch (error) {
          outcomes[source] = { ok: false, error };
          if (span) failSpan(span, error);
          // Why it failed is told once, in the closing line on stderr.
          progress.done(source, 'failed');
        } finally {
          seconds[source] = (performance.now() - started) / 1000;
          span?.end();
        }
      }),
    );
  } finally {
    await http.close();
    progress.stop();
  }

  await runJoins(options.dataDir, outcomes);
  const result = await publish({ dataDir: options.dataDir, outcomes, force: options.force, dryRun: options.dryRun, keep: options.keep, changeVersions: options.changeVersions, now, version: options.version, fixture: options.fixture, signingKey });
  const manifestPath = path.join(options.dataDir, 'manifest.json');
  const current = `${manifestPath} ${result.manifest ? `stays at ${result.manifest.version}` : 'was not written'}`;
  if (options.dryRun) {
    options.stdout.write(formatGateReport(result.sources.flatMap((s) => (s.gate ? [s.gate] : []))));
    options.stdout.write(`dry run: nothing published; ${current}\n`);
  } else {
    options.stdout.write(summaryTable(result, progress, seconds));
    options.stdout.write(
      result.version === null
        ? `no new version: every requested source failed; ${current}\n`
        : `snapshot ${result.version} committed to ${manifestPath}${result.pruned.length ? `; pruned ${result.pruned.join(', ')}` : ''}\n`,
    );
  }
  const unpublished = result.sources.filter((s) => s.status !== 'published');
  if (unpublished.length > 0) {
    const kept = options.dryRun ? ' (would keep its last good data)' : ' (last good data kept)';
    const what = unpublished.map((s) => `${s.source} ${s.status}${s.carried ? kept : ''}: ${s.reason}`).join('; ');
    options.stderr.write(`sync: ${unpublished.length} of ${result.sources.length} sources ${options.dryRun ? 'would not be' : 'not'} published: ${what}\n`);
  }
  return { exitCode: unpublished.length === 0 ? 0 : 1, result };
}

/**
 * The closing table, one row per requested source, then a note per forced rule and per area with
 * records left out. Why a source failed or was refused is left to the closing line on stderr.
 */
function summaryTable(result: PublishResult, progress: Progress, seconds: Partial<Record<SourceName, number>>): string {
  const header = ['source', 'result', 'items', 'change', 'pages', 'retries', 'time'];
  const rows = result.sources.map((s) => {
    const stats: SourceStats = progress.stats(s.source);
    const before = s.areas.reduce((sum, a) => sum + (a.previous ?? 0), 0);
    // What is served now: the fresh records, the carried ones, or nothing.
    const items = s.status === 'published' ? s.areas.reduce((sum, a) => sum + a.count, 0) : s.carried ? before : 0;
    const change = s.status === 'published' ? items - before : 0;
    return [
      s.source,
      s.status === 'published' ? (s.forced.length ? 'published (forced)' : 'published') : `${s.status}${s.carried ? ', kept last good' : ''}`,
      formatCount(items),
      change === 0 ? '0' : `${change > 0 ? '+' : '−'}${formatCount(Math.abs(change))}`,
      String(stats.pages),
      String(stats.retries),
      formatSeconds((seconds[s.source] ?? 0) * 1000),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Text columns left, numbers right.
  const format = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const lines = [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(format)];
  for (const s of result.sources) {
    for (const forced of s.forced) lines.push(`${s.source}: forced: ${forced}`);
    if (s.gate?.lines) lines.push(`${s.source}: lines ${formatLines(s.gate.lines)}`);
    const rejected = s.areas.filter((a) => a.rejected > 0);
    if (rejected.length) lines.push(`${s.source}: records failing validation left out: ${rejected.map((a) => `${a.locale} ${a.area} ${a.rejected}`).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `read`, called at most once: later calls get the first call's promise. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= read());
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/**
 * When a sync stops for missing keys but some of the sources it was asked for have theirs, the
 * command that syncs just those; otherwise nothing.
 */
function configuredHint(argv: readonly string[], env: NodeJS.ProcessEnv, program: string): string {
  const command = parseCommand(argv, env);
  if (command.kind !== 'sync') return '';
  const ready = configuredSources(env).filter((source) => command.sources.includes(source));
  if (ready.length === 0 || ready.length === command.sources.length) return '';
  const options = argv.filter((arg) => !(SOURCE_NAMES as readonly string[]).includes(arg));
  return `sync: to sync only the sources whose keys are set: ${[program, ...ready, ...options].join(' ')}\n`;
}

/**
 * The CLI: parses `argv`, runs the sync, the probe or the rollback, and returns the exit status.
 * Never throws; every failure ends in one line on stderr.
 *
 * @param program how the user started it, for the usage lines (see {@link programName})
 */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
  program = programName(env, process.argv[1]),
): Promise<number> {
  try {
    const command = parseCommand(argv, env);
    if (command.kind === 'help') {
      io.stdout.write(helpText(program));
      return 0;
    }
    if (command.kind === 'keygen') {
      io.stdout.write(keyPairLines());
      return 0;
    }
    if (command.kind === 'probe') {
      const sources = command.sources.length > 0 ? command.sources : configuredSources(env);
      if (sources.length === 0) {
        const keys = SYNC_VARIABLES.filter((v) => defaultOf(v) === null).map((v) => v.name);
        throw new SyncConfigError(`--probe: no source is configured; set at least one of ${keys.join(', ')}`);
      }
      return (await probeSources({ sources, env, stdout: io.stdout })).exitCode;
    }
    if (command.kind === 'rollback') {
      const { from, to } = await rollback(command.dataDir, { signingKey: readSigningKey(env) });
      const manifest = path.join(command.dataDir, 'manifest.json');
      io.stdout.write(from === null ? `restored ${manifest} (it was missing or unreadable) to ${to}\n` : `rolled back ${manifest} from ${from} to ${to}\n`);
      return 0;
    }
    const tracing = await startTracing(SYNC_SERVICE_NAME);
    try {
      const run = await runSync({ ...command, env, stdout: io.stdout, stderr: io.stderr, tty: io.stderr.isTTY === true && env.CI === undefined, tracer: tracing?.tracer });
      return run.exitCode;
    } finally {
      await tracing?.shutdown();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`sync: ${error.message}\n${usage(program)}\n`);
      return 2;
    }
    if (error instanceof SyncConfigError || error instanceof TracingSettingError || error instanceof SigningKeyError) {
      io.stderr.write(`sync: ${error.message}\n${configuredHint(argv, env, program)}`);
      return 2;
    }
    io.stderr.write(`sync: ${firstLine(error)}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr });
}
