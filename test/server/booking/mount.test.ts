import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSizeTally } from '../../../server/snapshot/answerSizes.ts';
import { readConfig } from '../../../server/config/config.ts';
import { createHttpService, type HttpService } from '../../../server/http/server.ts';
import { createLogger } from '../../../server/ops/log.ts';
import { createMetrics } from '../../../server/ops/metrics.ts';
import { DEFAULT_IDEMPOTENCY_MAX_BYTES, DEFAULT_IDEMPOTENCY_MAX_ENTRIES, DEFAULT_MAX_CART_ITEMS, DEFAULT_MAX_HELD_PLACES } from '../../../server/config/bookingConfig.ts';
import { OPENAPI_PATH } from '../../../server/booking/operations.ts';
import { type BookingHandler, createBookingHandler } from '../../../server/booking/routes.ts';
import { ACTIVITIES, tempStateDir } from './helpers.ts';

const sdl = 'type Query { greeting: String }';
let service: HttpService;
let booking: BookingHandler;
let baseUrl: string;
let state: Awaited<ReturnType<typeof tempStateDir>>;

beforeAll(async () => {
  state = await tempStateDir();
  booking = await createBookingHandler({
    mode: 'sandbox',
    stateDir: state.dir,
    rateLimitPerMinute: 60,
    trustedProxies: 0,
    idempotencyMaxEntries: DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
    idempotencyMaxBytes: DEFAULT_IDEMPOTENCY_MAX_BYTES,
    maxCartItems: DEFAULT_MAX_CART_ITEMS,
    maxHeldPlaces: DEFAULT_MAX_HELD_PLACES,
    activities: (locale) => ACTIVITIES[locale],
    allowedOrigins: ['https://www.operator.example'],
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  service = createHttpService({
    schema: buildSchema(sdl),
    sdl,
    snapshot: () => ({ version: 'v1', context: {}, sizes: createSizeTally().sizes(), expiresAtMs: Date.now() + 60_000, lastSyncMs: {} }),
    sampleQueries: () => [],
    status: {
      report: (ready) => ({ service: 'test', ready }),
      page: (ready) => ({ html: `<p>ready: ${ready}</p>`, contentSecurityPolicy: "default-src 'none'" }),
    },
    config: readConfig({ ALLOWED_ORIGINS: 'https://www.operator.example' }),
    logger: createLogger('silent'),
    metrics: createMetrics(() => ({ version: 'v1', lastSyncMs: {} })),
    booking: booking.handle,
    bookingDocument: OPENAPI_PATH,
  });
  service.server.listen(0, '127.0.0.1');
  await once(service.server, 'listening');
  baseUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  service.server.closeAllConnections();
  await new Promise((resolve) => service.server.close(resolve));
  await booking.close();
  await state.remove();
});

describe('the booking interface mounted in the HTTP layer', () => {
  it('answers the /v1 paths, with the request id of the HTTP layer', async () => {
    const response = await fetch(`${baseUrl}/v1/activities?locale=de_CH`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(((await response.json()) as unknown[]).length).toBe(5);
    const unknown = await fetch(`${baseUrl}/v1/nothing`);
    expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('leaves /v1/docs to the HTTP layer, which renders the document the booking interface serves', async () => {
    const page = await fetch(`${baseUrl}/v1/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="redoc" data-document="/v1/openapi.json">');
    const document = await fetch(`${baseUrl}/v1/openapi.json`);
    expect([document.status, ((await document.json()) as { openapi: string }).openapi]).toEqual([200, '3.1.0']);
    const unknown = await fetch(`${baseUrl}/v1/docs/nothing`);
    expect([unknown.status, ((await unknown.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('grants PATCH and Idempotency-Key to an allowed origin in a preflight', async () => {
    const response = await fetch(`${baseUrl}/v1/booking_items/itm_1/cancel`, {
      method: 'OPTIONS',
      headers: { origin: 'https://www.operator.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'Content-Type, Idempotency-Key, X-Secret' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://www.operator.example');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type, idempotency-key');
  });

  it('grants nothing to another origin, and exposes the booking headers to an allowed one', async () => {
    const foreign = await fetch(`${baseUrl}/v1/reservations`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(foreign.status).toBe(204);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('access-control-allow-methods')).toBeNull();
    const allowed = await fetch(`${baseUrl}/v1/activities`, { headers: { origin: 'http://localhost:5173' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(allowed.headers.get('access-control-expose-headers')).toBe('Retry-After, Idempotent-Replayed, Allow');
    expect(allowed.headers.get('vary')).toContain('Origin');
  });

  it('leaves every other path to the HTTP layer', async () => {
    const schema = await fetch(`${baseUrl}/api/schema`);
    expect([schema.status, await schema.text()]).toEqual([200, sdl]);
    // The HTTP layer's own 404, not the booking interface's `{ error }`.
    const other = await fetch(`${baseUrl}/v1x`);
    expect(other.status).toBe(404);
    expect(await other.json()).not.toHaveProperty('error');
  });
});
