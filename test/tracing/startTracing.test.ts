import { describe, expect, it } from 'vitest';
import { startTracing, tracingEnabled, TracingSettingError } from '../../tracing/startTracing.ts';

describe('tracingEnabled', () => {
  it('is off when no OTEL_* variable asks for it', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_SERVICE_NAME: 'api' })).toBe(false);
  });

  it('is on with an OTLP endpoint, for traces or for every signal', () => {
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('is on with an exporter named, and off with none', () => {
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });

  it('is off when OTEL_SDK_DISABLED is true, whatever else is set', () => {
    expect(tracingEnabled({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingEnabled({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  });

  it('refuses an unknown exporter, naming it and the allowed ones', () => {
    expect(() => tracingEnabled({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toThrow(
      new TracingSettingError('OTEL_TRACES_EXPORTER names "zipkin"; allowed values: otlp, console, none (comma-separated)'),
    );
  });
});

describe('startTracing', () => {
  it('starts nothing when tracing is off', async () => {
    const saved = { ...process.env };
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER']) delete process.env[name];
    try {
      expect(await startTracing('api')).toBeNull();
    } finally {
      Object.assign(process.env, saved);
    }
  });
});
