/**
 * OpenTelemetry tracing, shared by the server and the sync CLI: turned on by the standard OTEL_*
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/),
 * which the SDK itself reads. Off, the SDK is never loaded: the OpenTelemetry API alone answers,
 * with its no-op tracer.
 */

import type { Tracer } from '@opentelemetry/api';

/** The values OTEL_TRACES_EXPORTER may list, comma-separated. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;

/** A bad OTEL_* setting: the start stops with this message. */
export class TracingSettingError extends Error {
  override name = 'TracingSettingError';
}

/** Tracing as started: the tracer, and how to stop it. */
export interface Tracing {
  /** The tracer of the process, registered as the API's global one too. */
  readonly tracer: Tracer;
  /**
   * Exports the spans still buffered, then unregisters the SDK from the API (the API's no-op
   * tracer answers again). Never rejects: a collector that is down loses the last spans.
   */
  shutdown(): Promise<void>;
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
export async function startTracing(serviceName: string): Promise<Tracing | null> {
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
  const spanProcessors = (exporters.length === 0 ? ['otlp'] : exporters).map(
    (name) => new BatchSpanProcessor(name === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter()),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register();
  return {
    tracer: api.trace.getTracer(serviceName),
    async shutdown() {
      await provider.shutdown().catch(() => {});
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
    },
  };
}
