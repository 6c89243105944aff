/**
 * OpenTelemetry tracing, shared by the server and the sync CLI: turned on by the standard OTEL_*
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/),
 * which the SDK itself reads. Off, the SDK is never loaded: the OpenTelemetry API alone answers,
 * with its no-op tracer.
 */

import type { Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { setTimeout as delay } from 'node:timers/promises';

/** The values OTEL_TRACES_EXPORTER may list, comma-separated. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;

/** A bad OTEL_* setting: the start stops with this message. */
export class TracingSettingError extends Error {
  override name = 'TracingSettingError';
}

/**
 * Least time between two reports of failed exports, in ms: a collector that is down fails every
 * batch, and one line per interval says so, with the count, without flooding the log.
 */
export const EXPORT_FAILURE_REPORT_INTERVAL_MS = 60_000;

/** Failed exports since the last report. */
export interface ExportFailures {
  /** Exports that failed (after the exporter's own retries). */
  readonly exports: number;
  /** Spans those exports carried, now lost. */
  readonly spans: number;
  /** The last failure's error message. */
  readonly error: string;
}

/** What tracing tells its process. */
export interface TracingOptions {
  /**
   * Told of failed exports: at the first, then at most once per
   * {@link EXPORT_FAILURE_REPORT_INTERVAL_MS} with the failures since, and at shutdown with
   * those not yet told.
   */
  onExportFailures?(failures: ExportFailures): void;
}

/** Tracing as started: the tracer, and how to stop it. */
export interface Tracing {
  /** The tracer of the process, registered as the API's global one too. */
  readonly tracer: Tracer;
  /**
   * Exports the spans still buffered, for at most `timeoutMs`, then unregisters the SDK from the
   * API (the API's no-op tracer answers again). Never rejects: a collector that is down, or too
   * slow, loses the last spans.
   *
   * @param timeoutMs the longest the export may take, in ms (a process that must exit within a
   *   grace period gives what is left of it); by default the exporter's own timeouts alone bound it
   * @returns false when the export was cut short by `timeoutMs`
   */
  shutdown(timeoutMs?: number): Promise<boolean>;
}

/** ExportResultCode.SUCCESS of @opentelemetry/core, part of the SDK's exporter contract. */
const EXPORT_SUCCESS = 0;

/** An exporter that counts the failures of another and reports them, rate-limited (see {@link TracingOptions}). */
class ReportingExporter implements SpanExporter {
  #failures = { exports: 0, spans: 0, error: '' };
  #reportedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly report: (failures: ExportFailures) => void,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.exporter.export(spans, (result) => {
      if (result.code !== EXPORT_SUCCESS) {
        this.#failures.exports++;
        this.#failures.spans += spans.length;
        this.#failures.error = result.error?.message ?? 'unknown error';
        if (performance.now() - this.#reportedAt >= EXPORT_FAILURE_REPORT_INTERVAL_MS) this.#flushReport();
      }
      done(result);
    });
  }

  async shutdown(): Promise<void> {
    this.#flushReport();
    await this.exporter.shutdown();
  }

  async forceFlush(): Promise<void> {
    await this.exporter.forceFlush?.();
  }

  #flushReport(): void {
    if (this.#failures.exports === 0) return;
    this.report(this.#failures);
    this.#failures = { exports: 0, spans: 0, error: '' };
    this.#reportedAt = performance.now();
  }
}

/** The exporters OTEL_TRACES_EXPORTER names; empty when unset. */
function exportersOf(env: NodeJS.ProcessEnv): string[] {
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of names) {
    if (!(TRACES_EXPORTERS as readonly string[]).includes(name)) {
      throw new TracingSettingError(`OTEL_TRACES_EXPORTER names "${name}"; allowed values: ${TRACES_EXPORTERS.join(', ')} (comma-separated)`);
    }
  }
  return names;
}

/**
 * Whether tracing is on: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_TRACES_EXPORTER (other than `none`) is set, and OTEL_SDK_DISABLED is not `true`.
 *
 * @throws TracingSettingError when OTEL_TRACES_EXPORTER names an unknown exporter
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporters = exportersOf(env);
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts tracing when {@link tracingEnabled} says so: loads the SDK, exports spans in batches
 * over OTLP/HTTP (JSON) to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT with OTEL_EXPORTER_OTLP_HEADERS,
 * samples as OTEL_TRACES_SAMPLER(_ARG) say (default: every root span, and as the parent was),
 * takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES as its resource, and propagates W3C
 * `traceparent`/`tracestate` and `baggage`.
 *
 * @param serviceName the `service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise
 * @returns null when tracing is off
 * @throws TracingSettingError when OTEL_TRACES_EXPORTER names an unknown exporter
 */
export async function startTracing(serviceName: string, options: TracingOptions = {}): Promise<Tracing | null> {
  if (!tracingEnabled()) return null;
  const exporters = exportersOf(process.env);
  const [api, { NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // Only the endpoint variables set: OTLP, the spec's default exporter.
  const report = options.onExportFailures;
  const exporterOf = (name: string): SpanExporter => {
    const exporter = name === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
    return report ? new ReportingExporter(exporter, report) : exporter;
  };
  const spanProcessors = (exporters.length === 0 ? ['otlp'] : exporters).map((name) => new BatchSpanProcessor(exporterOf(name)));
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register();
  return {
    tracer: api.trace.getTracer(serviceName),
    async shutdown(timeoutMs = Number.POSITIVE_INFINITY) {
      const timer = new AbortController();
      const exported = provider.shutdown().then(
        () => true,
        () => true,
      );
      const finished = Number.isFinite(timeoutMs)
        ? await Promise.race([exported, delay(Math.max(0, timeoutMs), false, { signal: timer.signal }).catch(() => false)])
        : await exported;
      timer.abort();
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
      return finished;
    },
  };
}
