/**
 * Shared by the booking tests: a tiny set of activities, a booking handler on a real HTTP server
 * on port 0, and `request()`, which checks every response it receives against the OpenAPI
 * document (status documented for the operation, body matching the schema), and the shell blocks
 * of docs/booking.md's walk-through.
 */

import { once } from 'node:events';
import { inflateSync } from 'node:zlib';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Locale } from '../../../server/snapshot/locales.ts';
import { DEFAULT_IDEMPOTENCY_MAX_BYTES, DEFAULT_IDEMPOTENCY_MAX_ENTRIES, DEFAULT_MAX_CART_ITEMS, DEFAULT_MAX_HELD_PLACES } from '../../../server/config/bookingConfig.ts';
import { openApiDocument } from '../../../server/booking/openapi.ts';
import { ticketCategoryIdOf } from '../../../server/booking/partnerViews.ts';
import { type BookingHandler, type BookingHandlerOptions, createBookingHandler } from '../../../server/booking/routes.ts';
import type { ActivityRecord } from '../../../sync/format.ts';

/** 2026-11-20 07:00 in Zurich (a Friday): both of today's slots are still ahead. */
export const START = Date.parse('2026-11-20T06:00:00Z');

export function activity(bookingId: number, overrides: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    id: `act-${bookingId}`,
    bookingId,
    locale: 'de-CH',
    title: `Aktivität ${bookingId}`,
    teaserImage: null,
    supplier: { id: 'sup-1', name: 'Outdoor Ticino', slug: null },
    location: { id: 'loc-1', title: 'Cevio', slug: 'cevio', activityCount: 3 },
    type: { id: 'type-1', title: 'Canyoning', slug: 'canyoning' },
    info: null,
    summary: { startingPrice: { amount: '129.00', currency: 'CHF', formatted: 'CHF 129.00' }, rankingScoreValue: 4.5, popularity: 230, isActive: true },
    isBookable: true,
    nextAvailableDate: null,
    updatedAt: null,
    lat: '46.3470',
    lng: '8.5912',
    attributeValues: [],
    availableDates: [],
    ...overrides,
  };
}

/**
 * Activities by locale:
 * - 9: 4 places per slot, CHF 129.00, titled per locale ("Canyoning (Tessin)" / "Canyoning (Ticino)")
 * - 4711: 8 places, CHF 49.50
 * - 12: not bookable; 13: no price; 20: priced in EUR
 * - 30: only in fr-CH
 */
export const ACTIVITIES: Record<Locale, ActivityRecord[]> = {
  'de-CH': [
    activity(9, { title: 'Canyoning im Val Bavona (Tessin)' }),
    activity(4711, { summary: { startingPrice: { amount: '49.50', currency: 'CHF', formatted: null }, rankingScoreValue: 3, popularity: 10, isActive: true } }),
    activity(12, { isBookable: false }),
    activity(13, { summary: { startingPrice: null, rankingScoreValue: 1, popularity: 1, isActive: true } }),
    activity(20, { summary: { startingPrice: { amount: '80.00', currency: 'EUR', formatted: null }, rankingScoreValue: 1, popularity: 1, isActive: true } }),
  ],
  'en-CH': [activity(9, { locale: 'en-CH', title: 'Canyoning in Val Bavona (Ticino)' })],
  'fr-CH': [activity(9, { locale: 'fr-CH', title: 'Canyoning au Val Bavona (Tessin)' }), activity(30, { locale: 'fr-CH', title: 'Parapente à Verbier' })],
  'it-CH': [],
};

export interface Harness {
  readonly url: string;
  readonly handler: BookingHandler;
  readonly logs: string[];
  /** The time the handler sees; set it to move time. */
  now: number;
  /** Stops the server and closes the handler (the journal stays on disk). */
  stop(): Promise<void>;
}

/** Makes a temporary state directory, removed by the returned function. */
export async function tempStateDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'booking-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

type HarnessOptions = Partial<BookingHandlerOptions> & ({ mode: 'sandbox'; stateDir: string } | { mode: 'proxy'; upstreamUrl: string; apiKey: string });

/** Starts a booking handler on 127.0.0.1, port 0, its clock at `now`; 404s anything outside /v1. */
export async function startBooking(options: HarnessOptions, now = START): Promise<Harness> {
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);
  const harness = { now } as Harness & { now: number };
  const handler = await createBookingHandler({
    activities: (locale) => ACTIVITIES[locale],
    allowedOrigins: ['https://www.operator.example'],
    rateLimitPerMinute: 1000,
    trustedProxies: 0,
    idempotencyMaxEntries: DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
    idempotencyMaxBytes: DEFAULT_IDEMPOTENCY_MAX_BYTES,
    ...(options.mode === 'sandbox' ? { maxCartItems: DEFAULT_MAX_CART_ITEMS, maxHeldPlaces: DEFAULT_MAX_HELD_PLACES } : {}),
    upstreamTimeoutMs: 2000,
    authHeader: 'Authorization',
    clock: () => harness.now,
    logger: { info: log, warn: log, error: log },
    ...options,
  } as BookingHandlerOptions);
  const server: Server = createServer((req, res) => {
    void handler.handle(req, res).then((answered) => {
      if (!answered) res.writeHead(404).end('outside /v1');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(harness, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handler,
    logs,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  });
}

/**
 * Runs a sandbox booking handler, with a state directory of its own, for the tests of one file:
 * started before the first and stopped, its directory removed, after the last.
 * @returns the running harness, to be called from within the file's tests
 */
export function sandboxForFile(): () => Harness {
  let harness: Harness | undefined;
  let state: Awaited<ReturnType<typeof tempStateDir>> | undefined;
  beforeAll(async () => {
    state = await tempStateDir();
    harness = await startBooking({ mode: 'sandbox', stateDir: state.dir });
  });
  afterAll(async () => {
    await harness?.stop();
    await state?.remove();
  });
  return () => {
    if (!harness) throw new Error('the sandbox runs only while the tests of its file do');
    return harness;
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  // Tests read into bodies freely; the OpenAPI check has already vouched for their shape.
  body: any;
}

/**
 * Sends a request (a body object is sent as JSON) and checks the answer against the OpenAPI
 * document: the status is documented for the operation and the body matches its schema. Errors
 * outside the operations (404 for a path, 405) must still have the error shape. `unchecked`
 * skips the check, for what a proxy passes through from its upstream.
 */
export async function request(
  base: string,
  method: string,
  target: string,
  options: { body?: unknown; headers?: Record<string, string>; unchecked?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + target, { method, headers, body });
  const text = await response.text();
  const json = text === '' ? undefined : JSON.parse(text);
  if (!options.unchecked) checkDocumented(method, target.split('?')[0]!, response.status, json);
  return { status: response.status, headers: response.headers, body: json };
}

const DOCUMENT = openApiDocument('sandbox') as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

/** Checks one answer against the document (see {@link request}). */
export function checkDocumented(method: string, pathname: string, status: number, body: unknown): void {
  if (method === 'OPTIONS' || status === 204) return;
  const template = Object.keys(DOCUMENT.paths).find((candidate) => new RegExp(`^${candidate.replace(/\{\w+\}/, '[^/]+')}$`).test(pathname));
  const operation = template === undefined ? undefined : DOCUMENT.paths[template]![method.toLowerCase()];
  if (operation === undefined) {
    expect([404, 405], `${method} ${pathname} is not an operation, so only 404/405 may answer it`).toContain(status);
    expect(validate(body, { $ref: '#/components/schemas/Error' }), `${method} ${pathname} error body`).toEqual([]);
    return;
  }
  const response = operation.responses[String(status)];
  expect(response, `${method} ${template} answered ${status}, which the OpenAPI document does not list`).toBeDefined();
  const schema = response!.content?.['application/json']?.schema;
  if (schema !== undefined) expect(validate(body, schema), `${method} ${template} ${status} body`).toEqual([]);
}

/**
 * Validates a value against the JSON Schema subset the document uses ($ref, type, properties,
 * required, additionalProperties: false, items, minItems, maxItems, enum, const, anyOf, pattern,
 * minimum, maximum, minLength, maxLength); returns the problems, each with its JSON path.
 */
export function validate(value: unknown, schema: unknown, at = '$'): string[] {
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace('#/components/schemas/', '');
    const { $ref: _, ...rest } = s;
    return [...validate(value, DOCUMENT.components.schemas[name], at), ...validate(value, rest, at)];
  }
  if (Array.isArray(s.anyOf)) {
    const results = s.anyOf.map((option) => validate(value, option, at));
    return results.some((problems) => problems.length === 0) ? [] : [`${at}: matches no anyOf option (${results.map((r) => r[0]).join(' | ')})`];
  }
  const problems: string[] = [];
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [`${at}: expected ${types.join('|')}, got ${actual}`];
  }
  if (s.enum !== undefined && !(s.enum as unknown[]).includes(value)) problems.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (s.const !== undefined && s.const !== value) problems.push(`${at}: expected ${JSON.stringify(s.const)}`);
  if (typeof value === 'string') {
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(value)) problems.push(`${at}: ${JSON.stringify(value.slice(0, 40))} does not match ${s.pattern}`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) problems.push(`${at}: longer than ${s.maxLength}`);
    if (typeof s.minLength === 'number' && value.length < s.minLength) problems.push(`${at}: shorter than ${s.minLength}`);
    if (s.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) problems.push(`${at}: not a date`);
    if (s.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${at}: not a date-time`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) problems.push(`${at}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) problems.push(`${at}: above ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) problems.push(`${at}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) problems.push(`${at}: more than ${s.maxItems} items`);
  }
  if (Array.isArray(value) && s.items !== undefined) value.forEach((item, index) => problems.push(...validate(item, s.items, `${at}[${index}]`)));
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    for (const name of (s.required ?? []) as string[]) if (!(name in object)) problems.push(`${at}.${name}: required`);
    for (const [name, child] of Object.entries(object)) {
      if (name in properties) problems.push(...validate(child, properties[name], `${at}.${name}`));
      else if (s.additionalProperties === false) problems.push(`${at}.${name}: not in the schema`);
    }
  }
  return problems;
}

/**
 * The body of `POST /v1/reservations` for `numGuests` guests of an availability (a sandbox slot
 * id such as `9-20261121-0900`) in the activity's one ticket category; `extra` adds or overrides
 * fields (`cartId`, `locale`, ...).
 */
export function hold(availabilityId: string, numGuests: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const activityId = Number(availabilityId.split('-')[0]);
  return { activityId, availabilityId, selection: [{ ticketCategoryId: ticketCategoryIdOf(activityId), numGuests }], ...extra };
}

/** Places left of an availability (a sandbox slot id), read from the availabilities of its day. */
export async function placesLeft(base: string, availabilityId: string): Promise<number> {
  const [id, day] = availabilityId.split('-') as [string, string];
  const date = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`;
  const { body } = await request(base, 'GET', `/v1/activities/${id}/availabilities?startsAfter=${date}&untilEndOfDay=${date}`);
  const found = body.flatMap((offer: { availabilities: unknown[] }) => offer.availabilities).find((a: { availabilityId: string }) => a.availabilityId === availabilityId);
  return found.numAvailable;
}

/** A valid check-out body. */
export const CHECK_OUT = { partnerReference: 'ORDER-2026-0042', user: { givenName: 'Anna', familyName: 'Muster', email: 'anna@example.ch' } };

/**
 * The lines of text a PDF shows, in drawing order: every content stream inflated, and each
 * string shown with Tj (hex, as pdf-lib writes them, or literal) decoded as Latin-1.
 */
export function pdfText(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const lines: string[] = [];
  for (const match of text.matchAll(/<<([^>]*?\/Filter \/FlateDecode[^>]*?)>>\s*stream\r?\n/g)) {
    const length = Number(/\/Length (\d+)/.exec(match[1]!)![1]);
    const start = match.index! + match[0].length;
    const content = inflateSync(pdf.subarray(start, start + length)).toString('latin1');
    for (const shown of content.matchAll(/(?:<([0-9A-Fa-f]*)>|\(((?:\\.|[^\\)])*)\)) Tj/g)) {
      lines.push(shown[1] !== undefined ? Buffer.from(shown[1], 'hex').toString('latin1') : shown[2]!.replace(/\\(.)/g, '$1'));
    }
  }
  return lines;
}

/** docs/booking.md, whose walk-through section the walkthrough tests read. */
export const WALKTHROUGH_DOC = path.resolve(import.meta.dirname, '../../../docs/booking.md');
/** The heading of the walk-through section. */
const SECTION = '## A whole booking flow with curl (sandbox)';

/** The fenced `sh` blocks of the walk-through section, in order. */
export function walkthroughBlocks(markdown: string): string[] {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  expect(start, `docs/booking.md has a section "${SECTION}"`).toBeGreaterThan(-1);
  const rest = markdown.slice(start + SECTION.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}
