/**
 * The query interface's settings, one declaration per environment variable: type, range,
 * default and what it does (settings.ts reads them; config.ts assembles the Config).
 * docs/operations.md#configuration lists them for operators.
 */

import type { LevelWithSilent } from 'pino';
import { boolean, integer, oneOf, paths } from './settings.ts';

/** pino's levels, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LevelWithSilent[];

/** The integer, boolean, one-of and path-list settings; HOST, DATA_DIR, ALLOWED_ORIGINS, SNAPSHOT_URL and SNAPSHOT_PUBLIC_KEY are read by config.ts. */
export const SERVER_SETTINGS = {
  PORT: integer(0, 65535, 4000, 'TCP port; 0 picks a free port.'),
  SNAPSHOT_READ_TIMEOUT_MS: integer(100, 3_600_000, 30_000, 'The longest the manifest, or one file it names, may take to be read, checked and inflated, in ms.'),
  SNAPSHOT_MAX_FILE_BYTES: integer(1_048_576, 2_147_483_647, 268_435_456, 'Largest size one file of a snapshot may inflate to, in bytes; inflating stops there and the snapshot is refused.'),
  SNAPSHOT_POLL_S: integer(1, 86_400, 60, "Pull mode: seconds between polls of the origin's manifest, plus a random part of up to a fifth."),
  SNAPSHOT_FETCH_TIMEOUT_MS: integer(100, 3_600_000, 120_000, 'Pull mode: total deadline of one GET from the origin (connecting, headers and the whole body), in ms.'),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', 'pino level of the JSON logs on stdout.'),
  INTROSPECTION: boolean(true, 'Whether `__schema` and `__type` are answered.'),
  MAX_BODY_BYTES: integer(1024, 10_485_760, 102_400, 'Largest request body in bytes.'),
  MAX_TOKENS: integer(10, 100_000, 2000, 'Most lexical tokens in a query document.'),
  MAX_DEPTH: integer(1, 100, 10, 'Deepest field nesting; root fields are at depth 1.'),
  MAX_ALIASES: integer(0, 10_000, 30, 'Most aliased fields in an operation, fragments expanded.'),
  MAX_DIRECTIVES: integer(0, 10_000, 20, 'Most directives in a document.'),
  MAX_COST: integer(1, 100_000_000, 25_000, 'Largest cost of an operation.'),
  MAX_RESPONSE_BYTES: integer(1024, 1_073_741_824, 4_194_304, 'Largest answer in bytes, as JSON before compression.'),
  EXECUTION_TIMEOUT_MS: integer(1, 600_000, 2000, 'Time budget of one execution in ms.'),
  HEADERS_TIMEOUT_MS: integer(100, 600_000, 10_000, "Time to receive a request's headers, in ms."),
  REQUEST_TIMEOUT_MS: integer(100, 3_600_000, 30_000, 'Time to receive a whole request, in ms; not below HEADERS_TIMEOUT_MS.'),
  KEEP_ALIVE_TIMEOUT_MS: integer(0, 600_000, 5000, 'Idle time before a keep-alive connection is closed, in ms.'),
  CACHE_MAX_AGE_S: integer(0, 86_400, 300, 'Upper bound of max-age on successful GraphQL answers, in s.'),
  CACHE_STALE_WHILE_REVALIDATE_S: integer(0, 86_400, 60, 'stale-while-revalidate on successful GraphQL answers, in s.'),
  APQ_CACHE_BYTES: integer(0, 1_073_741_824, 8_388_608, 'Memory for automatic persisted queries in bytes; 0 turns them off.'),
  PERSISTED_DOCUMENTS: paths('Manifests of trusted documents, comma-separated: GraphQL Code Generator persisted-documents.json or Apollo persisted query lists; reloaded when they change.'),
  PERSISTED_DOCUMENTS_ONLY: boolean(false, 'Whether only the trusted documents of PERSISTED_DOCUMENTS are answered (and no persisted query is registered).'),
  RESPONSE_CACHE: boolean(true, 'Whether the response cache is on.'),
  RESPONSE_CACHE_BYTES: integer(65_536, 17_179_869_184, 67_108_864, 'Memory of the response cache per process, in bytes.'),
  RECORD_CACHE: boolean(true, 'Whether the record bytes cache is on.'),
  RECORD_CACHE_BYTES: integer(65_536, 17_179_869_184, 33_554_432, 'Memory of the record bytes cache per process, in bytes.'),
  OPERATION_CACHE_SIZE: integer(0, 100_000, 1000, 'Most checked operations kept per process; 0 keeps none.'),
  GRAPHQL_JIT: boolean(true, 'Whether operations are compiled with graphql-jit.'),
  WORKERS: integer(1, 256, undefined, 'Processes serving the port; default one per core, 1 under `npm run dev`.'),
  SHED_EVENT_LOOP_DELAY_MS: integer(0, 60_000, 100, 'GraphQL and GeoJSON requests get 503 OVERLOADED while the event loop is late by more than this, in ms; 0 turns shedding off.'),
  SHUTDOWN_GRACE_MS: integer(0, 600_000, 10_000, 'Time in-flight requests get to finish after SIGTERM/SIGINT, in ms.'),
};
