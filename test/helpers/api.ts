/** Starts the real server on a free loopback port over a data directory, and queries it over HTTP. */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readConfig } from '../../server/config/config.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import type { AreaName, AreaRecords, GeometryFile, Locale, Manifest, TourGeometry } from '../../sync/format.ts';

/** The committed fixture snapshot. */
export const DATA_DIR = path.resolve(import.meta.dirname, '../../data');

/** A fresh directory for the booking sandbox's journal, so parallel test servers never share one. */
export function tempStateDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'booking-state-'));
}

export interface GraphQLResponse {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: { code?: string }; path?: (string | number)[] }[];
}

export interface TestApi {
  server: RunningServer;
  query(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse>;
  close(): Promise<void>;
}

/**
 * Settings of every server started inside a test process: it does not shed load, since the event
 * loop it would measure is the test runner's as well, which the test files sharing the worker keep
 * busy (test/server/http/loadShedding.slow.test.ts sheds in a server process of its own).
 */
export const IN_PROCESS = { SHED_EVENT_LOOP_DELAY_MS: '0' } as const;

/**
 * @param options.clock what the server reads the time from (startServer's clock): the day
 *   activities' next available dates are worked out against
 */
export async function startTestApi(env: Record<string, string> = {}, options: { clock?: () => number } = {}): Promise<TestApi> {
  const server = await startServer(readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR, LOG_LEVEL: 'silent', STATE_DIR: tempStateDir(), ...IN_PROCESS, ...env }), undefined, { clock: options.clock });
  return {
    server,
    async query(query, variables) {
      const response = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as GraphQLResponse;
    },
    close: () => server.close(),
  };
}

/** Reads one area of the committed snapshot straight from its file, independently of the server. */
export function readArea<A extends AreaName>(locale: Locale, area: A): AreaRecords[A][] {
  const manifest = JSON.parse(readFileSync(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as Manifest;
  for (const source of Object.values(manifest.sources)) {
    const file = source?.locales[locale]?.[area];
    if (file) return JSON.parse(gunzipSync(readFileSync(path.join(DATA_DIR, file.file))).toString('utf8'));
  }
  throw new Error(`no ${area} for ${locale} in ${DATA_DIR}`);
}

/** The tours' lines of a data directory (by default the committed snapshot), read straight from its geometry file; none when it has no such file. */
export function readLines(dataDir = DATA_DIR): Record<string, TourGeometry> {
  const manifest = JSON.parse(readFileSync(path.join(dataDir, 'manifest.json'), 'utf8')) as Manifest;
  if (!manifest.geometry) return {};
  return (JSON.parse(gunzipSync(readFileSync(path.join(dataDir, manifest.geometry.file))).toString('utf8')) as GeometryFile).tours;
}
