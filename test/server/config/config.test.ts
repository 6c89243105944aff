import { generateKeyPairSync } from 'node:crypto';
import { cpuCount } from '../../../server/config/cpuCount.ts';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../../server/config/config.ts';

describe('readConfig', () => {
  it('has a documented default for every setting', () => {
    expect(readConfig({})).toEqual({
      port: 4000,
      host: '0.0.0.0',
      dataDir: 'data',
      snapshotReadTimeoutMs: 30_000,
      snapshotMaxFileBytes: 268_435_456,
      pull: null,
      allowedOrigins: [],
      logLevel: 'info',
      introspection: true,
      limits: {
        maxBodyBytes: 102_400,
        maxTokens: 2000,
        maxDepth: 10,
        maxAliases: 30,
        maxDirectives: 20,
        maxCost: 25_000,
        maxResponseBytes: 4_194_304,
        executionTimeoutMs: 2000,
      },
      timeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5000 },
      cache: { maxAgeS: 300, staleWhileRevalidateS: 60 },
      apqCacheBytes: 8_388_608,
      trustedDocuments: { files: [], only: false },
      responseCacheBytes: 67_108_864,
      recordCacheBytes: 33_554_432,
      operationCacheSize: 1000,
      jit: true,
      workers: cpuCount(),
      shutdownGraceMs: 10_000,
      shedEventLoopDelayMs: 100,
      booking: { mode: 'sandbox', stateDir: '.state', rateLimitPerMinute: 60, trustedProxies: 0, idempotencyMaxEntries: 100000, idempotencyMaxBytes: 67108864, maxCartItems: 50, maxHeldPlaces: 200 },
      terms: {
        activities: { license: 'LicenseRef-SwissActivities-Partner-Contract', attribution: 'Swiss Activities' },
        snowdata: { license: 'LicenseRef-STnet-Partner-Terms', attribution: 'Switzerland Tourism, STnet winter sports report' },
        tours: { license: 'CC-BY-SA-4.0', attribution: 'Switzerland Tourism, MySwitzerland Open Data; SwitzerlandMobility for its routes' },
        attractions: { license: 'CC-BY-SA-4.0', attribution: 'Switzerland Tourism, MySwitzerland Open Data' },
      },
    });
  });

  it('reads every variable', () => {
    const config = readConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/srv/data',
      SNAPSHOT_READ_TIMEOUT_MS: '5000',
      SNAPSHOT_MAX_FILE_BYTES: '1048576',
      ALLOWED_ORIGINS: 'https://www.example.ch, https://app.example.ch/',
      LOG_LEVEL: 'WARN',
      INTROSPECTION: 'false',
      MAX_BODY_BYTES: '4096',
      MAX_TOKENS: '500',
      MAX_DEPTH: '6',
      MAX_ALIASES: '5',
      MAX_DIRECTIVES: '3',
      MAX_COST: '1000',
      MAX_RESPONSE_BYTES: '65536',
      EXECUTION_TIMEOUT_MS: '250',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      CACHE_MAX_AGE_S: '60',
      CACHE_STALE_WHILE_REVALIDATE_S: '0',
      APQ_CACHE_BYTES: '0',
      PERSISTED_DOCUMENTS: 'app/persisted-documents.json, /srv/web/persisted-query-manifest.json',
      PERSISTED_DOCUMENTS_ONLY: 'true',
      RESPONSE_CACHE_BYTES: '1048576',
      RECORD_CACHE_BYTES: '2097152',
      OPERATION_CACHE_SIZE: '50',
      GRAPHQL_JIT: 'false',
      WORKERS: '3',
      SHUTDOWN_GRACE_MS: '25000',
      TRUST_PROXY: '1',
      ACTIVITIES_LICENSE: 'https://partner.example.ch/terms',
      ACTIVITIES_ATTRIBUTION: 'Example AG',
      SNOWDATA_LICENSE: 'LicenseRef-Snow',
      SNOWDATA_ATTRIBUTION: 'Snow: Example',
      TOURS_LICENSE: 'CC-BY-4.0',
      TOURS_ATTRIBUTION: 'Routes: Example',
      ATTRACTIONS_LICENSE: 'ODbL-1.0',
      ATTRACTIONS_ATTRIBUTION: 'Sights: Example',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/srv/data',
      snapshotReadTimeoutMs: 5000,
      snapshotMaxFileBytes: 1_048_576,
      pull: null,
      allowedOrigins: ['https://www.example.ch', 'https://app.example.ch'],
      logLevel: 'warn',
      introspection: false,
      limits: { maxBodyBytes: 4096, maxTokens: 500, maxDepth: 6, maxAliases: 5, maxDirectives: 3, maxCost: 1000, maxResponseBytes: 65_536, executionTimeoutMs: 250 },
      timeouts: { headersMs: 2000, requestMs: 4000, keepAliveMs: 65_000 },
      cache: { maxAgeS: 60, staleWhileRevalidateS: 0 },
      apqCacheBytes: 0,
      trustedDocuments: { files: ['app/persisted-documents.json', '/srv/web/persisted-query-manifest.json'], only: true },
      responseCacheBytes: 1_048_576,
      recordCacheBytes: 2_097_152,
      operationCacheSize: 50,
      jit: false,
      workers: 3,
      shutdownGraceMs: 25_000,
      shedEventLoopDelayMs: 100,
      booking: { mode: 'sandbox', stateDir: '.state', rateLimitPerMinute: 60, trustedProxies: 1, idempotencyMaxEntries: 100000, idempotencyMaxBytes: 67108864, maxCartItems: 50, maxHeldPlaces: 200 },
      terms: {
        activities: { license: 'https://partner.example.ch/terms', attribution: 'Example AG' },
        snowdata: { license: 'LicenseRef-Snow', attribution: 'Snow: Example' },
        tours: { license: 'CC-BY-4.0', attribution: 'Routes: Example' },
        attractions: { license: 'ODbL-1.0', attribution: 'Sights: Example' },
      },
    });
  });

  it('reads 1 and 0 as booleans too, and treats blank values as unset', () => {
    expect(readConfig({ INTROSPECTION: '0' }).introspection).toBe(false);
    expect(readConfig({ INTROSPECTION: '1', PORT: '  ', LOG_LEVEL: '' })).toMatchObject({ introspection: true, port: 4000, logLevel: 'info' });
  });

  it('turns the response cache off with RESPONSE_CACHE=0 or false, still checking its size', () => {
    expect(readConfig({ RESPONSE_CACHE: '0' }).responseCacheBytes).toBe(0);
    expect(readConfig({ RESPONSE_CACHE: 'false', RESPONSE_CACHE_BYTES: '2097152' }).responseCacheBytes).toBe(0);
    expect(readConfig({ RESPONSE_CACHE: 'true', RESPONSE_CACHE_BYTES: '2097152' }).responseCacheBytes).toBe(2_097_152);
    expect(() => readConfig({ RESPONSE_CACHE: '0', RESPONSE_CACHE_BYTES: '64MB' })).toThrow('RESPONSE_CACHE_BYTES="64MB"');
  });

  it('turns the record bytes cache off with RECORD_CACHE=0 or false, still checking its size', () => {
    expect(readConfig({ RECORD_CACHE: '0' }).recordCacheBytes).toBe(0);
    expect(readConfig({ RECORD_CACHE: 'false', RECORD_CACHE_BYTES: '2097152' }).recordCacheBytes).toBe(0);
    expect(readConfig({ RECORD_CACHE: 'true', RECORD_CACHE_BYTES: '2097152' }).recordCacheBytes).toBe(2_097_152);
    expect(() => readConfig({ RECORD_CACHE: '0', RECORD_CACHE_BYTES: '32MB' })).toThrow('RECORD_CACHE_BYTES="32MB"');
  });

  it.each([
    [{ WORKERS: '0' }, 'WORKERS="0": expected an integer from 1 to 256'],
    [{ SNAPSHOT_READ_TIMEOUT_MS: '10' }, 'SNAPSHOT_READ_TIMEOUT_MS="10": expected an integer from 100 to 3600000'],
    [{ WORKERS: 'all' }, 'WORKERS="all": expected an integer from 1 to 256'],
    [{ RESPONSE_CACHE: 'on' }, 'RESPONSE_CACHE="on": expected true or false (or 1 or 0)'],
    [{ RESPONSE_CACHE_BYTES: '1024' }, 'RESPONSE_CACHE_BYTES="1024": expected an integer from 65536 to 17179869184'],
    [{ RECORD_CACHE: 'yes' }, 'RECORD_CACHE="yes": expected true or false (or 1 or 0)'],
    [{ RECORD_CACHE_BYTES: '1024' }, 'RECORD_CACHE_BYTES="1024": expected an integer from 65536 to 17179869184'],
    [{ OPERATION_CACHE_SIZE: '-1' }, 'OPERATION_CACHE_SIZE="-1": expected an integer from 0 to 100000'],
    [{ GRAPHQL_JIT: 'yes' }, 'GRAPHQL_JIT="yes": expected true or false (or 1 or 0)'],
  ])('refuses the performance setting %o with a message naming it', (env, message) => {
    expect(() => readConfig(env)).toThrow(new ConfigError(message));
  });

  it.each([
    [{ PORT: 'http' }, 'PORT="http": expected an integer from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT="70000": expected an integer from 0 to 65535'],
    [{ MAX_COST: '0' }, 'MAX_COST="0": expected an integer from 1 to 100000000'],
    [{ MAX_RESPONSE_BYTES: '100' }, 'MAX_RESPONSE_BYTES="100": expected an integer from 1024 to 1073741824'],
    [{ MAX_DEPTH: '2.5' }, 'MAX_DEPTH="2.5": expected an integer from 1 to 100'],
    [{ MAX_BODY_BYTES: '1e6' }, 'MAX_BODY_BYTES="1e6": expected an integer from 1024 to 10485760'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent'],
    [{ INTROSPECTION: 'maybe' }, 'INTROSPECTION="maybe": expected true or false (or 1 or 0)'],
    [{ HEADERS_TIMEOUT_MS: '40000' }, 'REQUEST_TIMEOUT_MS=30000 is below HEADERS_TIMEOUT_MS=40000; the whole request includes its headers'],
    [{ ALLOWED_ORIGINS: 'https://example.ch/app' }, 'ALLOWED_ORIGINS: "https://example.ch/app" is not an origin; expected scheme://host[:port] without a path, e.g. https://www.example.ch'],
    [{ ALLOWED_ORIGINS: 'example.ch' }, 'ALLOWED_ORIGINS: "example.ch" is not an origin; expected e.g. https://www.example.ch'],
    [{ PERSISTED_DOCUMENTS: 'a.json,,b.json' }, 'PERSISTED_DOCUMENTS="a.json,,b.json": expected file paths separated by commas, without an empty one'],
    [{ PERSISTED_DOCUMENTS_ONLY: 'on' }, 'PERSISTED_DOCUMENTS_ONLY="on": expected true or false (or 1 or 0)'],
    [
      { PERSISTED_DOCUMENTS_ONLY: '1' },
      'PERSISTED_DOCUMENTS_ONLY=true needs PERSISTED_DOCUMENTS: the manifest files of the documents to answer (comma-separated)',
    ],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => readConfig(env)).toThrow(new ConfigError(message));
  });

  it('reads pull mode: the origin as a base URL, the poll, the deadline and up to two public keys, one worker by default', () => {
    const keys = [0, 1, 2].map(() => generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64'));
    const config = readConfig({ SNAPSHOT_URL: 'https://cdn.example.ch/snapshot', SNAPSHOT_POLL_S: '30', SNAPSHOT_FETCH_TIMEOUT_MS: '5000', SNAPSHOT_PUBLIC_KEY: `${keys[0]}, ${keys[1]}` });
    expect(config.pull).toMatchObject({ pollS: 30, fetchTimeoutMs: 5000 });
    expect(config.pull!.origin.href).toBe('https://cdn.example.ch/snapshot/');
    expect(config.pull!.publicKeys.map((key) => key.export({ format: 'der', type: 'spki' }).toString('base64'))).toEqual(keys.slice(0, 2));
    expect(config.workers).toBe(1);
    expect(readConfig({ SNAPSHOT_URL: 'http://127.0.0.1:8080/' }).pull).toMatchObject({ pollS: 60, fetchTimeoutMs: 120_000, publicKeys: [] });
  });

  it.each([
    [{ SNAPSHOT_URL: 'http://cdn.example.ch/' }, 'SNAPSHOT_URL: "http://cdn.example.ch/": expected an https:// URL (http:// only to a loopback address)'],
    [{ SNAPSHOT_URL: 'https://user:pw@cdn.example.ch/' }, 'SNAPSHOT_URL: "https://user:pw@cdn.example.ch/": expected a base URL without credentials, query or fragment'],
    [{ SNAPSHOT_URL: 'cdn' }, 'SNAPSHOT_URL: "cdn" is not a URL; expected the base of a data directory, e.g. https://raw.githubusercontent.com/<owner>/<repo>/data/'],
    [{ SNAPSHOT_URL: 'https://cdn.example.ch/', WORKERS: '2' }, 'WORKERS=2 with SNAPSHOT_URL: pull mode runs one process per replica; set WORKERS=1 (or leave it unset) and run more replicas'],
    [{ SNAPSHOT_URL: 'https://cdn.example.ch/', SNAPSHOT_PUBLIC_KEY: 'bm90IGEga2V5' }, 'SNAPSHOT_PUBLIC_KEY: key 1 is not a public key; expected the base64 SPKI key that `npm run sync -- --keygen` prints'],
    [{ SNAPSHOT_PUBLIC_KEY: 'bm90IGEga2V5' }, 'SNAPSHOT_PUBLIC_KEY is set without SNAPSHOT_URL: the keys check the manifests a replica pulls; set SNAPSHOT_URL too, or unset SNAPSHOT_PUBLIC_KEY'],
    [{ SNAPSHOT_URL: 'https://cdn.example.ch/', SNAPSHOT_POLL_S: '0' }, 'SNAPSHOT_POLL_S'],
  ])('refuses pull settings it cannot use: %j', (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });

  it('refuses a public key that is not Ed25519, and a third key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => readConfig({ SNAPSHOT_URL: 'https://cdn.example.ch/', SNAPSHOT_PUBLIC_KEY: rsa })).toThrow('SNAPSHOT_PUBLIC_KEY: key 1 is a rsa key; expected Ed25519');
    const ed = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => readConfig({ SNAPSHOT_URL: 'https://cdn.example.ch/', SNAPSHOT_PUBLIC_KEY: [ed(), ed(), ed()].join(',') })).toThrow('SNAPSHOT_PUBLIC_KEY: 3 keys; expected one, or two (comma-separated) while a key is rotated');
  });
});
