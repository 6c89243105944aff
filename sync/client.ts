/**
 * The one HTTP client every source fetches through (undici): per-request timeouts, a bound
 * on requests in flight, pacing per upstream quota, retries with exponential backoff and
 * jitter, a deadline for the whole run, and one error type.
 *
 * Retries happen on network errors, timeouts, 408, 429 and 5xx, honouring `Retry-After`
 * (https://www.rfc-editor.org/rfc/rfc9110#field.retry-after). Anything else fails at once
 * with a {@link FetchError}. No wait (backoff, `Retry-After`, pacing) runs past the deadline:
 * the request fails instead, so a run under a quota ends in time and reports why. Each attempt
 * has a total bound too, headers and whole body, and the deadline ends an attempt in flight:
 * undici's body timeout is the silence between two chunks, so an upstream sending a byte now
 * and then would otherwise hold a request open for ever. Keys never leave this module in a URL or message: query
 * parameters that look like credentials and every configured secret are redacted.
 */

import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_REQUEST_RESEND_COUNT, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import { Agent, type Dispatcher, request } from 'undici';

/**
 * Statuses worth asking again for; everything else is final. Modelled on ofetch's
 * `retryStatusCodes` (https://github.com/unjs/ofetch/blob/main/src/fetch.ts), without 409 and
 * 425, which our read-only GETs never cause, and without 501/505, which no retry cures.
 */
const RETRY_STATUS_CODES = new Set([
  408, // Request Timeout: the server gave up waiting for us
  429, // Too Many Requests: rate limited; Retry-After says when
  500, // Internal Server Error: often a transient upstream fault
  502, // Bad Gateway: a proxy could not reach the origin
  503, // Service Unavailable: overloaded or in maintenance; may send Retry-After
  504, // Gateway Timeout: the origin was too slow for a proxy
]);

/** Error codes of failures below HTTP that a second attempt can cure. */
const RETRY_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN', // DNS lookup timed out (as opposed to ENOTFOUND)
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET', // the other side closed mid-response
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', // a body shorter than its Content-Length
]);

/** Query parameters whose value is a credential, whatever the upstream calls them (STnet's `stn-ticket` is a hash of its key). */
const SECRET_PARAM = /key|token|ticket|secret|signature|password|auth/i;
const REDACTED = 'REDACTED';

export interface RetryEvent {
  method: string;
  /** Redacted URL. */
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  maxAttempts: number;
  /** Wait before the next attempt, in milliseconds. */
  delayMs: number;
  /** Why, e.g. `503 Service Unavailable` or `UND_ERR_HEADERS_TIMEOUT`. */
  reason: string;
}

export interface HttpClientOptions {
  /** Longest wait for the response headers of one attempt, in ms. Default 30 000. */
  headersTimeoutMs?: number;
  /** Longest silence between two chunks of a response body, in ms. Default 60 000. */
  bodyTimeoutMs?: number;
  /** Longest one attempt may take in all, headers and the whole body, in ms; a slower one is retried. Default 120 000. */
  attemptTimeoutMs?: number;
  /** Requests in flight at most, over all hosts. Default 4. */
  concurrency?: number;
  /** Attempts per request including the first. Default 5. */
  maxAttempts?: number;
  /** Backoff before the second attempt, in ms; doubled (`factor`) for each further one. Default 500. */
  minDelayMs?: number;
  /** Backoff cap, in ms. Default 30 000. */
  maxDelayMs?: number;
  /** Growth of the backoff per attempt. Default 2. */
  factor?: number;
  /** Longest `Retry-After` we wait for, in ms; a longer one fails the request. Default 120 000. */
  maxRetryAfterMs?: number;
  /**
   * Longest the client works in all, from its creation, in ms: a backoff, `Retry-After` or
   * pacing wait that would end later fails its request at once, and an attempt still running
   * at the deadline is ended and fails its request. Default: no deadline.
   */
  deadlineMs?: number;
  /** Names the deadline in messages, e.g. the setting it came from. Default `the run's deadline`. */
  deadlineName?: string;
  /** Values (API keys) to redact wherever they could appear in a URL or message. */
  secrets?: readonly string[];
  /** Called before each backoff wait; per-request `onRetry` is called too. */
  onRetry?: (event: RetryEvent) => void;
  /** The undici dispatcher; default a private Agent closed by {@link HttpClient.close}. */
  dispatcher?: Dispatcher;
  /**
   * When tracing is on: each attempt is a client span (HTTP semantic conventions, the URL
   * redacted), child of the active span. Nothing is propagated to the upstreams.
   */
  tracer?: Tracer | undefined;
}

export interface RequestOptions {
  /** Default GET, or POST when `body` is given. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Shares an upstream's quota with every request of the same `key`; see {@link Pace}. */
  pace?: Pace;
  /**
   * Wait after a 429 without `Retry-After`, in ms, for an upstream whose quota resets on its
   * own clock. Default: the usual backoff.
   */
  rateLimitWaitMs?: number;
  /** Longest wait for the headers, and between two chunks of the body, in ms; default the client's. */
  timeoutMs?: number;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * A quota shared by the requests of one upstream: they are let through (to the bound on
 * requests in flight) at most one per `intervalMs`, and a 429 among them holds back all of
 * them for its wait, since the quota that ran out is theirs together.
 */
export interface Pace {
  /** Names the quota, e.g. the upstream. */
  key: string;
  /** Least time between two requests of the quota, in ms; 0 for no pacing. */
  intervalMs: number;
}

export interface HttpClient {
  /**
   * Requests a URL and parses its JSON body, retrying as described in the module comment. A
   * function for `url` is called for every attempt, for upstreams that want each request signed
   * afresh.
   *
   * @returns the parsed body of a 2xx response
   * @throws FetchError after the last attempt, on a status that is not retried, on a body that
   *   is not JSON, or when a `Retry-After` exceeds `maxRetryAfterMs`
   */
  json<T = unknown>(url: string | URL | (() => string | URL), options?: RequestOptions): Promise<T>;
  /** Closes the connections of the client's own dispatcher. */
  close(): Promise<void>;
}

/**
 * One failed request: `[GET] "https://host/path?key=REDACTED": 503 Service Unavailable`.
 * `status` is undefined when no response arrived; `cause` holds the underlying error.
 */
export class FetchError extends Error {
  override name = 'FetchError';
  readonly method: string;
  /** Redacted. */
  readonly url: string;
  readonly status: number | undefined;
  /** Attempts made, from 1. */
  readonly attempts: number;

  constructor(method: string, url: string, status: number | undefined, detail: string, attempts: number, cause?: unknown) {
    super(`[${method}] "${url}": ${detail}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, cause === undefined ? undefined : { cause });
    this.method = method;
    this.url = url;
    this.status = status;
    this.attempts = attempts;
  }
}

/** What one attempt ended with, before deciding on a retry. */
type Outcome =
  | { kind: 'ok'; value: unknown; status: number }
  | { kind: 'final'; error: FetchError }
  | { kind: 'retry'; reason: string; status: number | undefined; retryAfterMs: number | undefined; detail: string; cause?: unknown };

/** Creates a client; see {@link HttpClientOptions} for the defaults. */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const headersTimeout = options.headersTimeoutMs ?? 30_000;
  const bodyTimeout = options.bodyTimeoutMs ?? 60_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 120_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const minDelayMs = options.minDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
  const secrets = (options.secrets ?? []).filter((secret) => secret.length > 0);
  const ownDispatcher = options.dispatcher ? undefined : new Agent({ headersTimeout, bodyTimeout });
  const dispatcher = options.dispatcher ?? ownDispatcher!;
  const limit = createLimiter(Math.max(1, options.concurrency ?? 4));
  const deadline = options.deadlineMs === undefined ? Infinity : Date.now() + options.deadlineMs;
  const deadlineText = options.deadlineName === undefined || options.deadlineMs === undefined ? "the run's deadline" : `${options.deadlineName} (${formatWait(options.deadlineMs)})`;
  /** Per pace key, the earliest time (epoch ms) the next request of that quota may go. */
  const nextTurn = new Map<string, number>();

  const hide = (text: string) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
  const { tracer } = options;

  /** One attempt, in its client span when tracing is on. */
  async function tracedAttempt(method: string, url: URL, shown: string, init: RequestOptions, attemptNo: number): Promise<Outcome> {
    if (!tracer) return attempt(method, url, shown, init, attemptNo);
    const span = tracer.startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_FULL]: shown, ...(attemptNo > 1 ? { [ATTR_HTTP_REQUEST_RESEND_COUNT]: attemptNo - 1 } : {}) },
    });
    try {
      const outcome = await attempt(method, url, shown, init, attemptNo);
      endSpan(span, outcome);
      return outcome;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    }
  }

  async function attempt(method: string, url: URL, shown: string, init: RequestOptions, attemptNo: number): Promise<Outcome> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    // One bound for the whole attempt, headers and body: the sooner of its own and the deadline's.
    const untilDeadline = deadline - Date.now();
    if (untilDeadline <= 0) return { kind: 'final', error: new FetchError(method, shown, undefined, `not sent: ${deadlineText} has passed`, attemptNo) };
    const byDeadline = untilDeadline < attemptTimeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(untilDeadline, attemptTimeoutMs));
    const stopped = (status?: number): Outcome => {
      const phase = status === undefined ? 'before its response headers arrived' : `while its ${status} response body was still arriving`;
      if (byDeadline) return { kind: 'final', error: new FetchError(method, shown, status, `stopped: ${deadlineText} passed ${phase}`, attemptNo) };
      const detail = `stopped after ${formatWait(attemptTimeoutMs)}, the longest an attempt may take, ${phase}`;
      return { kind: 'retry', reason: 'attempt timeout', status, retryAfterMs: undefined, detail };
    };
    let response: Dispatcher.ResponseData;
    let text: string;
    try {
      try {
        const timeouts = init.timeoutMs === undefined ? { headersTimeout, bodyTimeout } : { headersTimeout: init.timeoutMs, bodyTimeout: init.timeoutMs };
        response = await request(url, { method, headers, body, dispatcher, signal: controller.signal, ...timeouts });
      } catch (error) {
        return controller.signal.aborted ? stopped() : networkOutcome(method, shown, error, attemptNo);
      }
      try {
        text = await response.body.text();
      } catch (error) {
        return controller.signal.aborted ? stopped(response.statusCode) : networkOutcome(method, shown, error, attemptNo, response.statusCode);
      }
    } finally {
      clearTimeout(timer);
    }
    const { statusCode } = response;
    const statusLine = `${statusCode} ${STATUS_CODES[statusCode] ?? ''}`.trim();
    if (statusCode < 200 || statusCode > 299) {
      const detail = `${statusLine}${snippet(hide(text))}`;
      if (!RETRY_STATUS_CODES.has(statusCode)) return { kind: 'final', error: new FetchError(method, shown, statusCode, detail, attemptNo) };
      return { kind: 'retry', reason: statusLine, status: statusCode, retryAfterMs: parseRetryAfter(response.headers['retry-after']), detail };
    }
    try {
      return { kind: 'ok', value: JSON.parse(text), status: statusCode };
    } catch (error) {
      // A cut-off body parses up to its end and fails there (a cut after a comma fails "at
      // position <length>" rather than at "end of input"); anything else is malformed.
      const message = (error as Error).message;
      const failsAtEnd = /end of (JSON )?input|Unterminated/i.test(message) || Number(/at position (\d+)/.exec(message)?.[1]) >= text.trimEnd().length;
      const what = text.trim() === '' ? 'an empty body' : failsAtEnd ? `truncated JSON (${text.length} bytes)` : 'malformed JSON';
      return {
        kind: 'final',
        error: new FetchError(method, shown, statusCode, `${statusLine} with ${what}, expected JSON: ${(error as Error).message}`, attemptNo, error),
      };
    }
  }

  async function json<T>(input: string | URL | (() => string | URL), init: RequestOptions = {}): Promise<T> {
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    let url = new URL(typeof input === 'function' ? input() : input);
    let shown = hide(redactUrl(url));
    for (let attemptNo = 1; ; attemptNo++) {
      if (attemptNo > 1 && typeof input === 'function') {
        url = new URL(input());
        shown = hide(redactUrl(url));
      }
      if (init.pace) await takeTurn(init.pace, method, shown, attemptNo);
      const outcome = await limit(() => tracedAttempt(method, url, shown, init, attemptNo));
      if (outcome.kind === 'ok') return outcome.value as T;
      if (outcome.kind === 'final') throw outcome.error;
      if (attemptNo >= maxAttempts) throw new FetchError(method, shown, outcome.status, outcome.detail, attemptNo, outcome.cause);
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > maxRetryAfterMs) {
        throw new FetchError(
          method,
          shown,
          outcome.status,
          `${outcome.detail}; Retry-After asks for ${Math.ceil(outcome.retryAfterMs / 1000)} s, more than the ${maxRetryAfterMs / 1000} s we wait`,
          attemptNo,
          outcome.cause,
        );
      }
      const backoff = Math.min(maxDelayMs, minDelayMs * factor ** (attemptNo - 1));
      // Equal jitter: never less than half the backoff, so clients that failed together spread out.
      const jittered = backoff / 2 + (Math.random() * backoff) / 2;
      const rateLimited = outcome.status === 429 && outcome.retryAfterMs === undefined ? init.rateLimitWaitMs : undefined;
      const delayMs = Math.round(outcome.retryAfterMs ?? rateLimited ?? jittered);
      if (Date.now() + delayMs > deadline) {
        throw new FetchError(method, shown, outcome.status, `${outcome.detail}; waiting ${formatWait(delayMs)} to retry would pass ${deadlineText}`, attemptNo, outcome.cause);
      }
      const event: RetryEvent = { method, url: shown, attempt: attemptNo, maxAttempts, delayMs, reason: outcome.reason };
      options.onRetry?.(event);
      init.onRetry?.(event);
      // A 429 speaks for the whole quota: the other requests of the pace wait too.
      if (init.pace && outcome.status === 429) nextTurn.set(init.pace.key, Math.max(nextTurn.get(init.pace.key) ?? 0, Date.now() + delayMs));
      await sleep(delayMs);
    }
  }

  /** Waits for the request's turn in its quota and books the next one. */
  async function takeTurn(pace: Pace, method: string, shown: string, attemptNo: number): Promise<void> {
    const now = Date.now();
    const turn = Math.max(now, nextTurn.get(pace.key) ?? 0);
    if (turn > deadline) throw new FetchError(method, shown, undefined, `not sent: its turn in the ${pace.key} quota comes after ${deadlineText}`, attemptNo);
    nextTurn.set(pace.key, turn + Math.max(0, pace.intervalMs));
    if (turn > now) await sleep(turn - now);
  }

  function networkOutcome(method: string, shown: string, error: unknown, attemptNo: number, status?: number): Outcome {
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    const message = hide((error as Error).message ?? String(error));
    const detail = `${status === undefined ? '' : `${status} response broke off: `}${code ? `${code} ` : ''}${message}`;
    if (code && RETRY_ERROR_CODES.has(code)) return { kind: 'retry', reason: code, status, retryAfterMs: undefined, detail, cause: error };
    return { kind: 'final', error: new FetchError(method, shown, status, detail, attemptNo, error) };
  }

  return {
    json,
    close: async () => {
      await ownDispatcher?.close();
    },
  };
}

/** Ends an attempt's span with its status, and the reason when it failed. */
function endSpan(span: Span, outcome: Outcome): void {
  const status = outcome.kind === 'final' ? outcome.error.status : outcome.status;
  if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (outcome.kind !== 'ok') {
    span.setAttribute(ATTR_ERROR_TYPE, outcome.kind === 'retry' ? outcome.reason : String(outcome.error.status ?? 'FetchError'));
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.kind === 'retry' ? outcome.detail : outcome.error.message });
  }
  span.end();
}

/** The URL as it may be shown: credential-like query values replaced by `REDACTED`. */
export function redactUrl(input: string | URL): string {
  const url = new URL(input);
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, REDACTED);
  }
  if (url.password) url.password = REDACTED;
  return url.href;
}

/**
 * Reads a `Retry-After` header: delay seconds or an HTTP date.
 *
 * @returns milliseconds from now (0 for a date in the past), or undefined when absent or unreadable
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.ceil(ms / 1000)} s` : `${ms} ms`;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '';
  return `: ${flat.length > 200 ? `${flat.slice(0, 200)}…` : flat}`;
}

/** Runs at most `size` tasks at once; the others wait in call order. */
function createLimiter(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter so `active` never overshoots.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
